import "#server-only";
import { resolveTxt } from "node:dns/promises";
import { and, asc, eq, isNotNull } from "drizzle-orm";
import { z } from "zod";
import { recordAudit, type Actor } from "../audit.ts";
import type { Database } from "../../db/index.ts";
import { organisations, ROLES, ssoConnections, ssoDomains, type Role } from "../../db/schema/index.ts";
import { DomainError, isUniqueViolation } from "../../errors.ts";
import { randomBase62 } from "../../ids.ts";
import { seal, unseal } from "../factors/sealing.ts";
import { discoverProvider, type IssuerAccess } from "./provider.ts";

// An Enterprise organisation's single sign-on: its provider and the e-mail domains it owns. A
// domain counts once verified, by a DNS TXT record or by an operator; one organisation at most
// has a domain verified, so an address leads to one provider.

/** The plan whose organisations may sign in through their own provider. */
export const SSO_PLAN = "enterprise";

/** The TXT record's text that proves a domain: the prefix and the token shown to the admin. */
export const TXT_PREFIX = "sports-data-sso=";

export type SsoConnection = {
  issuer: string;
  clientId: string;
  joinRole: Role;
  requireSso: boolean;
  updatedAt: Date;
};

export type SsoDomain = { domain: string; token: string; verifiedAt: Date | null; verifiedBy: string | null };

/** A domain as stored: lower case, no trailing dot, a host name with at least one dot. */
export const domainInput = z
  .string()
  .trim()
  .toLowerCase()
  .transform((value) => value.replace(/\.$/, ""))
  .pipe(
    z
      .string()
      .max(253)
      .regex(
        /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
        "Enter a domain such as example.com",
      ),
  );

export const connectionInput = z.object({
  issuer: z.url({ message: "Enter the provider's issuer URL, such as https://login.example.com" }).max(500),
  clientId: z.string().trim().min(1, "Enter the client id the provider gave you").max(300),
  // Left empty when changing other settings: the sealed one stays.
  clientSecret: z.string().min(1).max(1000).optional(),
  joinRole: z.enum(ROLES).default("viewer"),
  requireSso: z
    .string()
    .optional()
    .transform((value) => value === "on" || value === "1" || value === "true"),
});
export type ConnectionInput = z.input<typeof connectionInput>;

/** The domain part of an e-mail address, lower-cased; "" for none. */
export function emailDomain(address: string): string {
  const at = address.lastIndexOf("@");
  return at < 0
    ? ""
    : address
        .slice(at + 1)
        .trim()
        .toLowerCase()
        .replace(/\.$/, "");
}

/** Refuses unless the organisation is on the plan that has single sign-on. */
export async function requireSsoPlan(db: Database, orgId: string): Promise<void> {
  const [organisation] = await db
    .select({ planCode: organisations.planCode })
    .from(organisations)
    .where(eq(organisations.id, orgId));
  if (organisation?.planCode !== SSO_PLAN) {
    throw new DomainError("forbidden", "Single sign-on comes with the Enterprise plan: request it on the Plan page.");
  }
}

export async function readConnection(db: Database, orgId: string): Promise<SsoConnection | null> {
  const [row] = await db.select().from(ssoConnections).where(eq(ssoConnections.orgId, orgId));
  if (!row) return null;
  return {
    issuer: row.issuer,
    clientId: row.clientId,
    joinRole: row.joinRole,
    requireSso: row.requireSso,
    updatedAt: row.updatedAt,
  };
}

/** The connection with its client secret unsealed, for a sign-in; null when none or sealed under another key. */
export async function connectionWithSecret(db: Database, orgId: string, key: Buffer) {
  const [row] = await db.select().from(ssoConnections).where(eq(ssoConnections.orgId, orgId));
  const clientSecret = row ? unseal(key, row.clientSecret) : null;
  return row && clientSecret ? { ...row, clientSecret } : null;
}

export function listDomains(db: Database, orgId: string): Promise<SsoDomain[]> {
  return db
    .select({
      domain: ssoDomains.domain,
      token: ssoDomains.token,
      verifiedAt: ssoDomains.verifiedAt,
      verifiedBy: ssoDomains.verifiedBy,
    })
    .from(ssoDomains)
    .where(eq(ssoDomains.orgId, orgId))
    .orderBy(asc(ssoDomains.domain));
}

/** The organisation that has verified the domain, if any. */
export async function verifiedOwner(db: Database, domain: string): Promise<string | null> {
  const [row] = await db
    .select({ orgId: ssoDomains.orgId })
    .from(ssoDomains)
    .where(and(eq(ssoDomains.domain, domain), isNotNull(ssoDomains.verifiedAt)));
  return row?.orgId ?? null;
}

/**
 * Saves the organisation's provider after discovering it (a wrong issuer is refused here, not at
 * the first sign-in). The client secret is sealed; an empty one keeps the secret stored.
 */
export async function saveConnection(
  db: Database,
  orgId: string,
  fields: Record<string, string>,
  context: { actor: Actor; key: Buffer; access: IssuerAccess; at: Date },
): Promise<SsoConnection> {
  await requireSsoPlan(db, orgId);
  const input = connectionInput.parse(fields);
  const issuer = input.issuer.replace(/\/+$/, "");
  const stored = await connectionWithSecret(db, orgId, context.key);
  const clientSecret = input.clientSecret ?? stored?.clientSecret;
  if (!clientSecret) throw new DomainError("invalid_input", "Enter the client secret the provider gave you.");
  try {
    await discoverProvider({ issuer, clientId: input.clientId, clientSecret }, context.access);
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw new DomainError(
      "invalid_input",
      `The provider at ${issuer} could not be discovered: check the issuer URL (its /.well-known/openid-configuration must name it).`,
    );
  }
  const values = {
    issuer,
    clientId: input.clientId,
    clientSecret: seal(context.key, clientSecret),
    joinRole: input.joinRole,
    requireSso: input.requireSso,
    updatedAt: context.at,
  };
  await db.transaction(async (tx) => {
    await tx
      .insert(ssoConnections)
      .values({ orgId, ...values, createdAt: context.at })
      .onConflictDoUpdate({ target: ssoConnections.orgId, set: values });
    await recordAudit(tx, {
      orgId,
      actor: context.actor,
      action: "sso.configured",
      target: orgId,
      details: {
        issuer,
        clientId: input.clientId,
        joinRole: input.joinRole,
        requireSso: input.requireSso,
        secretChanged: input.clientSecret !== undefined,
      },
    });
  });
  return (await readConnection(db, orgId))!;
}

/** Claims a domain for the organisation; the admin is shown the TXT record that verifies it. */
export async function addDomain(
  db: Database,
  orgId: string,
  fields: Record<string, string>,
  actor: Actor,
): Promise<SsoDomain> {
  await requireSsoPlan(db, orgId);
  const domain = domainInput.parse(fields.domain ?? "");
  const token = randomBase62(32);
  try {
    await db.transaction(async (tx) => {
      await tx.insert(ssoDomains).values({ orgId, domain, token });
      await recordAudit(tx, { orgId, actor, action: "sso.domain_added", target: domain });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new DomainError("conflict", `${domain} is already listed.`);
    throw error;
  }
  return { domain, token, verifiedAt: null, verifiedBy: null };
}

export async function removeDomain(db: Database, orgId: string, fields: Record<string, string>, actor: Actor) {
  const domain = domainInput.parse(fields.domain ?? "");
  await db.transaction(async (tx) => {
    const removed = await tx
      .delete(ssoDomains)
      .where(and(eq(ssoDomains.orgId, orgId), eq(ssoDomains.domain, domain)))
      .returning();
    if (removed.length === 0) throw new DomainError("not_found", `No domain ${domain} in this organisation.`);
    await recordAudit(tx, { orgId, actor, action: "sso.domain_removed", target: domain });
  });
}

/** Looks up TXT records; the real resolver unless a test gives its own. */
export type TxtLookup = (domain: string) => Promise<string[][]>;

/**
 * Verifies a claimed domain: by its TXT record (`by: "dns"`, the records are read now) or on an
 * operator's word. Refused while another organisation has it verified.
 */
export async function verifyDomain(
  db: Database,
  orgId: string,
  domainText: string,
  context: { actor: Actor; at: Date; by: "dns" | "operator"; lookup?: TxtLookup },
): Promise<SsoDomain> {
  const domain = domainInput.parse(domainText);
  const [claim] = await db
    .select()
    .from(ssoDomains)
    .where(and(eq(ssoDomains.orgId, orgId), eq(ssoDomains.domain, domain)));
  if (!claim) throw new DomainError("not_found", `No domain ${domain} in this organisation.`);
  if (claim.verifiedAt) return claim;
  if (context.by === "dns") {
    const records = await (context.lookup ?? resolveTxt)(domain).catch(() => [] as string[][]);
    const expected = `${TXT_PREFIX}${claim.token}`;
    // A long TXT record arrives in chunks of 255 characters, joined here.
    if (!records.some((chunks) => chunks.join("").trim() === expected)) {
      throw new DomainError(
        "invalid_input",
        `No TXT record "${expected}" was found on ${domain}. DNS changes can take a while to show: try again later.`,
      );
    }
  }
  const owner = await verifiedOwner(db, domain);
  if (owner && owner !== orgId) {
    throw new DomainError("conflict", `${domain} is verified by another organisation.`);
  }
  try {
    await db.transaction(async (tx) => {
      await tx
        .update(ssoDomains)
        .set({ verifiedAt: context.at, verifiedBy: context.by })
        .where(and(eq(ssoDomains.orgId, orgId), eq(ssoDomains.domain, domain)));
      await recordAudit(tx, {
        orgId,
        actor: context.actor,
        action: "sso.domain_verified",
        target: domain,
        details: { by: context.by },
      });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new DomainError("conflict", `${domain} is verified by another organisation.`);
    throw error;
  }
  return { ...claim, verifiedAt: context.at, verifiedBy: context.by };
}
