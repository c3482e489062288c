import "#server-only";
import { and, asc, desc, eq, exists, gte, ilike, inArray, or, sql } from "drizzle-orm";
import { listAudit, type AuditEntry } from "../../accounts/audit.ts";
import type { Database } from "../../db/index.ts";
import {
  apiKeys,
  auditLog,
  licences,
  memberships,
  organisations,
  users,
  webhookDeliveries,
  webhookEndpoints,
} from "../../db/schema/index.ts";
import { DomainError } from "../../errors.ts";
import { listKeys, type KeySummary } from "../../keys/index.ts";
import { getLicence, type Licence } from "../../accounts/licences.ts";
import { listMembers, type Member } from "../../console/members.ts";
import type { Organisation } from "../../accounts/organisations.ts";
import { getPlan, type Plan } from "../../accounts/plans.ts";

// The operator's view of organisations: found by anything an operator is likely to be told (a
// name, a slug, a member's e-mail, the hint of a key), and one page of everything about one.

export type FoundOrganisation = Organisation & { verification: Licence["verification"] | null };

const SEARCH_LIMIT = 50;

/** `%` and `_` are the operator's text, not patterns. */
function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Organisations whose name, slug, a member's e-mail or a key's hint contains `query`; the newest without one. */
export async function searchOrganisations(db: Database, query: string): Promise<FoundOrganisation[]> {
  const text = query.trim().slice(0, 200);
  const pattern = containing(text);
  const matches = or(
    ilike(organisations.name, pattern),
    ilike(organisations.slug, pattern),
    exists(
      db
        .select({ one: sql`1` })
        .from(memberships)
        .innerJoin(users, eq(users.id, memberships.userId))
        .where(and(eq(memberships.orgId, organisations.id), ilike(users.email, pattern))),
    ),
    exists(
      db
        .select({ one: sql`1` })
        .from(apiKeys)
        .where(and(eq(apiKeys.orgId, organisations.id), ilike(apiKeys.hint, pattern))),
    ),
  );
  const rows = await db
    .select({ organisation: organisations, verification: licences.verification })
    .from(organisations)
    .leftJoin(licences, eq(licences.orgId, organisations.id))
    .where(text ? matches : undefined)
    .orderBy(text ? asc(organisations.name) : desc(organisations.createdAt), asc(organisations.id))
    .limit(SEARCH_LIMIT);
  return rows.map(({ organisation, verification }) => ({ ...organisation, verification }));
}

export type WebhookHealth = {
  id: string;
  url: string;
  enabled: boolean;
  /** Messages of the last day by state. */
  lastDay: { delivered: number; failed: number; pending: number };
  lastDeliveredAt: Date | null;
};

async function webhookHealth(db: Database, orgId: string, at: Date): Promise<WebhookHealth[]> {
  const endpoints = await db
    .select({ id: webhookEndpoints.id, url: webhookEndpoints.url, enabled: webhookEndpoints.enabled })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.orgId, orgId))
    .orderBy(asc(webhookEndpoints.createdAt));
  if (endpoints.length === 0) return [];
  const since = new Date(at.getTime() - 86_400_000);
  const ofEndpoints = inArray(
    webhookDeliveries.endpointId,
    endpoints.map((e) => e.id),
  );
  const states = await db
    .select({
      endpointId: webhookDeliveries.endpointId,
      state: webhookDeliveries.state,
      n: sql<number>`count(*)::int`,
    })
    .from(webhookDeliveries)
    .where(and(ofEndpoints, gte(webhookDeliveries.createdAt, since)))
    .groupBy(webhookDeliveries.endpointId, webhookDeliveries.state);
  const delivered = await db
    .select({ endpointId: webhookDeliveries.endpointId, at: sql<Date | string>`max(${webhookDeliveries.createdAt})` })
    .from(webhookDeliveries)
    .where(and(ofEndpoints, eq(webhookDeliveries.state, "delivered")))
    .groupBy(webhookDeliveries.endpointId);
  return endpoints.map((endpoint) => {
    const lastDay = { delivered: 0, failed: 0, pending: 0 };
    for (const row of states) if (row.endpointId === endpoint.id) lastDay[row.state] = row.n;
    const last = delivered.find((row) => row.endpointId === endpoint.id)?.at;
    return { ...endpoint, lastDay, lastDeliveredAt: last ? new Date(last) : null };
  });
}

export type OrganisationFile = {
  organisation: Organisation;
  plan: Plan | undefined;
  requestedPlan: Plan | undefined;
  licence: Licence | undefined;
  /** Every record and decision, newest first, from the audit log. */
  licenceHistory: AuditEntry[];
  members: Member[];
  keys: KeySummary[];
  /** This month's requests across the organisation's keys. */
  requestsThisMonth: number;
  webhooks: WebhookHealth[];
  audit: AuditEntry[];
};

const LICENCE_ACTIONS = ["licence.set", "licence.verified", "licence.rejected", "licence.revoked"];

/** Everything the desk shows of one organisation (never a key's secret: only its hint). */
export async function organisationFile(db: Database, orgId: string, at: Date): Promise<OrganisationFile> {
  const [organisation] = await db.select().from(organisations).where(eq(organisations.id, orgId));
  if (!organisation) throw new DomainError("not_found", `No organisation ${orgId}.`);
  const [plan, requestedPlan, licence, licenceHistory, members, keys, webhooks, audit] = await Promise.all([
    organisation.planCode ? getPlan(db, organisation.planCode) : undefined,
    organisation.requestedPlanCode ? getPlan(db, organisation.requestedPlanCode) : undefined,
    getLicence(db, orgId),
    db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.orgId, orgId), inArray(auditLog.action, LICENCE_ACTIONS)))
      .orderBy(desc(auditLog.id))
      .limit(50),
    listMembers(db, orgId),
    listKeys(db, orgId, at),
    webhookHealth(db, orgId, at),
    listAudit(db, orgId, { limit: 50 }),
  ]);
  const requestsThisMonth = keys.reduce((sum, key) => sum + key.requestsUsed, 0);
  return {
    organisation,
    plan,
    requestedPlan,
    licence,
    licenceHistory,
    members,
    keys,
    requestsThisMonth,
    webhooks,
    audit,
  };
}
