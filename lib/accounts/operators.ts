import "#server-only";
import { asc, eq } from "drizzle-orm";
import { z } from "zod";
import { recordAudit, type Actor } from "./audit.ts";
import { notifySessionsRevoked } from "./sessions.ts";
import type { Database } from "../db/index.ts";
import { operators, users } from "../db/schema/index.ts";
import { DomainError, isUniqueViolation } from "../errors.ts";
import { newId, randomBase62 } from "../ids.ts";
import { email, newPasswordHash } from "./users.ts";

// The people who run the service. An operator is a user (e-mail, password, sessions, signed in on
// the console's sign-in page) with a row in `operators` and no membership: the two never mix, so
// an organisation's admin can never reach the desk and an operator acts for no organisation.

export type Operator = { userId: string; email: string; name: string; createdAt: Date };

/** Who is at the desk, read from the database on every page and action. */
export type OperatorAccess = { user: { id: string; email: string; name: string }; actor: Actor };

export const operatorInput = z.object({
  email,
  name: z.string().trim().min(1).max(120).optional(),
});

/** The operator signed in as `userId`, or null for anyone else (a member, a removed operator, nobody). */
export async function operatorAccess(db: Database, userId: string | null): Promise<OperatorAccess | null> {
  if (!userId) return null;
  const [row] = await db
    .select({ id: users.id, email: users.email, name: users.name })
    .from(operators)
    .innerJoin(users, eq(users.id, operators.userId))
    .where(eq(operators.userId, userId))
    .limit(1);
  if (!row) return null;
  return { user: row, actor: operatorActor(row.id, row.email) };
}

export function operatorActor(userId: string, address: string): Actor {
  return { userId, label: address, operator: true };
}

/**
 * For every desk action: the operator, or "not found" for anyone else, so that the desk's
 * existence is not confirmed to someone who may not use it.
 */
export async function requireOperator(db: Database, userId: string | null): Promise<OperatorAccess> {
  const access = await operatorAccess(db, userId);
  if (!access) throw new DomainError("not_found", "Not found.");
  return access;
}

export function listOperators(db: Database): Promise<Operator[]> {
  return db
    .select({ userId: users.id, email: users.email, name: users.name, createdAt: operators.createdAt })
    .from(operators)
    .innerJoin(users, eq(users.id, operators.userId))
    .orderBy(asc(operators.createdAt), asc(users.email));
}

/**
 * A new operator account with a random password, returned once: the caller shows it to the
 * person who asked and nowhere else. An address that has an account already is refused.
 */
export async function addOperator(
  db: Database,
  input: z.input<typeof operatorInput>,
  actor: Actor,
): Promise<{ operator: Operator; password: string }> {
  const parsed = operatorInput.parse(input);
  const password = randomBase62(20);
  const passwordHash = await newPasswordHash(password);
  try {
    const operator = await db.transaction(async (tx) => {
      const [user] = await tx
        .insert(users)
        .values({ id: newId("usr"), email: parsed.email, name: parsed.name ?? "Operator", passwordHash })
        .returning();
      const [row] = await tx.insert(operators).values({ userId: user!.id }).returning();
      await recordAudit(tx, {
        orgId: null,
        actor,
        action: "operator.added",
        target: user!.id,
        details: { email: user!.email },
      });
      return { userId: user!.id, email: user!.email, name: user!.name, createdAt: row!.createdAt };
    });
    return { operator, password };
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new DomainError(
        "conflict",
        `${parsed.email} has an account already (an operator, or a member of an organisation): an operator needs an address of its own.`,
      );
    }
    throw error;
  }
}

/** Removes the operator's account; their sessions end on every instance at once. */
export async function removeOperator(db: Database, address: string, actor: Actor): Promise<Operator> {
  const target = email.parse(address);
  return db.transaction(async (tx) => {
    const [operator] = await tx
      .select({ userId: users.id, email: users.email, name: users.name, createdAt: operators.createdAt })
      .from(operators)
      .innerJoin(users, eq(users.id, operators.userId))
      .where(eq(users.email, target));
    if (!operator) throw new DomainError("not_found", `No operator with the e-mail ${target}.`);
    await tx.delete(users).where(eq(users.id, operator.userId));
    await notifySessionsRevoked(tx, operator.userId);
    await recordAudit(tx, {
      orgId: null,
      actor,
      action: "operator.removed",
      target: operator.userId,
      details: { email: operator.email },
    });
    return operator;
  });
}
