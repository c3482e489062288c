"use client";

import { acceptInvitationAction } from "@/app/console/actions";
import { useCreateThenSignIn } from "@/components/console/sign-in-after";
import { AccountFields } from "@/components/console/account-fields";
import { FormMessage, SubmitButton } from "@/components/console/form";

export function AcceptForm({ token }: { token: string }) {
  const [state, action] = useCreateThenSignIn(acceptInvitationAction, "Your account");
  return (
    <form action={action} className="space-y-4" noValidate>
      <input type="hidden" name="token" value={token} />
      <AccountFields state={state} />
      <SubmitButton pendingText="Joining…">Join the organisation</SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
