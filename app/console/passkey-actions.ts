"use server";
// Passkeys: adding one on /console/security (or at sign-in's enrolment), and the options and answers
// of the second step and the step-up with one, and of a sign-in with a passkey alone (whose answer
// goes to next-auth's "passkey" provider). Adapters to lib/accounts/factors/passkey-flows.
import { revalidatePath } from "next/cache";
import {
  beginPasskey,
  finishPasskey,
  passkeyChallengeFor,
  provePasskey,
  type PasskeyPurposeOfUse,
} from "@/lib/accounts/factors/passkey-flows";
import { recordStepUp } from "@/lib/accounts/factors/manage";
import type { Ceremony } from "@/lib/accounts/factors/passkeys";
import { now } from "@/lib/clock";
import { toActionState, type ActionState } from "@/lib/console/actions";
import { DomainError } from "@/lib/errors";
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/server";
import { consoleSession } from "./_lib/auth";
import { database } from "./_lib/console";
import { passkeyRelyingParty, requestAddress } from "./_lib/origin";
import type { RecoveryCodes } from "./security-actions";

export type PasskeyAnswer = { challengeId: string; response: string };

/** Starts adding a passkey: the options for the browser's prompt. */
export async function beginPasskeyAction(): Promise<ActionState<Ceremony<PublicKeyCredentialCreationOptionsJSON>>> {
  return toActionState("Follow your browser's prompt.", async () =>
    beginPasskey(await database(), await consoleSession(), await passkeyRelyingParty(), now()),
  );
}

/** Adds the passkey the browser made, named. */
export async function finishPasskeyAction(
  input: PasskeyAnswer & { name: string },
): Promise<ActionState<RecoveryCodes>> {
  const session = await consoleSession();
  const state = await toActionState("Passkey added.", async () =>
    finishPasskey(await database(), session, input, await passkeyRelyingParty(), now()),
  );
  // As for an authenticator app: at sign-in's enrolment the form moves on itself.
  if (state && "ok" in state && session?.stage === "done") revalidatePath("/console/security");
  return state;
}

/** The options for using a passkey: the second step, a step-up, or a sign-in with a passkey alone. */
export async function passkeyOptionsAction(
  purpose: PasskeyPurposeOfUse,
): Promise<ActionState<Ceremony<PublicKeyCredentialRequestOptionsJSON>>> {
  return toActionState("Follow your browser's prompt.", async () => {
    if (purpose !== "second_step" && purpose !== "step_up" && purpose !== "sign_in") {
      throw new DomainError("invalid_input", "Unknown use of a passkey.");
    }
    const session = purpose === "sign_in" ? null : await consoleSession();
    return passkeyChallengeFor(await database(), session, purpose, await passkeyRelyingParty(), now());
  });
}

async function prove(purpose: "second_step" | "step_up", answer: PasskeyAnswer): Promise<void> {
  const session = await consoleSession();
  const stage = purpose === "second_step" ? "second_factor" : "done";
  if (!session || session.stage !== stage) {
    throw new DomainError("forbidden", "This sign-in has ended: sign in again with your password.");
  }
  const db = await database();
  const result = await provePasskey(
    db,
    session,
    purpose,
    {
      challengeId: String(answer?.challengeId ?? ""),
      response: String(answer?.response ?? ""),
      address: await requestAddress(),
    },
    await passkeyRelyingParty(),
    now(),
  );
  if (result.ok) {
    if (purpose === "step_up") await recordStepUp(db, session, "passkey");
    return;
  }
  if (result.reason === "throttled") {
    const minutes = Math.ceil(result.retryAfterSeconds / 60);
    throw new DomainError(
      "throttled",
      `Too many failed attempts. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
    );
  }
  throw new DomainError("invalid_input", "That passkey was not accepted. Try again, or enter a code.");
}

/** The second step of signing in with a passkey. */
export async function passkeySecondStepAction(answer: PasskeyAnswer): Promise<ActionState> {
  return toActionState("Signed in.", async () => {
    await prove("second_step", answer);
    return null;
  });
}

/** A step-up with a passkey. */
export async function passkeyStepUpAction(answer: PasskeyAnswer): Promise<ActionState> {
  return toActionState("Confirmed: try the change again.", async () => {
    await prove("step_up", answer);
    return null;
  });
}
