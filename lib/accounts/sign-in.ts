import "#server-only";
import { and, count, desc, eq, gt, lt, type SQL } from "drizzle-orm";
import { hasSecondFactor } from "../accounts/factors/store.ts";
import { hashPassword, needsRehash, PASSWORD_MAX_LENGTH, verifyPassword } from "./auth/password.ts";
import { recordAudit } from "./audit.ts";
import type { Database } from "../db/index.ts";
import { memberships, operators, signInFailures, users } from "../db/schema/index.ts";
import { findUserByEmail } from "./users.ts";
import { ssoRequiredFor } from "./sso/policy.ts";
import { clientNetwork } from "../http/client-address.ts";

/**
 * Failures allowed within the window. One client guessing at one e-mail (`perEmailAndAddress`) or
 * at many (`perAddress`) is refused unheard once over its limit. Failures for one e-mail from
 * everywhere only slow its sign-ins down, by a delay that doubles with each failure past
 * `emailDelayAfter` up to `maxDelaySeconds`: refusing them would let anyone lock a chosen member out.
 */
export const SIGN_IN_LIMITS = {
  perEmailAndAddress: 5,
  perAddress: 20,
  emailDelayAfter: 5,
  maxDelaySeconds: 8,
  windowSeconds: 15 * 60,
} as const;

export type SignInResult =
  | { ok: true; userId: string }
  | { ok: false; reason: "invalid" }
  | { ok: false; reason: "sso_required" }
  | { ok: false; reason: "throttled"; retryAfterSeconds: number };

// Checked against when the e-mail is unknown, so an unknown address takes as long as a wrong password.
let decoyHash: Promise<string> | undefined;

const windowStart = (at: Date) => new Date(at.getTime() - SIGN_IN_LIMITS.windowSeconds * 1000);

/**
 * Seconds until the `limit`-th most recent failure matching `where` leaves the window, or 0 when
 * fewer than `limit` failures are in it.
 */
async function waitFor(db: Database, where: SQL | undefined, limit: number, at: Date): Promise<number> {
  const recent = await db
    .select({ at: signInFailures.at })
    .from(signInFailures)
    .where(and(where, gt(signInFailures.at, windowStart(at))))
    .orderBy(desc(signInFailures.at))
    .limit(limit);
  if (recent.length < limit) return 0;
  const leaves = recent[limit - 1]!.at.getTime() + SIGN_IN_LIMITS.windowSeconds * 1000;
  return Math.max(1, Math.ceil((leaves - at.getTime()) / 1000));
}

/** Recent failures for an e-mail address, from every client address. */
export async function recentFailures(db: Database, address: string, at: Date): Promise<number> {
  const email = address.trim().toLowerCase();
  const [row] = await db
    .select({ n: count() })
    .from(signInFailures)
    .where(and(eq(signInFailures.email, email), gt(signInFailures.at, windowStart(at))));
  return row?.n ?? 0;
}

/** How long a sign-in for an e-mail with `failures` recent failures waits before it is checked. */
export function emailDelaySeconds(failures: number): number {
  const past = failures - SIGN_IN_LIMITS.emailDelayAfter;
  return past < 0 ? 0 : Math.min(SIGN_IN_LIMITS.maxDelaySeconds, 2 ** past);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The address as failures are counted: its network, bounded. */
const counted = (address: string) => clientNetwork(address.slice(0, 100)) || "unknown";

/**
 * Seconds this client must wait before trying `email` again (0: it may try now): too many recent
 * failures for this e-mail from here, or for any e-mail from here. The password and the second
 * step count together.
 */
export async function throttleWait(db: Database, email: string, address: string, at: Date): Promise<number> {
  const network = counted(address);
  return Math.max(
    await waitFor(
      db,
      and(eq(signInFailures.email, email), eq(signInFailures.address, network)),
      SIGN_IN_LIMITS.perEmailAndAddress,
      at,
    ),
    await waitFor(db, eq(signInFailures.address, network), SIGN_IN_LIMITS.perAddress, at),
  );
}

/** Counts a failed attempt (a wrong password or a wrong second-step code) against the e-mail and address. */
export async function recordFailure(db: Database, email: string, address: string, at: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.insert(signInFailures).values({ email, address: counted(address), at });
    // Old failures no longer count; dropping them here keeps the table the size of one window.
    await tx.delete(signInFailures).where(lt(signInFailures.at, windowStart(at)));
  });
}

/**
 * Checks an e-mail and password. Refuses without checking the password once this client has too
 * many recent failures for this e-mail or for any, so guessing is slow whichever one an attacker
 * varies; an e-mail's failures from elsewhere only delay the answer. The counts are read before
 * the failure is written, so a burst of parallel guesses may overshoot a limit by the number in
 * flight; each of them still costs a full scrypt. `pause` waits the delay (tests pass their own).
 */
export async function signInWithPassword(
  db: Database,
  input: { email: string; password: string; address: string },
  at: Date,
  { pause = sleep }: { pause?: (ms: number) => Promise<void> } = {},
): Promise<SignInResult> {
  const email = input.email.trim().toLowerCase().slice(0, 254);
  const address = counted(input.address);
  const wait = await throttleWait(db, email, address, at);
  if (wait > 0) return { ok: false, reason: "throttled", retryAfterSeconds: wait };
  const delay = emailDelaySeconds(await recentFailures(db, email, at));
  if (delay > 0) await pause(delay * 1000);

  // An over-long password is wrong without being hashed: the cap is what makes each attempt cheap.
  const tooLong = input.password.length > PASSWORD_MAX_LENGTH;
  const user = email.includes("@") && !tooLong ? await findUserByEmail(db, email).catch(() => undefined) : undefined;
  decoyHash ??= hashPassword("decoy password that matches nothing");
  const valid = !tooLong && (await verifyPassword(input.password, user?.passwordHash ?? (await decoyHash)));
  if (!user || !valid) {
    await recordFailure(db, email, address, at);
    return { ok: false, reason: "invalid" };
  }

  // The right password, but the organisation signs this member in through its provider only.
  if (await ssoRequiredFor(db, user.id)) return { ok: false, reason: "sso_required" };

  // Hashed before the transaction, which must not hold the database for a hash's time.
  const rehashed = needsRehash(user.passwordHash) ? await hashPassword(input.password) : null;
  await db.transaction(async (tx) => {
    // A success clears the e-mail's failures (not the address's: one account must not unlock guessing at others),
    // unless a second step follows: its wrong codes must keep counting for whoever knows the password.
    if (!(await hasSecondFactor(tx, user.id))) await tx.delete(signInFailures).where(eq(signInFailures.email, email));
    if (rehashed) await tx.update(users).set({ passwordHash: rehashed }).where(eq(users.id, user.id));
    const orgs = await tx.select({ orgId: memberships.orgId }).from(memberships).where(eq(memberships.userId, user.id));
    const [operator] = await tx.select().from(operators).where(eq(operators.userId, user.id));
    if (operator) {
      await recordAudit(tx, {
        orgId: null,
        actor: { userId: user.id, label: user.email, operator: true },
        action: "operator.signed_in",
        target: user.id,
        details: { address },
      });
    }
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
