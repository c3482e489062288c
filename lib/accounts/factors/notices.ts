import "#server-only";
import { now } from "../../clock.ts";
import type { Database } from "../../db/index.ts";
import { MAIL_ORIGIN } from "../mail/links.ts";
import { factorChangedNotice, factorsReplacedNotice } from "../mail/notices.ts";

// Security notices to a member about their own account, mailed whatever their alert settings.

export type SecurityNotice =
  | { kind: "factor_added"; factor: string }
  | { kind: "factor_removed"; factor: string }
  | { kind: "recovery_codes_replaced" }
  | { kind: "factors_reset_by_operator" };

/** How a notice names a factor: a passkey by its kind and name, an authenticator app by its name as before. Pure. */
export function factorLabel(factor: { kind: "totp" | "passkey"; name: string }): string {
  return factor.kind === "passkey" ? `The passkey “${factor.name}”` : factor.name;
}

/** Tells the member about a change to how they sign in: a mail queued in the caller's transaction. */
export async function raiseSecurityNotice(
  db: Database,
  to: { userId: string; email: string },
  notice: SecurityNotice,
  at: Date = now(),
): Promise<void> {
  // Queued off a request's origin: the mail worker fills in the service's address.
  const context = { at, origin: MAIL_ORIGIN };
  if (notice.kind === "factor_added" || notice.kind === "factor_removed") {
    const change = notice.kind === "factor_added" ? "added" : "removed";
    await factorChangedNotice(db, to, { change, factor: notice.factor }, context);
  } else {
    await factorsReplacedNotice(db, to, notice.kind, context);
  }
}
