"use client";

import { signUpAction } from "@/app/console/actions";
import { useCreateThenSignIn } from "@/components/console/sign-in-after";
import { Field, FormMessage, SubmitButton } from "@/components/console/form";

export function SignUpForm() {
  const [state, action] = useCreateThenSignIn(signUpAction, "Your organisation");
  return (
    <form action={action} className="space-y-4" noValidate>
      <Field name="organisation" label="Organisation name" autoComplete="organization" required state={state} />
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
      <SubmitButton pendingText="Creating…">Create organisation</SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
