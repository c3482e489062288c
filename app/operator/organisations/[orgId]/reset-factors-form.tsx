"use client";

import { useActionState } from "react";
import { resetFactorsAction } from "@/app/operator/actions";
import { FormMessage, SubmitButton, secondaryButtonClass } from "@/components/console/form";

/** Removes a member's second factors, for one who lost them; the member adds one again. */
export function ResetFactorsForm({ userId, label }: { userId: string; label: string }) {
  const [state, action] = useActionState(resetFactorsAction, null);
  return (
    <form action={action} className="mt-1">
      <input type="hidden" name="userId" value={userId} />
      <SubmitButton pendingText="Resetting…" className={secondaryButtonClass}>
        Reset second factors <span className="sr-only">of {label}</span>
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
