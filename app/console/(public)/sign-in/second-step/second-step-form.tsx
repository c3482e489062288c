"use client";

import { useRouter } from "next/navigation";
import { useActionState } from "react";
import { secondStepAction } from "@/app/console/security-actions";
import { PasskeyButton } from "@/components/console/factors/passkeys";
import { CodeField } from "@/components/console/factors/code-field";
import { FormMessage, SubmitButton } from "@/components/console/form";
import type { ActionState } from "@/lib/console/actions";

export function SecondStepForm({ after, passkey }: { after: string; passkey: boolean }) {
  const router = useRouter();
  const [state, action] = useActionState<ActionState, FormData>(async (previous, form) => {
    const result = await secondStepAction(previous, form);
    if (result && "ok" in result) {
      router.replace(after);
      router.refresh();
    }
    return result;
  }, null);
  const onward = () => {
    router.replace(after);
    router.refresh();
  };
  return (
    <div className="space-y-6">
      {passkey ? <PasskeyButton purpose="second_step" onDone={onward} /> : null}
      <form action={action} className="space-y-4" noValidate>
        <CodeField
          label="Code"
          hint="Six digits from your app, or a recovery code such as ABCDE-FGHJK."
          recovery
          required
          state={state}
        />
        <SubmitButton pendingText="Checking…">Continue</SubmitButton>
        <FormMessage state={state} />
      </form>
    </div>
  );
}
