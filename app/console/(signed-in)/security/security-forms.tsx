"use client";

import { useActionState, useState, useTransition } from "react";
import {
  regenerateRecoveryCodesAction,
  removeFactorAction,
  setPolicyAction,
  type RecoveryCodes,
} from "@/app/console/security-actions";
import { RecoveryCodesShown } from "@/components/console/factors/recovery-codes";
import {
  dangerButtonClass,
  FormMessage,
  inputClass,
  secondaryButtonClass,
  SubmitButton,
} from "@/components/console/form";
import { POLICY_WORDS } from "@/lib/accounts/factors/policy";
import type { ActionState } from "@/lib/console/actions";
import type { SecondFactorPolicy } from "@/lib/db/schema/accounts";

export function RemoveFactorForm({ factorId, label }: { factorId: string; label: string }) {
  const [state, action] = useActionState(removeFactorAction, null);
  return (
    <form action={action} className="mt-3">
      <input type="hidden" name="factorId" value={factorId} />
      <SubmitButton pendingText="Removing…" className={dangerButtonClass}>
        Remove <span className="sr-only">{label}</span>
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}

export function RecoveryCodesForm() {
  const [state, setState] = useState<ActionState<RecoveryCodes>>(null);
  const [pending, startTransition] = useTransition();
  const codes = state && "ok" in state ? state.data.recoveryCodes : null;
  if (codes) return <RecoveryCodesShown codes={codes} onDone={() => setState(null)} />;
  return (
    <div>
      <button
        type="button"
        className={secondaryButtonClass}
        disabled={pending}
        onClick={() => startTransition(async () => setState(await regenerateRecoveryCodesAction()))}
      >
        {pending ? "Making…" : "Make new recovery codes"}
      </button>
      <FormMessage state={state} />
    </div>
  );
}

export function PolicyForm({ policy }: { policy: SecondFactorPolicy }) {
  const [state, action] = useActionState(setPolicyAction, null);
  return (
    <form action={action} className="flex flex-wrap items-end gap-3">
      <div>
        <label htmlFor="policy" className="block text-sm font-medium text-slate-900">
          Who must use a second factor
        </label>
        <select
          id="policy"
          name="policy"
          defaultValue={state && "error" in state ? (state.values?.policy ?? policy) : policy}
          className={inputClass}
        >
          {(Object.keys(POLICY_WORDS) as SecondFactorPolicy[]).map((value) => (
            <option key={value} value={value}>
              {POLICY_WORDS[value].replace(/^./, (c) => c.toUpperCase())}
            </option>
          ))}
        </select>
      </div>
      <SubmitButton pendingText="Saving…">Save policy</SubmitButton>
      <div className="basis-full">
        <FormMessage state={state} />
      </div>
    </form>
  );
}
