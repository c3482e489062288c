import "#server-only";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { recordAudit } from "../audit.ts";
import type { Database } from "../../db/index.ts";
import { memberships, operators, secondFactors, users } from "../../db/schema/index.ts";
import { DomainError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import { recordFailure, throttleWait } from "../sign-in.ts";
import { ssoRequiredFor } from "../sso/policy.ts";
import { auditEverywhere, markSecondFactor, type ConsoleSession } from "./gate.ts";
import { enrolmentSession, sessionUser } from "./manage.ts";
import { factorLabel, raiseSecurityNotice } from "./notices.ts";
import {
  authenticationCeremony,
  registrationCeremony,
  verifyAuthentication,
  verifyRegistration,
  type Ceremony,
  type RelyingParty,
} from "./passkeys.ts";
import { recoveryCodesLeft, replaceRecoveryCodes } from "./store.ts";
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/server";

// A member's passkeys as the console uses them: adding one on /console/security (or at sign-in's
// enrolment), the second step and the step-up with one, and signing in with a passkey alone.

export const PASSKEY_NAME = "Passkey";

/** Starts adding a passkey: from /console/security, or at sign-in when a second factor is required. */
export async function beginPasskey(
  db: Database,
  session: ConsoleSession | null,
  rp: RelyingParty,
  at: Date,
): Promise<Ceremony<PublicKeyCredentialCreationOptionsJSON>> {
  const { user, session: open } = await enrolmentSession(db, session, at);
  return registrationCeremony(db, rp, user, open.id, at);
}

export const finishPasskeyInput = z.object({
  challengeId: z.string().min(1).max(40),
  response: z.string().min(1).max(40_000),
  name: z.string().trim().max(60).default(PASSKEY_NAME),
});

/**
 * Adds the passkey the browser made, once its answer checks out. Making it took the member's touch
 * on an authenticator, so the session counts as past its second factor (a session held at
 * enrolment is signed in). Returns the new recovery codes when this is the member's first factor.
 */
export async function finishPasskey(
  db: Database,
  session: ConsoleSession | null,
  input: z.input<typeof finishPasskeyInput>,
  rp: RelyingParty,
  at: Date,
): Promise<{ recoveryCodes: string[] | null }> {
  const { user } = await sessionUser(db, session, ["done", "enrol"]);
  const parsed = finishPasskeyInput.parse(input);
  const name = parsed.name || PASSKEY_NAME;
  const credential = await verifyRegistration(db, rp, { userId: user.id, sessionId: session!.id }, parsed, at);
  if (!credential) throw new DomainError("invalid_input", "The passkey was not added: start adding it again.");
  const factorId = newId("fac");
  const recoveryCodes = await db.transaction(async (tx) => {
    const [existing] = await tx
      .select({ id: secondFactors.id })
      .from(secondFactors)
      .where(eq(secondFactors.credentialId, credential.credentialId));
    if (existing) throw new DomainError("conflict", "This passkey was already added.");
    await tx.insert(secondFactors).values({
      id: factorId,
      userId: user.id,
      kind: "passkey",
      name,
      credentialId: credential.credentialId,
      publicKey: credential.publicKey,
      signCount: credential.signCount,
      confirmedAt: at,
      createdAt: at,
    });
    return (await recoveryCodesLeft(tx, user.id)) === 0 ? replaceRecoveryCodes(tx, user.id) : null;
  });
  await markSecondFactor(db, session!.id, at);
  await auditEverywhere(db, user.id, user.email, "factor.added", { kind: "passkey", name }, factorId);
  await raiseSecurityNotice(
    db,
    { userId: user.id, email: user.email },
    {
      kind: "factor_added",
      factor: factorLabel({ kind: "passkey", name }),
    },
  );
  return { recoveryCodes };
}

export type PasskeyPurposeOfUse = "second_step" | "step_up" | "sign_in";

/**
 * Options for using a passkey: for the second step (a session past its password), a step-up (a
 * signed-in session) or a sign-in with a passkey alone (no session).
 */
export async function passkeyChallengeFor(
  db: Database,
  session: ConsoleSession | null,
  purpose: PasskeyPurposeOfUse,
  rp: RelyingParty,
  at: Date,
): Promise<Ceremony<PublicKeyCredentialRequestOptionsJSON>> {
  if (purpose === "sign_in") return authenticationCeremony(db, rp, purpose, null, at);
  const stage = purpose === "second_step" ? "second_factor" : "done";
  if (!session || session.stage !== stage) {
    throw new DomainError("forbidden", "This sign-in has ended: sign in again.");
  }
  return authenticationCeremony(db, rp, purpose, { userId: session.userId, sessionId: session.id }, at);
}

export const passkeyAnswerInput = z.object({
  challengeId: z.string().min(1).max(40),
  response: z.string().min(1).max(40_000),
});

export type PasskeyResult =
  | { ok: true; userId: string }
  | { ok: false; reason: "invalid" }
  | { ok: false; reason: "throttled"; retryAfterSeconds: number }
  | { ok: false; reason: "sso_required" };

/**
 * A passkey as the session's second step or step-up, throttled as codes are: a refused answer
 * counts as a failed sign-in of the member's e-mail from this address.
 */
export async function provePasskey(
  db: Database,
  session: ConsoleSession,
  purpose: "second_step" | "step_up",
  input: z.input<typeof passkeyAnswerInput> & { address: string },
  rp: RelyingParty,
  at: Date,
): Promise<PasskeyResult> {
  const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, session.userId));
  const answer = passkeyAnswerInput.safeParse(input);
  if (!user || !answer.success) return { ok: false, reason: "invalid" };
  const wait = await throttleWait(db, user.email, input.address, at);
  if (wait > 0) return { ok: false, reason: "throttled", retryAfterSeconds: wait };
  const holder = { userId: session.userId, sessionId: session.id };
  const used = await verifyAuthentication(db, rp, purpose, holder, answer.data, at);
  if (!used) {
    await recordFailure(db, user.email, input.address, at);
    return { ok: false, reason: "invalid" };
  }
  await markSecondFactor(db, session.id, at);
  return { ok: true, userId: used.userId };
}

// Failures of passkeys alone count under no e-mail (there is none): per address, as guesses at many e-mails do.
const NO_EMAIL = "";

/**
 * A sign-in with a passkey alone: a discoverable passkey names its member, and (the authenticator
 * having verified the user) stands for both the password and the second factor, unless the
 * member's organisation requires its single sign-on. Recorded in the audit log as a password
 * sign-in is, saying how.
 */
export async function signInWithPasskey(
  db: Database,
  input: { challengeId: string; response: string; address: string },
  rp: RelyingParty,
  at: Date,
): Promise<PasskeyResult> {
  const answer = passkeyAnswerInput.safeParse(input);
  if (!answer.success) return { ok: false, reason: "invalid" };
  const wait = await throttleWait(db, NO_EMAIL, input.address, at);
  if (wait > 0) return { ok: false, reason: "throttled", retryAfterSeconds: wait };
  const used = await verifyAuthentication(db, rp, "sign_in", null, answer.data, at);
  if (!used) {
    await recordFailure(db, NO_EMAIL, input.address, at);
    return { ok: false, reason: "invalid" };
  }
  // "Require SSO" is the organisation's: a passkey does not get round it any more than a password does.
  if (await ssoRequiredFor(db, used.userId)) return { ok: false, reason: "sso_required" };
  const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, used.userId));
  const label = user?.email ?? used.userId;
  const details = { by: "passkey", passkey: used.name };
  const [operator] = await db.select().from(operators).where(eq(operators.userId, used.userId));
  if (operator) {
    await recordAudit(db, {
      orgId: null,
      actor: { userId: used.userId, label, operator: true },
      action: "operator.signed_in",
      target: used.userId,
      details,
    });
  }
  const orgs = await db
    .select({ orgId: memberships.orgId })
    .from(memberships)
    .where(eq(memberships.userId, used.userId));
  for (const { orgId } of orgs) {
    await recordAudit(db, {
      orgId,
      actor: { userId: used.userId, label },
      action: "user.signed_in",
      target: used.userId,
      details,
    });
  }
  return { ok: true, userId: used.userId };
}
