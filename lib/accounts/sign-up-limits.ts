import "#server-only";
import { and, count, eq, gt, lt } from "drizzle-orm";
import type { Database } from "../db/index.ts";
import { signUpAttempts } from "../db/schema/index.ts";
import { DomainError } from "../errors.ts";
import { clientNetwork } from "../http/client-address.ts";

/**
 * Sign-ups allowed within the window: per client network (an IPv6 /64), and for everyone together,
 * so that many addresses cannot make organisations, and password hashes, without end.
 */
export const SIGN_UP_LIMITS = { perNetwork: 20, overall: 300, windowSeconds: 60 * 60 } as const;

/**
 * Admits one sign-up attempt from `address` or refuses it (throttled). Every admitted attempt
 * counts, whatever becomes of it. The counts are read before the attempt is written, so parallel
 * attempts may overshoot a limit by the number in flight.
 */
export async function admitSignUp(db: Database, address: string, at: Date): Promise<void> {
  const network = clientNetwork(address.slice(0, 100)) || "unknown";
  const since = new Date(at.getTime() - SIGN_UP_LIMITS.windowSeconds * 1000);
  const recent = (where = gt(signUpAttempts.at, since)) =>
    db
      .select({ n: count() })
      .from(signUpAttempts)
      .where(where)
      .then(([row]) => row?.n ?? 0);
  if (
    (await recent(and(eq(signUpAttempts.address, network), gt(signUpAttempts.at, since)))) >= SIGN_UP_LIMITS.perNetwork
  )
    throw new DomainError("throttled", "Too many sign-ups from your network: try again in an hour.");
  if ((await recent()) >= SIGN_UP_LIMITS.overall)
    throw new DomainError("throttled", "Too many sign-ups right now: try again in an hour.");
  await db.transaction(async (tx) => {
    await tx.insert(signUpAttempts).values({ address: network, at });
    // Old attempts no longer count; dropping them here keeps the table the size of one window.
    await tx.delete(signUpAttempts).where(lt(signUpAttempts.at, since));
  });
}
