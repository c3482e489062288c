"use client";

import { useActionState } from "react";
import { resendMailAction } from "@/app/operator/actions";
import { FormMessage, secondaryButtonClass, SubmitButton } from "@/components/console/form";

export function ResendButton({ messageId }: { messageId: string }) {
  const [state, action] = useActionState(resendMailAction, null);
  return (
    <form action={action} className="mt-2">
      <input type="hidden" name="messageId" value={messageId} />
      <SubmitButton pendingText="Queuing…" className={secondaryButtonClass}>
        Send again
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
