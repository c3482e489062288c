"use client";

import { useRouter } from "next/navigation";
import { useActionState, useState } from "react";
import { beginTotpAction, confirmTotpAction, type RecoveryCodes, type TotpSetup } from "@/app/console/security-actions";
import type { ActionState } from "@/lib/console/actions";
import { Field, FormMessage, SubmitButton, secondaryButtonClass } from "../form";
import { CodeField } from "./code-field";
import { RecoveryCodesShown } from "./recovery-codes";

/**
 * Adding an authenticator app: its secret as a QR code and as text, confirmed with a code from the
 * app; then the recovery codes when they are the member's first. `after`: where to go when done
 * (the sign-in's destination); else the page is read again.
 */
export function TotpEnrolment({ after }: { after?: string }) {
  const router = useRouter();
  const [setup, setSetup] = useState<ActionState<TotpSetup>>(null);
  const [state, confirm] = useActionState<ActionState<RecoveryCodes>, FormData>(confirmTotpAction, null);
  const done = () => {
    if (after) router.replace(after);
    router.refresh();
  };
  const added = state && "ok" in state ? state : null;
  if (added?.data.recoveryCodes) return <RecoveryCodesShown codes={added.data.recoveryCodes} onDone={done} />;
  if (added) {
    return (
      <div>
        <FormMessage state={added} />
        {after ? (
          <button type="button" className={`${secondaryButtonClass} mt-3`} onClick={done}>
            Continue
          </button>
        ) : null}
      </div>
    );
  }
  const ready = setup && "ok" in setup ? setup.data : null;
  if (!ready) {
    return (
      <div>
        <button type="button" className={secondaryButtonClass} onClick={async () => setSetup(await beginTotpAction())}>
          Set up an authenticator app
        </button>
        <FormMessage state={setup} />
      </div>
    );
  }
  return (
    <form action={confirm} className="space-y-4" noValidate>
      <p className="text-sm text-slate-800">
        Scan this code with your authenticator app (or type the key below into it), then enter the six-digit code it
        shows.
      </p>
      {/* eslint-disable-next-line @next/next/no-img-element -- a data: URL made on the server, no optimisation to do */}
      <img src={ready.qr} alt="QR code to scan with your authenticator app" width={200} height={200} />
      <p className="text-sm text-slate-800">
        Key:{" "}
        <code className="break-all font-mono" data-testid="totp-secret">
          {ready.secret}
        </code>
      </p>
      <input type="hidden" name="factorId" value={ready.factorId} />
      <Field name="name" label="Name (to tell your devices apart)" placeholder="Authenticator app" state={state} />
      <CodeField label="Code from the app" required state={state} />
      <SubmitButton pendingText="Checking…">Confirm</SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
