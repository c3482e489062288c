"use server";
// Second factors: the second step of signing in, enrolment, a member's own factors on
// /console/security, the step-up, and the organisation's policy. Adapters to
// lib/accounts/factors, which checks the session's stage, the role and the input.
import QRCode from "qrcode";
import { proveSecondFactor, type ConsoleSession } from "@/lib/accounts/factors/gate";
import {
  beginTotp,
  finishTotp,
  recordStepUp,
  regenerateRecoveryCodes,
  removeOwnFactor,
  setSecondFactorPolicy,
} from "@/lib/accounts/factors/manage";
import { sealingKey } from "@/lib/accounts/factors/sealing";
import { authSecret } from "@/lib/accounts/auth/secret";
import { now } from "@/lib/clock";
import { formFields, formValues, toActionState, type ActionState } from "@/lib/console/actions";
import { currentInstance } from "@/lib/instance";
import { DomainError } from "@/lib/errors";
import { consoleSession } from "./_lib/auth";
import { database } from "./_lib/console";
import { requestAddress } from "./_lib/origin";
import { revalidatePath } from "next/cache";

export type TotpSetup = { factorId: string; secret: string; qr: string };
export type RecoveryCodes = { recoveryCodes: string[] | null };

function key(): Buffer {
  return sealingKey(authSecret(currentInstance().config));
}

/** Checks a code for the session; a refusal in words, throttling included. */
async function prove(session: ConsoleSession, code: string): Promise<"totp" | "recovery_code"> {
  const result = await proveSecondFactor(
    await database(),
    session,
    { code, address: await requestAddress() },
    key(),
    now(),
  );
  if (result.ok) return result.method;
  if (result.reason === "throttled") {
    const minutes = Math.ceil(result.retryAfterSeconds / 60);
    throw new DomainError(
      "throttled",
      `Too many wrong codes. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
    );
  }
  throw new DomainError("invalid_input", "That code is not right, or was used already. Enter a new one.");
}

function codeOf(form: FormData): string {
  const code = String(form.get("code") ?? "").trim();
  if (!code) throw new DomainError("invalid_input", "Enter the code from your authenticator app, or a recovery code.");
  return code;
}

/** The second step of signing in: a code from the app, or a recovery code. */
export async function secondStepAction(_: unknown, form: FormData): Promise<ActionState> {
  return toActionState("Signed in.", async () => {
    const session = await consoleSession();
    if (!session || session.stage !== "second_factor") {
      throw new DomainError("forbidden", "This sign-in has ended: sign in again with your password.");
    }
    await prove(session, codeOf(form));
    return null;
  });
}

/** A step-up: the second factor again before a key or member change. */
export async function stepUpAction(_: unknown, form: FormData): Promise<ActionState> {
  return toActionState("Confirmed: try the change again.", async () => {
    const session = await consoleSession();
    if (!session || session.stage !== "done")
      throw new DomainError("forbidden", "Your session has ended: sign in again.");
    const method = await prove(session, codeOf(form));
    await recordStepUp(await database(), session, method);
    return null;
  });
}

/** Starts adding an authenticator app: its secret as a QR code and as text. */
export async function beginTotpAction(): Promise<ActionState<TotpSetup>> {
  return toActionState("Scan the code with your authenticator app.", async () => {
    const setup = await beginTotp(await database(), await consoleSession(), key(), now());
    const qr = await QRCode.toDataURL(setup.uri, { margin: 1, width: 200 });
    return { factorId: setup.factorId, secret: setup.secret, qr };
  });
}

export async function confirmTotpAction(_: unknown, form: FormData): Promise<ActionState<RecoveryCodes>> {
  const session = await consoleSession();
  const state = await toActionState(
    "Authenticator app added.",
    async () => finishTotp(await database(), session, formFields(form) as never, key(), now()),
    formValues(form),
  );
  // Not at sign-in's enrolment: re-read there, the page would move on (the session being done)
  // before the recovery codes were shown; the form moves on itself once they are stored.
  if (state && "ok" in state && session?.stage === "done") revalidatePath("/console/security");
  return state;
}

export async function removeFactorAction(_: unknown, form: FormData): Promise<ActionState> {
  const state = await toActionState("Removed.", async () => {
    await removeOwnFactor(await database(), await consoleSession(), formFields(form) as never, now());
    return null;
  });
  if (state && "ok" in state) revalidatePath("/console/security");
  return state;
}

export async function regenerateRecoveryCodesAction(): Promise<ActionState<RecoveryCodes>> {
  const state = await toActionState("New recovery codes made: the old ones no longer work.", async () =>
    regenerateRecoveryCodes(await database(), await consoleSession(), now()),
  );
  if (state && "ok" in state) revalidatePath("/console/security");
  return state;
}

export async function setPolicyAction(_: unknown, form: FormData): Promise<ActionState> {
  const state = await toActionState(
    "Policy saved.",
    async () => {
      await setSecondFactorPolicy(await database(), await consoleSession(), formFields(form) as never, now());
      return null;
    },
    formValues(form),
  );
  if (state && "ok" in state) revalidatePath("/console", "layout");
  return state;
}
