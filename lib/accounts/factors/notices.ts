import "#server-only";
import type { Database } from "../../db/index.ts";

// Security notices to a member about their own account. Mail is built elsewhere: until it is
// connected, a notice is only the audit entry its caller writes beside it.

export type SecurityNotice =
  | { kind: "factor_added"; factor: string }
  | { kind: "factor_removed"; factor: string }
  | { kind: "recovery_codes_replaced" }
  | { kind: "factors_reset_by_operator" };

/**
 * Tells the member about a change to how they sign in. The one place the mail outbox is to be
 * connected (an e-mail to `to`, queued in the caller's transaction); it sends nothing yet.
 */
export async function raiseSecurityNotice(
  db: Database,
  to: { userId: string; email: string },
  notice: SecurityNotice,
): Promise<void> {
  void db;
  void to;
  void notice;
}
