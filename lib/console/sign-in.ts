import { and, count, desc, eq, gt, lt } from "drizzle-orm";
import { hashPassword, verifyPassword } from "../auth/password.ts";
import { recordAudit } from "../audit.ts";
import type { Database } from "../db/index.ts";
import { memberships, signInFailures } from "../db/schema/index.ts";
import { findUserByEmail } from "../users.ts";

/** Failures allowed within the window before further attempts are refused unheard. */
export const SIGN_IN_LIMITS = { perEmail: 5, perAddress: 20, windowSeconds: 15 * 60 } as const;

export type SignInResult =
  | { ok: true; userId: string }
  | { ok: false; reason: "invalid" }
  | { ok: false; reason: "throttled"; retryAfterSeconds: number };

// Checked against when the e-mail is unknown, so an unknown address takes as long as a wrong password.
let decoyHash: Promise<string> | undefined;

/**
 * Seconds until the `limit`-th most recent failure leaves the window, or 0 when fewer than
 * `limit` failures are in it.
 */
async function waitFor(
  db: Database,
  column: typeof signInFailures.email | typeof signInFailures.address,
  value: string,
  limit: number,
  at: Date,
): Promise<number> {
  const since = new Date(at.getTime() - SIGN_IN_LIMITS.windowSeconds * 1000);
  const recent = await db
    .select({ at: signInFailures.at })
    .from(signInFailures)
    .where(and(eq(column, value), gt(signInFailures.at, since)))
    .orderBy(desc(signInFailures.at))
    .limit(limit);
  if (recent.length < limit) return 0;
  const leaves = recent[limit - 1]!.at.getTime() + SIGN_IN_LIMITS.windowSeconds * 1000;
  return Math.max(1, Math.ceil((leaves - at.getTime()) / 1000));
}

/** Recent failures for an e-mail address (the tests and the sign-in page use it). */
export async function recentFailures(db: Database, address: string, at: Date): Promise<number> {
  const email = address.trim().toLowerCase();
  const since = new Date(at.getTime() - SIGN_IN_LIMITS.windowSeconds * 1000);
  const [row] = await db
    .select({ n: count() })
    .from(signInFailures)
    .where(and(eq(signInFailures.email, email), gt(signInFailures.at, since)));
  return row?.n ?? 0;
}

/**
 * Checks an e-mail and password. Refuses without checking the password once the e-mail or the
 * client's address has too many recent failures, so guessing is slow whichever one an attacker varies.
 * The count is read before the failure is written, so a burst of parallel guesses may overshoot the
 * limit by the number in flight; each of them still costs a full scrypt.
 */
export async function signInWithPassword(
  db: Database,
  input: { email: string; password: string; address: string },
  at: Date,
): Promise<SignInResult> {
  const email = input.email.trim().toLowerCase().slice(0, 254);
  const address = input.address.slice(0, 100) || "unknown";
  const wait = Math.max(
    await waitFor(db, signInFailures.email, email, SIGN_IN_LIMITS.perEmail, at),
    await waitFor(db, signInFailures.address, address, SIGN_IN_LIMITS.perAddress, at),
  );
  if (wait > 0) return { ok: false, reason: "throttled", retryAfterSeconds: wait };

  const user = email.includes("@") ? await findUserByEmail(db, email).catch(() => undefined) : undefined;
  decoyHash ??= hashPassword("decoy password that matches nothing");
  const valid = await verifyPassword(input.password, user?.passwordHash ?? (await decoyHash));
  if (!user || !valid) {
    await db.transaction(async (tx) => {
      await tx.insert(signInFailures).values({ email, address, at });
      // Old failures no longer count; dropping them here keeps the table the size of one window.
      await tx
        .delete(signInFailures)
        .where(lt(signInFailures.at, new Date(at.getTime() - SIGN_IN_LIMITS.windowSeconds * 1000)));
    });
    return { ok: false, reason: "invalid" };
  }

  await db.transaction(async (tx) => {
    // A success clears the e-mail's failures (not the address's: one account must not unlock guessing at others).
    await tx.delete(signInFailures).where(eq(signInFailures.email, email));
    const orgs = await tx.select({ orgId: memberships.orgId }).from(memberships).where(eq(memberships.userId, user.id));
    for (const { orgId } of orgs) {
      await recordAudit(tx, {
        orgId,
        actor: { userId: user.id, label: user.email },
        action: "user.signed_in",
        target: user.id,
        details: { address },
      });
    }
  });
  return { ok: true, userId: user.id };
}

/**
 * The client's address: the peer of the connection, or with `trustedHops` load balancers in front,
 * the address the outermost of them saw. server.ts puts the peer at the end of X-Forwarded-For.
 */
export function clientAddress(forwardedFor: string | null | undefined, trustedHops: number): string {
  const chain = (forwardedFor ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  return chain[Math.max(0, chain.length - 1 - trustedHops)] ?? "unknown";
}
