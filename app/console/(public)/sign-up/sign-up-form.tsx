"use client";

import { useActionState } from "react";
import { signUpAction } from "@/app/console/account-actions";
import { AccountFields } from "@/components/console/account-fields";
import { Field, FormMessage, SubmitButton } from "@/components/console/form";

export function SignUpForm() {
  const [state, action] = useActionState(signUpAction, null);
  // The same answer for every address, registered or not: the rest happens in the mail.
  if (state && "ok" in state) {
    return (
      <div
        role="status"
        data-testid="sign-up-answer"
        className="rounded-md border border-pitch-600 bg-pitch-50 p-4 text-sm text-pitch-900"
      >
        <h2 className="text-base font-semibold">Check your inbox</h2>
        <p className="mt-2">{state.ok}</p>
        <p className="mt-2">Nothing there after a few minutes? Look in the spam folder, or sign up again.</p>
      </div>
    );
  }
  return (
    <form action={action} className="space-y-4" noValidate>
      <Field name="organisation" label="Organisation name" autoComplete="organization" required state={state} />
      <AccountFields state={state} />
      <SubmitButton pendingText="Sending…">Create organisation</SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
