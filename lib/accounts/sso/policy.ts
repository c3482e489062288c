import "#server-only";
import { and, eq, isNotNull } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { memberships, ssoConnections, ssoDomains, users } from "../../db/schema/index.ts";
import { emailDomain } from "./connections.ts";

// "Require SSO": the members of an organisation whose addresses are in its verified domains sign in
// through its provider only, the password and mailed sign-in links refused. Its admins keep their
// password, and must have a second factor, so an admin can still get in when the provider is down
// or misconfigured and put things right (docs/security.md).

export const SSO_REQUIRED_MESSAGE =
  "Your organisation signs in through its single sign-on: choose “Sign in with SSO” and enter your e-mail address.";

/** The roles of the user in organisations that require SSO for the user's e-mail domain. */
async function requiringRoles(db: Database, userId: string): Promise<string[]> {
  const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId));
  if (!user) return [];
  const rows = await db
    .select({ role: memberships.role })
    .from(memberships)
    .innerJoin(ssoConnections, eq(ssoConnections.orgId, memberships.orgId))
    .innerJoin(ssoDomains, eq(ssoDomains.orgId, memberships.orgId))
    .where(
      and(
        eq(memberships.userId, userId),
        eq(ssoConnections.requireSso, true),
        eq(ssoDomains.domain, emailDomain(user.email)),
        isNotNull(ssoDomains.verifiedAt),
      ),
    );
  return rows.map((row) => row.role);
}

/** Whether the user must sign in through their organisation's provider: a password does not open a session. */
export async function ssoRequiredFor(db: Database, userId: string): Promise<boolean> {
  return (await requiringRoles(db, userId)).some((role) => role !== "admin");
}

/** Whether the user is an admin kept on the password by "require SSO", who must then have a second factor. */
export async function ssoAdminNeedsFactor(db: Database, userId: string): Promise<boolean> {
  return (await requiringRoles(db, userId)).includes("admin");
}
