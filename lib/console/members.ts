import "#server-only";
import { and, asc, eq, gt, isNull } from "drizzle-orm";
import { z } from "zod";
import { recordAudit, type Actor } from "../accounts/audit.ts";
import { addDays } from "../clock.ts";
import type { Database } from "../db/index.ts";
import { invitations, memberships, organisations, ROLES, users, type Role } from "../db/schema/index.ts";
import { DomainError } from "../errors.ts";
import { hashKey } from "../keys/format.ts";
import { newId, randomBase62 } from "../ids.ts";
import { createOrganisation, organisationInput, type Organisation } from "../accounts/organisations.ts";
import { notifySessionsRevoked } from "../accounts/sessions.ts";
import { mailLinks } from "../accounts/mail/links.ts";
import { invitationLink } from "../accounts/mail/messages.ts";
import { queueMail } from "../accounts/mail/outbox.ts";
import { email, insertMember, newPasswordHash, password, type User } from "../accounts/users.ts";

const personName = z.string().trim().min(1, "Your name is required").max(120);

export const signUpInput = z.object({
  organisation: organisationInput.shape.name,
  name: personName,
  email,
  password,
});

/** Sign-up: a new organisation with the person signing up as its first admin, in one transaction. */
export async function signUp(
  db: Database,
  input: z.input<typeof signUpInput>,
): Promise<{ organisation: Organisation; user: User }> {
  const parsed = signUpInput.parse(input);
  const passwordHash = await newPasswordHash(parsed.password);
  return createOrganisationWithAdmin(db, { ...parsed, passwordHash });
}

/** The organisation and its first admin, the password already hashed (a confirmed sign-up carries the hash). */
export function createOrganisationWithAdmin(
  db: Database,
  input: { organisation: string; name: string; email: string; passwordHash: string },
): Promise<{ organisation: Organisation; user: User }> {
  const actor: Actor = { userId: null, label: input.email };
  return db
    .transaction(async (tx) => {
      const organisation = await createOrganisation(tx, { name: input.organisation }, actor);
      const user = await insertMember(
        tx,
        {
          orgId: organisation.id,
          email: input.email,
          name: input.name,
          passwordHash: input.passwordHash,
          role: "admin",
        },
        actor,
      );
      return { organisation, user };
    })
    .catch((error: unknown) => {
      // The slug is derived from the name, so a taken slug means a taken name for the person signing up.
      if (error instanceof DomainError && error.code === "conflict" && error.message.includes("slug")) {
        throw new DomainError(
          "conflict",
          `An organisation named like "${input.organisation}" already exists; choose another name.`,
        );
      }
      throw error;
    });
}

export const invitationInput = z.object({
  role: z.enum(ROLES, { message: "Choose a role: admin or viewer" }),
  // Given: the invitation is mailed there too; the link is shown to the admin either way.
  email: email.optional(),
});

export type Member = { userId: string; email: string; name: string; role: Role; since: Date };
export type PendingInvitation = { id: string; role: Role; createdAt: Date; expiresAt: Date };

export async function listMembers(db: Database, orgId: string): Promise<Member[]> {
  return db
    .select({
      userId: users.id,
      email: users.email,
      name: users.name,
      role: memberships.role,
      since: memberships.createdAt,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.orgId, orgId))
    .orderBy(asc(memberships.createdAt), asc(users.email));
}

export function listPendingInvitations(db: Database, orgId: string, at: Date): Promise<PendingInvitation[]> {
  return db
    .select({
      id: invitations.id,
      role: invitations.role,
      createdAt: invitations.createdAt,
      expiresAt: invitations.expiresAt,
    })
    .from(invitations)
    .where(and(eq(invitations.orgId, orgId), isNull(invitations.acceptedAt), gt(invitations.expiresAt, at)))
    .orderBy(asc(invitations.createdAt));
}

/**
 * A one-time invitation. The token is returned once, for the admin to copy into a link, and mailed
 * (in the same transaction) when an address is given with `origin` to link to; only its SHA-256 is
 * stored, like a key's.
 */
export async function createInvitation(
  db: Database,
  orgId: string,
  input: z.input<typeof invitationInput>,
  options: { actor: Actor; at: Date; ttlDays: number; origin?: string },
): Promise<{ token: string; invitation: PendingInvitation; mailed: boolean }> {
  const { role, email: to } = invitationInput.parse(input);
  const token = randomBase62(32);
  const id = newId("inv");
  const expiresAt = addDays(options.at, options.ttlDays);
  await db.transaction(async (tx) => {
    await tx.insert(invitations).values({
      id,
      orgId,
      role,
      tokenHash: hashKey(token),
      createdBy: options.actor.userId,
      createdAt: options.at,
      expiresAt,
    });
    await recordAudit(tx, {
      orgId,
      actor: options.actor,
      action: "member.invited",
      target: id,
      details: to ? { role, mailed: true } : { role },
    });
    if (to && options.origin !== undefined) {
      const [organisation] = await tx
        .select({ name: organisations.name })
        .from(organisations)
        .where(eq(organisations.id, orgId));
      await queueMail(
        tx,
        invitationLink(to, {
          url: mailLinks.invitation(options.origin, token),
          organisation: organisation?.name ?? "an organisation",
          role,
          invitedBy: options.actor.label,
          expiresAt,
        }),
        options.at,
      );
    }
  });
  return {
    token,
    invitation: { id, role, createdAt: options.at, expiresAt },
    mailed: Boolean(to && options.origin !== undefined),
  };
}

export async function revokeInvitation(db: Database, orgId: string, invitationId: string, actor: Actor): Promise<void> {
  await db.transaction(async (tx) => {
    const deleted = await tx
      .delete(invitations)
      .where(and(eq(invitations.id, invitationId), eq(invitations.orgId, orgId), isNull(invitations.acceptedAt)))
      .returning({ id: invitations.id });
    if (deleted.length === 0)
      throw new DomainError("not_found", "No open invitation with that id in this organisation.");
    await recordAudit(tx, { orgId, actor, action: "invitation.revoked", target: invitationId });
  });
}

const INVALID_INVITATION =
  "This invitation link is not valid: it was used already, revoked or has expired. Ask your admin for a new one.";

/** What the invitation page shows before anyone accepts: the organisation and the role. */
export async function findInvitation(
  db: Database,
  token: string,
  at: Date,
): Promise<{ organisationName: string; role: Role } | null> {
  const [row] = await db
    .select({ organisationName: organisations.name, role: invitations.role })
    .from(invitations)
    .innerJoin(organisations, eq(organisations.id, invitations.orgId))
    .where(
      and(eq(invitations.tokenHash, hashKey(token)), isNull(invitations.acceptedAt), gt(invitations.expiresAt, at)),
    );
  return row ?? null;
}

export const acceptInput = z.object({ token: z.string().min(1).max(100), name: personName, email, password });

/**
 * Accepting creates the member's account; the link works once, even when two people race for it.
 * The token is looked up before the password is hashed, so a made-up one costs a read, not a hash.
 */
export async function acceptInvitation(db: Database, input: z.input<typeof acceptInput>, at: Date): Promise<User> {
  const parsed = acceptInput.parse(input);
  if (!(await findInvitation(db, parsed.token, at))) throw new DomainError("invitation_invalid", INVALID_INVITATION);
  const passwordHash = await newPasswordHash(parsed.password);
  return db.transaction(async (tx) => {
    const [invitation] = await tx
      .update(invitations)
      .set({ acceptedAt: at })
      .where(
        and(
          eq(invitations.tokenHash, hashKey(parsed.token)),
          isNull(invitations.acceptedAt),
          gt(invitations.expiresAt, at),
        ),
      )
      .returning();
    if (!invitation) throw new DomainError("invitation_invalid", INVALID_INVITATION);
    const user = await insertMember(
      tx,
      { orgId: invitation.orgId, email: parsed.email, name: parsed.name, passwordHash, role: invitation.role },
      { userId: null, label: parsed.email },
    );
    await tx.update(invitations).set({ acceptedBy: user.id }).where(eq(invitations.id, invitation.id));
    return user;
  });
}

export const roleChangeInput = z.object({ userId: z.string().min(1).max(40), role: z.enum(ROLES) });
export const memberInput = z.object({ userId: z.string().min(1).max(40) });

async function adminCount(tx: Database, orgId: string): Promise<number> {
  const admins = await tx
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.orgId, orgId), eq(memberships.role, "admin")))
    // Locks the admins' rows, so two admins demoting each other at once cannot leave none.
    .for("update");
  return admins.length;
}

export async function changeRole(
  db: Database,
  orgId: string,
  input: z.input<typeof roleChangeInput>,
  actor: Actor,
): Promise<void> {
  const { userId, role } = roleChangeInput.parse(input);
  await db.transaction(async (tx) => {
    const [member] = await tx
      .select({ role: memberships.role })
      .from(memberships)
      .where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId)));
    if (!member) throw new DomainError("not_found", "No such member in this organisation.");
    if (member.role === role) return;
    if (member.role === "admin" && (await adminCount(tx, orgId)) <= 1) {
      throw new DomainError("conflict", "The organisation needs at least one admin: make someone else admin first.");
    }
    await tx
      .update(memberships)
      .set({ role })
      .where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId)));
    await recordAudit(tx, {
      orgId,
      actor,
      action: "member.role_changed",
      target: userId,
      details: { from: member.role, to: role },
    });
  });
}

/** Removes a member and their account (a user belongs to one organisation in this version). */
export async function removeMember(
  db: Database,
  orgId: string,
  input: z.input<typeof memberInput>,
  actor: Actor,
): Promise<void> {
  const { userId } = memberInput.parse(input);
  await db.transaction(async (tx) => {
    const [member] = await tx
      .select({ role: memberships.role, email: users.email })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId)));
    if (!member) throw new DomainError("not_found", "No such member in this organisation.");
    if (member.role === "admin" && (await adminCount(tx, orgId)) <= 1) {
      throw new DomainError("conflict", "The organisation needs at least one admin: the last admin cannot be removed.");
    }
    await tx.delete(memberships).where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId)));
    await tx.delete(users).where(eq(users.id, userId));
    await notifySessionsRevoked(tx, userId);
    await recordAudit(tx, { orgId, actor, action: "member.removed", target: userId, details: { email: member.email } });
  });
}
