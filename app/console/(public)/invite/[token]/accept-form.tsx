"use client";

import { useRouter } from "next/navigation";
import { useActionState } from "react";
import { acceptInvitationAction } from "@/app/console/actions";
import { signInWithCredentials } from "@/components/console/sign-in-after";
import { Field, FormMessage, SubmitButton } from "@/components/console/form";
import type { ActionState } from "@/lib/console/actions";

export function AcceptForm({ token }: { token: string }) {
  const router = useRouter();
  const [state, action] = useActionState<ActionState<unknown>, FormData>(async (previous, form) => {
    const accepted = await acceptInvitationAction(previous, form);
    if (!accepted || "error" in accepted) return accepted;
    const error = await signInWithCredentials(String(form.get("email")), String(form.get("password")));
    if (error) return { error: `Your account was created, but signing in failed: ${error}` };
    router.replace("/console");
    router.refresh();
    return accepted;
  }, null);
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
