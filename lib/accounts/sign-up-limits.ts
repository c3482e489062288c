import "#server-only";
import { and, count, eq, gt, lt } from "drizzle-orm";
import type { Database } from "../db/index.ts";
import { invitationAttempts, signUpAttempts } from "../db/schema/index.ts";
import { DomainError } from "../errors.ts";
import { clientNetwork } from "../http/client-address.ts";

/**
 * Sign-ups allowed within the window: per client network (an IPv6 /64), refused beyond it; and for
 * everyone together, beyond which each sign-up is slowed down (never refused), so that many
 * addresses cannot make organisations, and password hashes, without end, nor lock everyone else
 * out. Only attempts whose form is valid are counted: an invalid one costs no hash.
 */
export const SIGN_UP_LIMITS = {
  perNetwork: 20,
  overall: 300,
  windowSeconds: 60 * 60,
  /** Over the overall ceiling, each sign-up waits this long per `overall` attempts beyond it… */
  slowDownMs: 2_000,
  /** …and at most this long. */
  slowDownMaxMs: 20_000,
} as const;

/** Accepts of invitations allowed per client network within the window. */
export const INVITATION_LIMITS = { perNetwork: 20, windowSeconds: 60 * 60 } as const;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** How long a sign-up waits when `recent` valid attempts were made in the window by everyone. */
export function signUpDelayMs(recent: number): number {
  if (recent < SIGN_UP_LIMITS.overall) return 0;
  const beyond = Math.floor((recent - SIGN_UP_LIMITS.overall) / SIGN_UP_LIMITS.overall) + 1;
  return Math.min(SIGN_UP_LIMITS.slowDownMaxMs, beyond * SIGN_UP_LIMITS.slowDownMs);
}

/**
 * Admits one valid sign-up attempt from `address`, refuses it (throttled: its network made too
 * many), or admits it after a wait (everyone together made too many). Call it once the form is
 * known to be valid. The counts are read before the attempt is written, so parallel attempts may
 * overshoot a limit by the number in flight. `wait` is for tests.
 */
export async function admitSignUp(
  db: Database,
  address: string,
  at: Date,
  wait: (ms: number) => Promise<void> = sleep,
): Promise<void> {
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
  await db.transaction(async (tx) => {
    await tx.insert(signUpAttempts).values({ address: network, at });
    // Old attempts no longer count; dropping them here keeps the table the size of one window.
    await tx.delete(signUpAttempts).where(lt(signUpAttempts.at, since));
  });
  // Written before the wait, so that a flood's own attempts slow it down too.
  const delay = signUpDelayMs((await recent()) - 1);
  if (delay > 0) await wait(delay);
}

/**
 * Admits one accept of an invitation from `address` or refuses it (throttled). Counted before the
 * token is looked up, so that guessing tokens is limited as well as hashing through a valid one.
 */
export async function admitInvitationAccept(db: Database, address: string, at: Date): Promise<void> {
  const network = clientNetwork(address.slice(0, 100)) || "unknown";
  const since = new Date(at.getTime() - INVITATION_LIMITS.windowSeconds * 1000);
  const [row] = await db
    .select({ n: count() })
    .from(invitationAttempts)
    .where(and(eq(invitationAttempts.address, network), gt(invitationAttempts.at, since)));
  if ((row?.n ?? 0) >= INVITATION_LIMITS.perNetwork) {
    throw new DomainError(
      "throttled",
      "Too many attempts to accept invitations from your network: try again in an hour.",
    );
  }
  await db.transaction(async (tx) => {
    await tx.insert(invitationAttempts).values({ address: network, at });
    await tx.delete(invitationAttempts).where(lt(invitationAttempts.at, since));
  });
}
