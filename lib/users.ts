import { eq } from "drizzle-orm";
import { z } from "zod";
import { hashPassword } from "./auth/password.ts";
import { recordAudit, type Actor } from "./audit.ts";
import type { Database } from "./db/index.ts";
import { memberships, users, type Role } from "./db/schema/index.ts";
import { DomainError, isUniqueViolation } from "./errors.ts";
import { newId, randomBase62 } from "./ids.ts";

export type User = typeof users.$inferSelect;

export const email = z.string().trim().toLowerCase().pipe(z.email("Enter a valid e-mail address").max(254));
export const password = z.string().min(12, "Use at least 12 characters").max(200);

export async function findUserByEmail(db: Database, address: string): Promise<User | undefined> {
  const [user] = await db
    .select()
    .from(users)
    .where(eq(users.email, email.parse(address)));
  return user;
}

/** Creates a user and makes them a member of the organisation with the given role. */
export async function addMember(
  db: Database,
  input: { orgId: string; email: string; name: string; password: string; role: Role },
  actor: Actor,
): Promise<User> {
  const address = email.parse(input.email);
  const passwordHash = await hashPassword(password.parse(input.password));
  try {
    return await db.transaction(async (tx) => {
      const [user] = await tx
        .insert(users)
        .values({ id: newId("usr"), email: address, name: input.name, passwordHash })
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
    if (isUniqueViolation(error))
      throw new DomainError("conflict", `A user with the e-mail ${address} already exists.`);
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
  await db.transaction(async (tx) => {
    await tx
      .update(users)
      .set({ passwordHash: await hashPassword(newPassword) })
      .where(eq(users.id, user.id));
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
