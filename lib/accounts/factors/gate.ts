import "#server-only";
import { and, eq, lt } from "drizzle-orm";
import { recordAudit } from "../audit.ts";
import type { Database } from "../../db/index.ts";
import {
  memberships,
  operators,
  organisations,
  signInSessions,
  users,
  type SignInStage,
} from "../../db/schema/index.ts";
import { newId } from "../../ids.ts";
import { SESSION_LIFETIME } from "../sessions.ts";
import { recordFailure, throttleWait } from "../sign-in.ts";
import { ssoAdminNeedsFactor } from "../sso/policy.ts";
import { policyRequires } from "./policy.ts";
import { checkCode, hasSecondFactor } from "./store.ts";

// The second step of signing in. A password opens a session at the stage its member needs next:
// the second factor, or enrolment when a policy (or being an operator) asks for one they lack.
// Until it is done the session is good for nothing else (sessionUserId answers no one) and it
// ends after SECOND_STEP_SECONDS.

export const SECOND_STEP_SECONDS = 10 * 60;

export type ConsoleSession = { id: string; userId: string; stage: SignInStage; secondFactorAt: Date | null };

/** Whether the user must have a second factor: operators always, members by their organisation's policy. */
export async function secondFactorRequired(db: Database, userId: string): Promise<boolean> {
  const [operator] = await db.select().from(operators).where(eq(operators.userId, userId));
  if (operator) return true;
  const rows = await db
    .select({ role: memberships.role, policy: organisations.secondFactorPolicy })
    .from(memberships)
    .innerJoin(organisations, eq(organisations.id, memberships.orgId))
    .where(eq(memberships.userId, userId));
  // An admin who keeps a password where "require SSO" is on needs a second factor with it.
  return rows.some((row) => policyRequires(row.policy, row.role)) || (await ssoAdminNeedsFactor(db, userId));
}

/** Where a user who has just given the right password goes next. */
export async function stageAfterPassword(db: Database, userId: string): Promise<SignInStage> {
  if (await hasSecondFactor(db, userId)) return "second_factor";
  return (await secondFactorRequired(db, userId)) ? "enrol" : "done";
}

/**
 * Opens a session after the password (or a mailed link); old session rows go. A passkey alone
 * (`bothFactors`) proves both steps at once: its session is signed in and past its second factor.
 */
export async function openSession(
  db: Database,
  userId: string,
  at: Date,
  { bothFactors = false }: { bothFactors?: boolean } = {},
): Promise<ConsoleSession> {
  const stage = bothFactors ? "done" : await stageAfterPassword(db, userId);
  const secondFactorAt = bothFactors ? at : null;
  const session: ConsoleSession = { id: newId("ses"), userId, stage, secondFactorAt };
  await db.transaction(async (tx) => {
    await tx
      .delete(signInSessions)
      .where(lt(signInSessions.createdAt, new Date(at.getTime() - SESSION_LIFETIME.absoluteSeconds * 1000)));
    await tx.insert(signInSessions).values({ id: session.id, userId, stage, secondFactorAt, createdAt: at });
  });
  return session;
}

/** The session the cookie names, or null: unknown, another user's, or a second step left too long. */
export async function readSession(
  db: Database,
  sessionId: unknown,
  userId: string,
  at: Date,
): Promise<ConsoleSession | null> {
  if (typeof sessionId !== "string") return null;
  const [row] = await db
    .select()
    .from(signInSessions)
    .where(and(eq(signInSessions.id, sessionId), eq(signInSessions.userId, userId)));
  if (!row) return null;
  if (row.stage !== "done" && at.getTime() - row.createdAt.getTime() > SECOND_STEP_SECONDS * 1000) return null;
  return { id: row.id, userId: row.userId, stage: row.stage, secondFactorAt: row.secondFactorAt };
}

/** Marks the session as past its second factor now (the second step, enrolment, or a step-up). */
export async function markSecondFactor(db: Database, sessionId: string, at: Date): Promise<void> {
  await db.update(signInSessions).set({ stage: "done", secondFactorAt: at }).where(eq(signInSessions.id, sessionId));
}

export type SecondStepResult =
  | { ok: true; method: "totp" | "recovery_code" }
  | { ok: false; reason: "invalid" }
  | { ok: false; reason: "throttled"; retryAfterSeconds: number };

/**
 * Checks a code for a session (the second step of signing in, or a step-up), throttled with the
 * password: a wrong code counts as a failed sign-in of the member's e-mail from this address.
 */
export async function proveSecondFactor(
  db: Database,
  session: ConsoleSession,
  input: { code: string; address: string },
  key: Buffer,
  at: Date,
): Promise<SecondStepResult> {
  const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, session.userId));
  if (!user) return { ok: false, reason: "invalid" };
  const wait = await throttleWait(db, user.email, input.address, at);
  if (wait > 0) return { ok: false, reason: "throttled", retryAfterSeconds: wait };
  const checked = await checkCode(db, session.userId, input.code.slice(0, 40), key, at);
  if (!checked.ok) {
    await recordFailure(db, user.email, input.address, at);
    return { ok: false, reason: "invalid" };
  }
  await markSecondFactor(db, session.id, at);
  if (checked.method === "recovery_code") {
    await auditEverywhere(db, session.userId, user.email, "factor.recovery_code_used", {});
  }
  return { ok: true, method: checked.method };
}

/** Records an entry in the log of each of the user's organisations, and the operators' log for an operator. */
export async function auditEverywhere(
  db: Database,
  userId: string,
  label: string,
  action: Parameters<typeof recordAudit>[1]["action"],
  details: Record<string, unknown>,
  target: string = userId,
): Promise<void> {
  const orgs = await db.select({ orgId: memberships.orgId }).from(memberships).where(eq(memberships.userId, userId));
  const [operator] = await db.select().from(operators).where(eq(operators.userId, userId));
  if (operator) {
    await recordAudit(db, { orgId: null, actor: { userId, label, operator: true }, action, target, details });
  }
  for (const { orgId } of orgs) {
    await recordAudit(db, { orgId, actor: { userId, label }, action, target, details });
  }
}
