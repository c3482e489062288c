import type { Database } from "./db/index.ts";
import { auditLog } from "./db/schema/index.ts";

/** Who acts: a signed-in user, or the operator through the CLI, or the seed. */
export type Actor = { userId: string | null; label: string };

export const OPERATOR: Actor = { userId: null, label: "operator (cli)" };
export const SEED: Actor = { userId: null, label: "seed" };

export type AuditAction =
  | "organisation.created"
  | "member.added"
  | "licence.set"
  | "plan.set"
  | "key.created"
  | "key.revoked"
  | "user.password_reset";

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
  });
}
