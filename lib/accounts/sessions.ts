import "#server-only";
import { eq } from "drizzle-orm";
import type { Database } from "../db/index.ts";
import { users } from "../db/schema/index.ts";
import { publish, sessionRevocations, type ChangeBus, type SessionRevocation } from "../bus/index.ts";

// A console session is a signed cookie that carries the user's id and when they signed in. The
// cookie alone cannot be taken back, so every use of it is checked here against the user's row:
// a sign-out, a password reset or the member's removal ends every session signed in before it.

export const SESSION_LIFETIME = {
  /** A session not used for this long ends (next-auth's own expiry, renewed on each use). */
  idleSeconds: 8 * 60 * 60,
  /** However much it is used, a session ends this long after its sign-in. */
  absoluteSeconds: 12 * 60 * 60,
} as const;

/** When a session signed in at `signedInAt` (milliseconds) ends whatever happens. */
export function sessionEndsAt(signedInAt: number): Date {
  return new Date(signedInAt + SESSION_LIFETIME.absoluteSeconds * 1000);
}

/**
 * Whether the session of `userId`, signed in at `signedInAt` (milliseconds since the epoch, from
 * the cookie), may still be used at `at`: within its absolute lifetime, its user still there, and
 * signed in after the user's sessions were last revoked.
 */
export async function sessionActive(db: Database, userId: string, signedInAt: unknown, at: Date): Promise<boolean> {
  if (typeof signedInAt !== "number" || !Number.isFinite(signedInAt)) return false;
  if (signedInAt > at.getTime() || sessionEndsAt(signedInAt) <= at) return false;
  const [user] = await db
    .select({ validAfter: users.sessionsValidAfter })
    .from(users)
    .where(eq(users.id, userId))
    .limit(1);
  if (!user) return false;
  return !user.validAfter || signedInAt >= user.validAfter.getTime();
}

/** Ends every session of the user signed in before `at` (a sign-out ends them on every device). */
export async function revokeSessions(db: Database, userId: string, at: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.update(users).set({ sessionsValidAfter: at }).where(eq(users.id, userId));
    await notifySessionsRevoked(tx, userId);
  });
}

/**
 * Tells every instance, when and only if the transaction commits, that the user's sessions were
 * revoked: what an instance holds open for them (a board's streams) ends, and it reads the
 * sessions again.
 */
export function notifySessionsRevoked(tx: Database, userId: string): Promise<void> {
  return publish(tx, sessionRevocations, { userId });
}

/**
 * The revocations of sessions announced on the change bus, to whoever holds sessions open; null
 * after a resync: notices sent while the bus was away are lost, so any session may have been.
 */
export class SessionRevocations {
  private readonly listeners = new Set<(revocation: SessionRevocation | null) => void>();

  onRevoked(listener: (revocation: SessionRevocation | null) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  follow(bus: ChangeBus): Promise<() => void> {
    return bus.follow(sessionRevocations, (revocation) => {
      for (const listener of this.listeners) listener(revocation);
    });
  }
}
