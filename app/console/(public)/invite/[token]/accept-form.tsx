"use client";

import { acceptInvitationAction } from "@/app/console/actions";
import { useCreateThenSignIn } from "@/components/console/sign-in-after";
import { Field, FormMessage, SubmitButton } from "@/components/console/form";

export function AcceptForm({ token }: { token: string }) {
  const [state, action] = useCreateThenSignIn(acceptInvitationAction, "Your account");
  return (
    <form action={action} className="space-y-4" noValidate>
      <input type="hidden" name="token" value={token} />
      <Field name="name" label="Your name" autoComplete="name" required state={state} />
      <Field name="email" label="E-mail" type="email" autoComplete="username" required state={state} />
      <Field
        name="password"
        label="Password"
        type="password"
        autoComplete="new-password"
        hint="At least 12 characters."
        required
        state={state}
      />
      <SubmitButton pendingText="Joining…">Join the organisation</SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
