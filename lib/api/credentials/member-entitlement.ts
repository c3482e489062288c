import { and, asc, eq } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { apiKeys, SPORTS, type Sport } from "../../db/schema/index.ts";
import { productionKeyBlockers } from "../../keys/index.ts";
import type { ApiKeyRecord } from "../../keys/lookup.ts";
import { memberPrincipal, organisationPrincipal } from "../../metering/index.ts";
import { getPlan } from "../../accounts/plans.ts";

/** A console member's own limits on the board's endpoints, whatever the organisation's plan. */
export type MemberLimits = Pick<ApiKeyRecord, "requestsPerSecond" | "monthlyQuota" | "concurrentStreams">;

/**
 * What a signed-in member may read, as a key-shaped record so that metering, entitlement and the
 * streams apply one set of rules: while the organisation may hold production keys, its plan's
 * sports in real time; otherwise the sandbox's view of one sport, the one its sandbox key was made
 * for (the first sport when it has none). Counted under the member's own principal and limits.
 */
export async function memberEntitlement(
  db: Database,
  member: { userId: string; orgId: string; planCode: string | null; expiresAt: Date },
  limits: MemberLimits,
  at: Date,
): Promise<ApiKeyRecord> {
  const coverage = await memberCoverage(db, member.orgId, member.planCode, at);
  const record = {
    id: memberPrincipal(member.userId),
    orgId: member.orgId,
    ...limits,
    createdAt: at,
    expiresAt: member.expiresAt,
    revokedAt: null,
  };
  if (!coverage.sandbox) {
    // The member's reads draw on the organisation's plan as its keys' do, within the member's own limits.
    return {
      ...record,
      environment: "production",
      planCode: coverage.planCode,
      sports: coverage.sports,
      pool: coverage.limits && { id: organisationPrincipal(member.orgId), ...coverage.limits },
    };
  }
  return { ...record, environment: "sandbox", planCode: null, sports: coverage.sports };
}

/** The sports an organisation's members read, and why: its plan's, or the sandbox's one sport. */
export type MemberCoverage = {
  sports: Sport[];
  /** The sandbox's view: the organisation may not hold production keys (yet). */
  sandbox: boolean;
  planCode: string | null;
  planName: string | null;
  /** The plan's limits, which the organisation holds as a whole; null in the sandbox's view. */
  limits: MemberLimits | null;
};

export async function memberCoverage(
  db: Database,
  orgId: string,
  planCode: string | null,
  at: Date,
): Promise<MemberCoverage> {
  const production = (await productionKeyBlockers(db, orgId, at)).length === 0;
  const plan = production && planCode ? await getPlan(db, planCode) : undefined;
  if (plan?.environment === "production") {
    return {
      sports: plan.sports as Sport[],
      sandbox: false,
      planCode: plan.code,
      planName: plan.name,
      limits: {
        monthlyQuota: plan.monthlyQuota,
        requestsPerSecond: plan.requestsPerSecond,
        concurrentStreams: plan.concurrentStreams,
      },
    };
  }
  return { sports: [await sandboxSport(db, orgId)], sandbox: true, planCode: null, planName: null, limits: null };
}

async function sandboxSport(db: Database, orgId: string): Promise<Sport> {
  const [key] = await db
    .select({ sport: apiKeys.sport })
    .from(apiKeys)
    .where(and(eq(apiKeys.orgId, orgId), eq(apiKeys.environment, "sandbox")))
    .orderBy(asc(apiKeys.createdAt))
    .limit(1);
  return key?.sport ?? SPORTS[0];
}
