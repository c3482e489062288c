import "#server-only";
import { z } from "zod";
import { and, desc, eq, lt, type SQL } from "drizzle-orm";
import type { Database } from "../db/index.ts";
import { auditLog } from "../db/schema/index.ts";

/**
 * Who acts: a signed-in member or operator, or the operator through the CLI, or the seed.
 * `operator`: the entry belongs to the operators' own log too.
 */
export type Actor = { userId: string | null; label: string; operator?: boolean };

export const OPERATOR: Actor = { userId: null, label: "operator (cli)", operator: true };
export const SEED: Actor = { userId: null, label: "seed" };

export type AuditAction =
  | "organisation.created"
  | "member.added"
  | "member.invited"
  | "member.role_changed"
  | "member.removed"
  | "invitation.revoked"
  | "user.signed_in"
  | "user.signed_out"
  | "licence.set"
  | "licence.verified"
  | "licence.rejected"
  | "licence.revoked"
  | "plan.set"
  | "plan.requested"
  | "plan.approved"
  | "plan.declined"
  | "key.created"
  | "key.revoked"
  | "key.updated"
  | "key.rolled"
  | "user.password_reset"
  | "webhook.created"
  | "webhook.secret_rotated"
  | "webhook.disabled"
  | "webhook.auto_disabled"
  | "webhook.enabled"
  | "webhook.test_sent"
  | "webhook.redelivered"
  | "usage.thresholds_set"
  | "operator.added"
  | "operator.removed"
  | "operator.signed_in"
  | "operator.signed_out"
  | "operator.viewed_organisation"
  | "mail.resent"
  | "incident.opened"
  | "incident.updated"
  | "factor.added"
  | "factor.removed"
  | "factor.recovery_code_used"
  | "factor.recovery_codes_replaced"
  | "factor.step_up"
  | "factor.reset_by_operator"
  | "organisation.second_factor_policy_set"
  | "sso.configured"
  | "sso.domain_added"
  | "sso.domain_removed"
  | "sso.domain_verified";

export async function recordAudit(
  db: Database,
  entry: {
    orgId: string | null;
    actor: Actor;
    action: AuditAction;
    target?: string;
    details?: Record<string, unknown>;
  },
): Promise<void> {
  await db.insert(auditLog).values({
    orgId: entry.orgId,
    actorUserId: entry.actor.userId,
    actor: entry.actor.label,
    action: entry.action,
    target: entry.target ?? null,
    details: entry.details ?? {},
    operator: entry.actor.operator === true,
  });
}

export type AuditEntry = typeof auditLog.$inferSelect;

/**
 * The audit page's `before`: the id of the last entry of the previous page, a positive whole
 * number within what an id can be (a bigint column read as a JavaScript number).
 */
export const auditBefore = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/** The organisation's log, newest first, a page at a time (`before`: the last id of the previous page). */
export function listAudit(
  db: Database,
  orgId: string,
  options: { limit: number; before?: number },
): Promise<AuditEntry[]> {
  return auditPage(db, eq(auditLog.orgId, orgId), options);
}

/** The operators' actions across organisations, newest first, a page at a time. */
export function listOperatorAudit(db: Database, options: { limit: number; before?: number }): Promise<AuditEntry[]> {
  return auditPage(db, eq(auditLog.operator, true), options);
}

function auditPage(db: Database, scope: SQL, options: { limit: number; before?: number }): Promise<AuditEntry[]> {
  return db
    .select()
    .from(auditLog)
    .where(options.before ? and(scope, lt(auditLog.id, options.before)) : scope)
    .orderBy(desc(auditLog.id))
    .limit(options.limit);
}
