import "#server-only";
import { and, asc, count, desc, eq, gte, inArray, isNotNull, isNull, ne } from "drizzle-orm";
import type { AuditEntry } from "../../accounts/audit.ts";
import type { Database } from "../../db/index.ts";
import { auditLog, licences, organisations, statusIncidents } from "../../db/schema/index.ts";
import type { Licence } from "../../accounts/licences.ts";

// What waits for the operators: the licence records to check, first of all.

export type DeskLicence = Licence & { organisation: { id: string; name: string; slug: string } };

const withOrganisation = {
  licence: licences,
  id: organisations.id,
  name: organisations.name,
  slug: organisations.slug,
};

function shaped(rows: { licence: Licence; id: string; name: string; slug: string }[]): DeskLicence[] {
  return rows.map(({ licence, id, name, slug }) => ({ ...licence, organisation: { id, name, slug } }));
}

/** Pending records, the longest waiting first. */
export async function pendingLicences(db: Database): Promise<DeskLicence[]> {
  return shaped(
    await db
      .select(withOrganisation)
      .from(licences)
      .innerJoin(organisations, eq(organisations.id, licences.orgId))
      .where(eq(licences.verification, "pending"))
      .orderBy(asc(licences.updatedAt), asc(licences.id)),
  );
}

/** The pending records, then the `limit` latest decided ones (verified ones may be revoked there). */
export async function licencesForDesk(db: Database, limit = 100): Promise<DeskLicence[]> {
  const decided = await db
    .select(withOrganisation)
    .from(licences)
    .innerJoin(organisations, eq(organisations.id, licences.orgId))
    .where(ne(licences.verification, "pending"))
    .orderBy(desc(licences.reviewedAt), desc(licences.id))
    .limit(limit);
  return [...(await pendingLicences(db)), ...shaped(decided)];
}

export type DeskCounts = { pendingLicences: number; planRequests: number; openIncidents: number };

export async function deskCounts(db: Database): Promise<DeskCounts> {
  const [[pending], [requests], [incidents]] = await Promise.all([
    db.select({ n: count() }).from(licences).where(eq(licences.verification, "pending")),
    db.select({ n: count() }).from(organisations).where(isNotNull(organisations.requestedPlanCode)),
    db.select({ n: count() }).from(statusIncidents).where(isNull(statusIncidents.resolvedAt)),
  ]);
  return { pendingLicences: pending!.n, planRequests: requests!.n, openIncidents: incidents!.n };
}

/** Plan requests decided since `since`, newest first, with the organisation's name. */
export async function recentPlanDecisions(
  db: Database,
  since: Date,
): Promise<(AuditEntry & { organisation: string | null })[]> {
  const rows = await db
    .select({ entry: auditLog, organisation: organisations.name })
    .from(auditLog)
    .leftJoin(organisations, eq(organisations.id, auditLog.orgId))
    .where(
      and(
        eq(auditLog.operator, true),
        inArray(auditLog.action, ["plan.approved", "plan.declined"]),
        gte(auditLog.at, since),
      ),
    )
    .orderBy(desc(auditLog.id))
    .limit(20);
  return rows.map(({ entry, organisation }) => ({ ...entry, organisation }));
}
