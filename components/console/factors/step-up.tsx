"use client";

import { useState, useTransition } from "react";
import { stepUpAction } from "@/app/console/security-actions";
import type { ActionState } from "@/lib/console/actions";
import { secondaryButtonClass } from "../form";
import { CodeField } from "./code-field";
import { PasskeyButton } from "./passkeys";

/**
 * Under a change refused for want of a recent second factor: a passkey or the code, then the change
 * again. Not a form of its own: it shows inside the refused change's form, and forms do not nest.
 */
export function StepUpForm() {
  const [code, setCode] = useState("");
  const [state, setState] = useState<ActionState>(null);
  const [pending, startTransition] = useTransition();
  if (state && "ok" in state) {
    return (
      <p role="status" className="mt-2 text-sm text-pitch-900" data-testid="step-up-done">
        {state.ok}
      </p>
    );
  }
  const confirm = () =>
    startTransition(async () => {
      const form = new FormData();
      form.set("code", code);
      setState(await stepUpAction(null, form));
    });
  return (
    <div className="mt-2 space-y-2" data-testid="step-up">
      <PasskeyButton purpose="step_up" onDone={setState} />
      <CodeField
        id="step-up-code"
        label="Second factor code"
        value={code}
        onChange={(event) => setCode(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Enter") {
            event.preventDefault();
            confirm();
          }
        }}
      />
      <button type="button" className={secondaryButtonClass} disabled={pending} onClick={confirm}>
        {pending ? "Checking…" : "Confirm it is me"}
      </button>
      {state && "error" in state ? (
        <p role="alert" className="text-sm text-red-800">
          {state.error}
        </p>
      ) : null}
    </div>
  );
}
