import { sql } from "drizzle-orm";
import { boolean, check, index, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, sqlList, timestampTz, updatedAt } from "./columns.ts";
import { organisations, ROLES, type Role } from "./accounts.ts";

/**
 * An organisation's OpenID Connect provider (one per organisation), read at each sign-in. The
 * client secret is sealed as authenticator secrets are (lib/accounts/factors/sealing.ts).
 */
export const ssoConnections = pgTable(
  "sso_connections",
  {
    orgId: text("org_id")
      .primaryKey()
      .references(() => organisations.id, { onDelete: "cascade" }),
    issuer: text("issuer").notNull(),
    clientId: text("client_id").notNull(),
    clientSecret: text("client_secret").notNull(),
    /** The role an address of a verified domain joins as on its first sign-in. */
    joinRole: text("join_role").$type<Role>().notNull().default("viewer"),
    /** Members of the verified domains sign in through the provider only; admins keep a password. */
    requireSso: boolean("require_sso").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  () => [check("sso_connections_join_role_check", sql.raw(`join_role in (${sqlList(ROLES)})`))],
);

export const SSO_DOMAIN_VERIFIERS = ["dns", "operator"] as const;
export type SsoDomainVerifier = (typeof SSO_DOMAIN_VERIFIERS)[number];

/**
 * The e-mail domains an organisation claims for its provider. Any organisation may claim a domain;
 * only one can have it verified (a DNS TXT record of `token`, or an operator's word).
 */
export const ssoDomains = pgTable(
  "sso_domains",
  {
    orgId: text("org_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    domain: text("domain").notNull(),
    token: text("token").notNull(),
    verifiedAt: timestampTz("verified_at"),
    verifiedBy: text("verified_by").$type<SsoDomainVerifier>(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.domain] }),
    // Sign-in finds the organisation of an address's domain; a claim does not squat a domain, a verification does.
    uniqueIndex("sso_domains_verified_key")
      .on(t.domain)
      .where(sql`${t.verifiedAt} is not null`),
    check("sso_domains_verified_by_check", sql.raw(`verified_by in (${sqlList(SSO_DOMAIN_VERIFIERS)})`)),
  ],
);

/**
 * A sign-in under way at a provider: what the callback checks it against, used once. `browser` is
 * the hash of a cookie set where the sign-in began, so a callback in another browser is refused.
 */
export const ssoFlows = pgTable(
  "sso_flows",
  {
    stateHash: text("state_hash").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    browserHash: text("browser_hash").notNull(),
    nonce: text("nonce").notNull(),
    codeVerifier: text("code_verifier").notNull(),
    returnTo: text("return_to").notNull(),
    usedAt: timestampTz("used_at"),
    createdAt: createdAt(),
  },
  // Old flows are dropped by age.
  (t) => [index("sso_flows_created_idx").on(t.createdAt)],
);
