"use client";

import { resetPasswordAction } from "@/app/console/account-actions";
import { Field, FormMessage, SubmitButton } from "@/components/console/form";
import { useGrantThenSignIn } from "@/components/console/mail-link-sign-in";

export function ResetForm({ token }: { token: string }) {
  const [state, action] = useGrantThenSignIn(resetPasswordAction, "Your password was changed");
  return (
    <form action={action} className="space-y-4" noValidate>
      <input type="hidden" name="token" value={token} />
      <Field
        name="password"
        label="New password"
        type="password"
        autoComplete="new-password"
        hint="At least 12 characters."
        required
        state={state}
      />
      <SubmitButton pendingText="Saving…">Set the new password</SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
