import "#server-only";
import { and, asc, eq, gte, lt } from "drizzle-orm";
import type { Database } from "../db/index.ts";
import { apiKeys, organisations, orgUsageMonthly, plans, usageDaily } from "../db/schema/index.ts";
import { utcDay } from "../clock.ts";

export type UsageSeries = { keyId: string; label: string; total: number };
export type UsageMonth = {
  month: string; // YYYY-MM
  /** One row per day of the month: `day` (YYYY-MM-DD), `total`, and the count of every key by its id. */
  days: Array<{ day: string; total: number } & Record<string, number | string>>;
  keys: UsageSeries[];
  total: number;
  /**
   * The organisation's count against its plan's quota, which its production keys and its members'
   * reads share (sandbox keys have limits of their own); `quota` null without a production plan.
   */
  organisation: { requests: number; quota: number | null };
};

export const MONTH_PATTERN = /^\d{4}-(0[1-9]|1[0-2])$/;

export function currentMonth(at: Date): string {
  return utcDay(at).slice(0, 7);
}

function nextMonth(month: string): string {
  const [year, m] = month.split("-").map(Number) as [number, number];
  return m === 12 ? `${year + 1}-01` : `${year}-${String(m + 1).padStart(2, "0")}`;
}

/** Requests per day of one calendar month (UTC), per key of the organisation and in total. */
export async function usageForMonth(db: Database, orgId: string, month: string): Promise<UsageMonth> {
  if (!MONTH_PATTERN.test(month)) throw new Error(`not a month: ${month}`);
  const first = `${month}-01`;
  const next = `${nextMonth(month)}-01`;
  const rows = await db
    .select({ keyId: usageDaily.keyId, day: usageDaily.day, requests: usageDaily.requests })
    .from(usageDaily)
    .innerJoin(apiKeys, eq(apiKeys.id, usageDaily.keyId))
    .where(and(eq(apiKeys.orgId, orgId), gte(usageDaily.day, first), lt(usageDaily.day, next)))
    .orderBy(asc(usageDaily.day));
  // Every key of the organisation gets a series, so the legend is the same whichever month is shown.
  const keys = await db
    .select({ id: apiKeys.id, hint: apiKeys.hint, name: apiKeys.name, environment: apiKeys.environment })
    .from(apiKeys)
    .where(eq(apiKeys.orgId, orgId))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));

  const [pooled] = await db
    .select({ requests: orgUsageMonthly.requests })
    .from(orgUsageMonthly)
    .where(and(eq(orgUsageMonthly.orgId, orgId), eq(orgUsageMonthly.month, first)));
  const [plan] = await db
    .select({ quota: plans.monthlyQuota, environment: plans.environment })
    .from(organisations)
    .innerJoin(plans, eq(plans.code, organisations.planCode))
    .where(eq(organisations.id, orgId));

  const dayCount =
    new Date(`${next}T00:00:00Z`).getTime() / 86_400_000 - new Date(`${first}T00:00:00Z`).getTime() / 86_400_000;
  const days = Array.from({ length: dayCount }, (_, i) => {
    const row: { day: string; total: number } & Record<string, number | string> = {
      day: `${month}-${String(i + 1).padStart(2, "0")}`,
      total: 0,
    };
    for (const key of keys) row[key.id] = 0;
    return row;
  });
  const totals = new Map<string, number>();
  for (const row of rows) {
    const index = Number(row.day.slice(8, 10)) - 1;
    const entry = days[index]!;
    entry[row.keyId] = row.requests;
    entry.total += row.requests;
    totals.set(row.keyId, (totals.get(row.keyId) ?? 0) + row.requests);
  }
  return {
    month,
    days,
    keys: keys.map((k) => ({
      keyId: k.id,
      label: k.name ? `${k.name} (${k.hint})` : `${k.environment === "sandbox" ? "Sandbox" : "Production"} ${k.hint}`,
      total: totals.get(k.id) ?? 0,
    })),
    total: [...totals.values()].reduce((a, b) => a + b, 0),
    organisation: {
      requests: pooled?.requests ?? 0,
      quota: plan?.environment === "production" ? plan.quota : null,
    },
  };
}
