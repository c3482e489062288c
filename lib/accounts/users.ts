import { eq } from "drizzle-orm";
import { z } from "zod";
import { hashPassword } from "./auth/password.ts";
import { recordAudit, type Actor } from "./audit.ts";
import { now } from "../clock.ts";
import { notifySessionsRevoked } from "./sessions.ts";
import type { Database } from "../db/index.ts";
import { memberships, users, type Role } from "../db/schema/index.ts";
import { DomainError, isUniqueViolation } from "../errors.ts";
import { newId, randomBase62 } from "../ids.ts";

export type User = typeof users.$inferSelect;

export const email = z.string().trim().toLowerCase().pipe(z.email("Enter a valid e-mail address").max(254));
export const password = z.string().min(12, "Use at least 12 characters").max(200, "Use at most 200 characters");

export async function findUserByEmail(db: Database, address: string): Promise<User | undefined> {
  const [user] = await db
    .select()
    .from(users)
    .where(eq(users.email, email.parse(address)));
  return user;
}

/** The user's e-mail address; null when there is no such user. */
export async function emailOf(db: Database, userId: string): Promise<string | null> {
  const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId));
  return user?.email ?? null;
}

/** A new account's password, checked and hashed: done before any transaction, as it takes a while. */
export function newPasswordHash(plain: string): Promise<string> {
  return hashPassword(password.parse(plain));
}

/** Creates a user and makes them a member of the organisation with the given role. */
export async function addMember(
  db: Database,
  input: { orgId: string; email: string; name: string; password: string; role: Role },
  actor: Actor,
): Promise<User> {
  const { password: plain, ...rest } = input;
  return insertMember(db, { ...rest, passwordHash: await newPasswordHash(plain) }, actor);
}

/**
 * `addMember` with the password already hashed, for a caller inside a transaction: the hash must
 * not hold the database (on PGlite every statement waits for an open transaction).
 */
export async function insertMember(
  db: Database,
  input: { orgId: string; email: string; name: string; passwordHash: string; role: Role },
  actor: Actor,
): Promise<User> {
  const address = email.parse(input.email);
  try {
    return await db.transaction(async (tx) => {
      const [user] = await tx
        .insert(users)
        .values({ id: newId("usr"), email: address, name: input.name, passwordHash: input.passwordHash })
        .returning();
      await tx.insert(memberships).values({ orgId: input.orgId, userId: user!.id, role: input.role });
      await recordAudit(tx, {
        orgId: input.orgId,
        actor,
        action: "member.added",
        target: user!.id,
        details: { email: address, role: input.role },
      });
      return user!;
    });
  } catch (error) {
    // Not naming the address: sign-up must not confirm which e-mails have accounts.
    if (isUniqueViolation(error))
      throw new DomainError(
        "conflict",
        "An account cannot be created with this e-mail address. Already a member? Sign in.",
      );
    throw error;
  }
}

/** Sets a new random password and returns it: the operator's way back in for a locked-out admin. */
export async function resetPassword(
  db: Database,
  address: string,
  actor: Actor,
): Promise<{ user: User; password: string }> {
  const user = await findUserByEmail(db, address);
  if (!user) throw new DomainError("not_found", `No user with the e-mail ${email.parse(address)}.`);
  const newPassword = randomBase62(20);
  const passwordHash = await hashPassword(newPassword);
  await db.transaction(async (tx) => {
    // A reset also ends every session: a stolen cookie must not outlive the password it came with.
    await tx.update(users).set({ passwordHash, sessionsValidAfter: now() }).where(eq(users.id, user.id));
    await notifySessionsRevoked(tx, user.id);
    await recordAudit(tx, {
      orgId: null,
      actor,
      action: "user.password_reset",
      target: user.id,
      details: { email: user.email },
    });
  });
  return { user, password: newPassword };
}
