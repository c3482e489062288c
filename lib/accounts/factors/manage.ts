import "#server-only";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { recordAudit } from "../audit.ts";
import { requireAdmin } from "../../console/access.ts";
import type { Database } from "../../db/index.ts";
import {
  memberships,
  organisations,
  SECOND_FACTOR_POLICIES,
  users,
  type SecondFactorPolicy,
} from "../../db/schema/index.ts";
import { DomainError } from "../../errors.ts";
import type { OperatorAccess } from "../operators.ts";
import { auditEverywhere, markSecondFactor, secondFactorRequired, type ConsoleSession } from "./gate.ts";
import { factorLabel, raiseSecurityNotice } from "./notices.ts";
import { requireStepUp } from "./step-up.ts";
import {
  confirmTotpEnrolment,
  hasSecondFactor,
  listFactors,
  recoveryCodesLeft,
  removeAllFactors,
  removeFactor,
  replaceRecoveryCodes,
  startTotpEnrolment,
  type Factor,
  type TotpEnrolment,
} from "./store.ts";

// A member's own second factors, as /console/security changes them, and an organisation's policy.
// Each takes the session (from the cookie, read from the database) rather than a user id: what
// may be done depends on how far its sign-in got and how recent its last second factor is.

const SESSION_ENDED = "Your session has ended: sign in again.";

/** The session's user, when the session has got as far as one of `stages`. */
export async function sessionUser(db: Database, session: ConsoleSession | null, stages: ConsoleSession["stage"][]) {
  if (!session || !stages.includes(session.stage)) throw new DomainError("forbidden", SESSION_ENDED);
  const [user] = await db.select({ id: users.id, email: users.email }).from(users).where(eq(users.id, session.userId));
  if (!user) throw new DomainError("forbidden", SESSION_ENDED);
  return { session, user };
}

/**
 * The session's user, when it may add a factor now: signed in, or held at sign-in to enrol one. A
 * member who has a factor proves it recently first: a session left open must not add a factor of
 * its own and then pass every step-up with it.
 */
export async function enrolmentSession(db: Database, session: ConsoleSession | null, at: Date) {
  const found = await sessionUser(db, session, ["done", "enrol"]);
  if (found.session.stage === "done" && (await hasSecondFactor(db, found.user.id))) {
    await requireStepUp(db, found.user.id, found.session.id, at);
  }
  return found;
}

export type SecurityOverview = {
  factors: Factor[];
  recoveryCodesLeft: number;
  required: boolean;
};

export async function securityOverview(db: Database, userId: string): Promise<SecurityOverview> {
  return {
    factors: await listFactors(db, userId),
    recoveryCodesLeft: await recoveryCodesLeft(db, userId),
    required: await secondFactorRequired(db, userId),
  };
}

/** Starts adding an authenticator app: from /console/security, or at sign-in when one is required. */
export async function beginTotp(
  db: Database,
  session: ConsoleSession | null,
  key: Buffer,
  at: Date,
): Promise<TotpEnrolment> {
  const { user } = await enrolmentSession(db, session, at);
  return startTotpEnrolment(db, user, key);
}

export const confirmTotpInput = z.object({
  factorId: z.string().min(1).max(40),
  code: z.string().trim().min(1, "Enter the six-digit code your app shows.").max(20),
  name: z.string().trim().max(60).default("Authenticator app"),
});

/**
 * Confirms an authenticator app with a code from it. The code proves the second factor, so the
 * session counts as past it (and a session held at enrolment is signed in). Returns the new
 * recovery codes when these are the member's first.
 */
export async function finishTotp(
  db: Database,
  session: ConsoleSession | null,
  input: z.input<typeof confirmTotpInput>,
  key: Buffer,
  at: Date,
): Promise<{ recoveryCodes: string[] | null }> {
  const { user } = await sessionUser(db, session, ["done", "enrol"]);
  const parsed = confirmTotpInput.parse(input);
  const name = parsed.name || "Authenticator app";
  const { factor, recoveryCodes } = await confirmTotpEnrolment(db, user.id, { ...parsed, name }, key, at);
  await markSecondFactor(db, session!.id, at);
  await auditEverywhere(db, user.id, user.email, "factor.added", { kind: factor.kind, name: factor.name }, factor.id);
  await raiseSecurityNotice(db, { userId: user.id, email: user.email }, { kind: "factor_added", factor: factor.name });
  return { recoveryCodes };
}

export const factorInput = z.object({ factorId: z.string().min(1).max(40) });

/** Removes one of the member's own factors; asks for a recent second factor first. */
export async function removeOwnFactor(
  db: Database,
  session: ConsoleSession | null,
  input: z.input<typeof factorInput>,
  at: Date,
): Promise<void> {
  const { user } = await sessionUser(db, session, ["done"]);
  const { factorId } = factorInput.parse(input);
  await requireStepUp(db, user.id, session!.id, at);
  const factors = await listFactors(db, user.id);
  if (factors.length === 1 && factors[0]!.id === factorId && (await secondFactorRequired(db, user.id))) {
    throw new DomainError("conflict", "A second factor is required of you: add another before removing your last one.");
  }
  const removed = await removeFactor(db, user.id, factorId);
  await auditEverywhere(
    db,
    user.id,
    user.email,
    "factor.removed",
    { kind: removed.kind, name: removed.name },
    removed.id,
  );
  await raiseSecurityNotice(
    db,
    { userId: user.id, email: user.email },
    { kind: "factor_removed", factor: factorLabel(removed) },
  );
}

/** A new set of recovery codes, shown once; asks for a recent second factor first. */
export async function regenerateRecoveryCodes(
  db: Database,
  session: ConsoleSession | null,
  at: Date,
): Promise<{ recoveryCodes: string[] }> {
  const { user } = await sessionUser(db, session, ["done"]);
  if (!(await hasSecondFactor(db, user.id))) {
    throw new DomainError("conflict", "Add a passkey or an authenticator app first: recovery codes stand in for it.");
  }
  await requireStepUp(db, user.id, session!.id, at);
  const codes = await replaceRecoveryCodes(db, user.id);
  await auditEverywhere(db, user.id, user.email, "factor.recovery_codes_replaced", {});
  await raiseSecurityNotice(db, { userId: user.id, email: user.email }, { kind: "recovery_codes_replaced" });
  return { recoveryCodes: codes };
}

/** A step-up on its own: the code is checked by proveSecondFactor; this records it. */
export async function recordStepUp(db: Database, session: ConsoleSession, method: string): Promise<void> {
  const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, session.userId));
  await auditEverywhere(db, session.userId, user?.email ?? session.userId, "factor.step_up", { method });
}

export const policyInput = z.object({
  policy: z.enum(SECOND_FACTOR_POLICIES, { message: "Choose who must use a second factor." }),
});

/** An admin sets who of the organisation must use a second factor; a step-up first. */
export async function setSecondFactorPolicy(
  db: Database,
  session: ConsoleSession | null,
  input: z.input<typeof policyInput>,
  at: Date,
): Promise<SecondFactorPolicy> {
  const access = await requireAdmin(db, session?.stage === "done" ? session.userId : null);
  const { policy } = policyInput.parse(input);
  await requireStepUp(db, access.user.id, session!.id, at);
  if (policy !== "none" && !(await hasSecondFactor(db, access.user.id))) {
    throw new DomainError("conflict", "Add a second factor to your own account first, on this page.");
  }
  const previous = access.organisation.secondFactorPolicy;
  if (previous === policy) return policy;
  await db.transaction(async (tx) => {
    await tx
      .update(organisations)
      .set({ secondFactorPolicy: policy })
      .where(eq(organisations.id, access.organisation.id));
    await recordAudit(tx, {
      orgId: access.organisation.id,
      actor: access.actor,
      action: "organisation.second_factor_policy_set",
      details: { from: previous, to: policy },
    });
  });
  return policy;
}

/** An operator removes every second factor of a member who lost them (the member enrols anew). */
export async function resetFactorsByOperator(
  db: Database,
  operator: OperatorAccess,
  input: { userId: string },
): Promise<number> {
  const { userId } = z.object({ userId: z.string().min(1).max(40) }).parse(input);
  const [user] = await db.select({ id: users.id, email: users.email }).from(users).where(eq(users.id, userId));
  if (!user) throw new DomainError("not_found", "No such member.");
  if (user.id === operator.user.id) {
    throw new DomainError("forbidden", "Another operator must reset your own sign-in methods.");
  }
  const removed = await removeAllFactors(db, user.id);
  // In the member's organisation's log, and (the actor being an operator) the operators' log.
  const orgs = await db.select({ orgId: memberships.orgId }).from(memberships).where(eq(memberships.userId, user.id));
  for (const orgId of orgs.length ? orgs.map((row) => row.orgId) : [null]) {
    await recordAudit(db, {
      orgId,
      actor: operator.actor,
      action: "factor.reset_by_operator",
      target: user.id,
      details: { removed, email: user.email },
    });
  }
  await raiseSecurityNotice(db, { userId: user.id, email: user.email }, { kind: "factors_reset_by_operator" });
  return removed;
}
