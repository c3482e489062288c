"use client";

import { confirmSignUpAction } from "@/app/console/account-actions";
import { FormMessage, SubmitButton } from "@/components/console/form";
import { useGrantThenSignIn } from "@/components/console/mail-link-sign-in";

export function ConfirmForm({ token }: { token: string }) {
  const [state, action] = useGrantThenSignIn(confirmSignUpAction, "Your organisation was created");
  return (
    <form action={action} className="space-y-4" noValidate>
      <input type="hidden" name="token" value={token} />
      <SubmitButton pendingText="Creating…">Create organisation</SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
