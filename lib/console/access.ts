import "#server-only";
import { asc, eq } from "drizzle-orm";
import type { Actor } from "../accounts/audit.ts";
import type { Database } from "../db/index.ts";
import { memberships, organisations, users, type Role } from "../db/schema/index.ts";
import { DomainError } from "../errors.ts";
import type { Organisation } from "../accounts/organisations.ts";

/**
 * What a signed-in user may do, read from the database on every page and every action: the
 * session carries only the user's id, so a removed member or a changed role takes effect at once.
 */
export type ConsoleAccess = {
  user: { id: string; email: string; name: string };
  organisation: Organisation;
  role: Role;
  actor: Actor;
};

/** The user's organisation and role, or null when the user is gone or belongs to none. */
export async function consoleAccess(db: Database, userId: string): Promise<ConsoleAccess | null> {
  // A user belongs to one organisation in this version; the oldest membership wins should there be more.
  const [row] = await db
    .select({ user: users, organisation: organisations, role: memberships.role })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .innerJoin(organisations, eq(organisations.id, memberships.orgId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(memberships.createdAt))
    .limit(1);
  if (!row) return null;
  const { id, email, name } = row.user;
  return {
    user: { id, email, name },
    organisation: row.organisation,
    role: row.role,
    actor: { userId: id, label: email },
  };
}

export async function requireAccess(db: Database, userId: string | null): Promise<ConsoleAccess> {
  const access = userId ? await consoleAccess(db, userId) : null;
  if (!access)
    throw new DomainError("forbidden", "Your session has ended or your membership was removed: sign in again.");
  return access;
}

/** Viewers see everything and change nothing. */
export async function requireAdmin(db: Database, userId: string | null): Promise<ConsoleAccess> {
  const access = await requireAccess(db, userId);
  if (access.role !== "admin") {
    throw new DomainError("forbidden", "Only an admin of the organisation can do this; you are a viewer.");
  }
  return access;
}
