"use client";

import { startAuthentication, startRegistration, WebAuthnError } from "@simplewebauthn/browser";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import {
  beginPasskeyAction,
  finishPasskeyAction,
  passkeyOptionsAction,
  passkeySecondStepAction,
  passkeyStepUpAction,
} from "@/app/console/passkey-actions";
import type { RecoveryCodes } from "@/app/console/security-actions";
import type { ActionState } from "@/lib/console/actions";
import { FormMessage, inputClass, secondaryButtonClass } from "../form";
import { RecoveryCodesShown } from "./recovery-codes";

// The browser's half of the passkey ceremonies (@simplewebauthn/browser): the server's options in,
// the authenticator's answer out, as JSON text to the server's actions.

/** What went wrong in the browser, in words; the ceremony's own errors are not for people. */
function browserRefusal(error: unknown): ActionState<never> {
  if (error instanceof Error && (error.name === "NotAllowedError" || error.name === "AbortError")) {
    return { error: "The passkey prompt was closed or timed out. Try again." };
  }
  if (error instanceof WebAuthnError && error.code === "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED") {
    return { error: "This passkey is already added to your account." };
  }
  return { error: "This browser could not use a passkey here. Try another browser or device, or use a code." };
}

/**
 * One ceremony: the server's challenge from `begin`, the browser's `prompt` with its options, then
 * `finish` with the answer. A refusal before `finish` (the server's or the browser's) goes to `refuse`.
 */
async function runCeremony<Options>(
  begin: () => Promise<ActionState<{ challengeId: string; options: Options }>>,
  prompt: (optionsJSON: Options) => Promise<unknown>,
  refuse: (state: ActionState<never>) => void,
  finish: (answer: { challengeId: string; response: string }) => Promise<void>,
): Promise<void> {
  const begun = await begin();
  if (!begun || "error" in begun) return refuse(begun);
  let response: string;
  try {
    response = JSON.stringify(await prompt(begun.data.options));
  } catch (error) {
    return refuse(browserRefusal(error));
  }
  await finish({ challengeId: begun.data.challengeId, response });
}

/**
 * Adding a passkey: a name, then the browser's prompt; then the recovery codes when it is the
 * member's first factor. `after`: where to go when done (the sign-in's destination); else the page
 * is read again.
 */
export function PasskeyEnrolment({ after }: { after?: string }) {
  const router = useRouter();
  const [name, setName] = useState("");
  const [state, setState] = useState<ActionState<RecoveryCodes>>(null);
  const [pending, startTransition] = useTransition();
  const done = () => {
    if (after) router.replace(after);
    router.refresh();
  };
  const added = state && "ok" in state ? state : null;
  if (added?.data.recoveryCodes) return <RecoveryCodesShown codes={added.data.recoveryCodes} onDone={done} />;
  const add = () =>
    startTransition(() =>
      runCeremony(
        beginPasskeyAction,
        (optionsJSON) => startRegistration({ optionsJSON }),
        setState,
        async (answer) => {
          const finished = await finishPasskeyAction({ ...answer, name });
          setState(finished);
          if (finished && "ok" in finished && !finished.data.recoveryCodes) {
            setName("");
            if (after) done();
          }
        },
      ),
    );
  return (
    <div className="space-y-2" data-testid="passkey-enrolment">
      <label htmlFor="passkey-name" className="block text-sm font-medium text-slate-900">
        Passkey name (to tell your devices apart)
      </label>
      <input
        id="passkey-name"
        className={inputClass}
        placeholder="Passkey"
        maxLength={60}
        value={name}
        onChange={(event) => setName(event.target.value)}
      />
      <button type="button" className={secondaryButtonClass} disabled={pending} onClick={add}>
        {pending ? "Waiting for your passkey…" : "Add a passkey"}
      </button>
      <FormMessage state={state} />
    </div>
  );
}

/** Uses a passkey for the session: the second step of signing in, or a step-up. */
export function PasskeyButton({
  purpose,
  onDone,
}: {
  purpose: "second_step" | "step_up";
  onDone: (state: ActionState) => void;
}) {
  const [state, setState] = useState<ActionState>(null);
  const [pending, startTransition] = useTransition();
  const use = () =>
    startTransition(() =>
      runCeremony(
        () => passkeyOptionsAction(purpose),
        (optionsJSON) => startAuthentication({ optionsJSON }),
        setState,
        async (answer) => {
          const result =
            purpose === "second_step" ? await passkeySecondStepAction(answer) : await passkeyStepUpAction(answer);
          setState(result);
          if (result && "ok" in result) onDone(result);
        },
      ),
    );
  return (
    <div>
      <button type="button" className={secondaryButtonClass} disabled={pending} onClick={use}>
        {pending ? "Waiting for your passkey…" : "Use a passkey"}
      </button>
      {state && "error" in state ? <FormMessage state={state} /> : null}
    </div>
  );
}

/** Signing in with a passkey alone: the browser offers the passkeys it holds for this site. */
export function PasskeySignIn({ after }: { after: string }) {
  const router = useRouter();
  const [state, setState] = useState<ActionState>(null);
  const [pending, startTransition] = useTransition();
  const use = () =>
    startTransition(() =>
      runCeremony(
        () => passkeyOptionsAction("sign_in"),
        (optionsJSON) => startAuthentication({ optionsJSON }),
        setState,
        async (answer) => {
          const result = await signIn("passkey", { ...answer, redirect: false });
          if (!result?.ok || result.error) {
            const refused = !result?.error || result.error === "CredentialsSignin";
            return setState({
              error: refused ? "That passkey was not accepted. Sign in with your password." : result.error!,
            });
          }
          router.replace(after);
          router.refresh();
        },
      ),
    );
  // Not "Sign in with…": the password form's button is "Sign in", and one name must not contain the other.
  return (
    <div>
      <p className="mb-2 text-sm text-slate-700">Or sign in with a passkey, no e-mail or password needed:</p>
      <button type="button" className={secondaryButtonClass} disabled={pending} onClick={use}>
        {pending ? "Waiting for your passkey…" : "Use a passkey"}
      </button>
      <FormMessage state={state} />
    </div>
  );
}
