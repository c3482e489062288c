import { eq, sql } from "drizzle-orm";
import { rowsOf, type Database } from "../../db/index.ts";
import { apiKeys, usageAlerts, usageAlertSettings } from "../../db/schema/index.ts";
import type { ApiKeyRecord } from "../../keys/lookup.ts";
import { memberOf, organisationOf } from "../../metering/tally.ts";
import { monthOf, nextMonthStart } from "../../metering/policies.ts";
import { queueEvent } from "./events.ts";
import { crossings, DEFAULT_THRESHOLDS } from "./thresholds.ts";

/**
 * A key's count reached a threshold, or its organisation's pooled count (`keyId` null), as one
 * instance saw it; recorded off the request path.
 */
export type Reached = {
  keyId: string | null;
  orgId: string;
  month: string;
  percent: number;
  used: number;
  quota: number;
  at: number;
};

/**
 * Usage alerts: decides on the request path, from the count the meter already holds, whether a
 * key or an organisation's pool reached a threshold (a comparison per request, a call only at a
 * threshold), and records what it reached later, once per key (or organisation), threshold and
 * month across instances (usage_alerts' unique indexes).
 */
export class UsageAlerts {
  private thresholds = new Map<string, readonly number[]>();
  /** What this instance has seen reached this month, per key: it is queued once here. */
  private raised = new Map<string, Set<number>>();
  private month = "";
  private queue: Reached[] = [];
  private readonly db: Database;
  /** Called when something was queued, to record it soon. */
  onReached: () => void = () => {};

  constructor(db: Database) {
    this.db = db;
  }

  /** Reads every organisation's own thresholds (the others have the defaults). */
  async load(): Promise<void> {
    const rows = await this.db.select().from(usageAlertSettings);
    this.thresholds = new Map(rows.map((row) => [row.orgId, [...row.thresholds].sort((a, b) => a - b)]));
  }

  thresholdsOf(orgId: string): readonly number[] {
    return this.thresholds.get(orgId) ?? DEFAULT_THRESHOLDS;
  }

  /**
   * The meter's watch: `used` of the key's (or the organisation's) quota in `month`, the request
   * included. Queues the thresholds reached and not yet seen here; returns the count at which to be
   * called again.
   */
  readonly watch = (key: ApiKeyRecord, used: number, time: number, month: string): number => {
    // A member's allowance is not alerted; nor a key held only to its plan's quota, which the
    // organisation's pool holds too and reaches no later: the organisation's alert tells of it.
    if (memberOf(key.id) !== undefined) return Infinity;
    if (key.pool && key.monthlyQuota >= key.pool.monthlyQuota) return Infinity;
    const organisation = organisationOf(key.id) !== undefined;
    if (month !== this.month) {
      if (month > this.month) this.raised.clear();
      this.month = month;
    }
    let raised = this.raised.get(key.id);
    if (!raised) this.raised.set(key.id, (raised = new Set()));
    const { reached, nextAt } = crossings(used, key.monthlyQuota, this.thresholdsOf(key.orgId), raised);
    for (const percent of reached) {
      raised.add(percent);
      const keyId = organisation ? null : key.id;
      this.queue.push({ keyId, orgId: key.orgId, month, percent, used, quota: key.monthlyQuota, at: time });
    }
    if (reached.length > 0) this.onReached();
    return nextAt;
  };

  /**
   * Records what was reached: the first instance to record a (key, threshold, month) queues its
   * deliveries in the same transaction; the others find it recorded and do nothing. Returns how
   * many were new. What fails is queued again.
   */
  async record(): Promise<number> {
    const batch = this.queue;
    this.queue = [];
    let recorded = 0;
    for (const [index, reached] of batch.entries()) {
      try {
        if (await this.recordOne(reached)) recorded++;
      } catch (error) {
        this.queue.unshift(...batch.slice(index));
        throw error;
      }
    }
    return recorded;
  }

  get queued(): number {
    return this.queue.length;
  }

  private recordOne(reached: Reached): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const at = new Date(reached.at);
      const [row] = await tx
        .insert(usageAlerts)
        .values({
          orgId: reached.orgId,
          keyId: reached.keyId,
          month: reached.month,
          threshold: reached.percent,
          requests: reached.used,
          quota: reached.quota,
          reachedAt: at,
        })
        .onConflictDoNothing()
        .returning({ id: usageAlerts.id });
      if (!row) return false;
      const [key] = reached.keyId
        ? await tx
            .select({ hint: apiKeys.hint, name: apiKeys.name, environment: apiKeys.environment })
            .from(apiKeys)
            .where(eq(apiKeys.id, reached.keyId))
        : [];
      await queueEvent(tx, {
        orgId: reached.orgId,
        type: "usage.threshold_reached",
        at,
        data: {
          scope: reached.keyId ? "key" : "organisation",
          key_id: reached.keyId,
          key_hint: key?.hint ?? null,
          key_name: key?.name ?? null,
          environment: key?.environment ?? (reached.keyId ? null : "production"),
          threshold_percent: reached.percent,
          requests_used: reached.used,
          requests_quota: reached.quota,
          month: reached.month.slice(0, 7),
          resets_at: nextMonthStart(at).toISOString(),
        },
      });
      return true;
    });
  }
}

/**
 * The organisation's keys past a threshold this month, each with the highest it reached, and the
 * organisation's pool (`keyId` null, first) when it is.
 */
export async function alertsThisMonth(
  db: Database,
  orgId: string,
  at: Date,
): Promise<
  {
    keyId: string | null;
    hint: string | null;
    name: string | null;
    threshold: number;
    requests: number;
    quota: number;
  }[]
> {
  return rowsOf<{
    key_id: string | null;
    hint: string | null;
    name: string | null;
    threshold: number;
    requests: string;
    quota: string;
  }>(
    await db.execute(sql`
      select distinct on (a.key_id) a.key_id, k.hint, k.name, a.threshold, a.requests, a.quota
      from ${usageAlerts} a left join ${apiKeys} k on k.id = a.key_id
      where a.org_id = ${orgId} and a.month = ${monthOf(at)} and (a.key_id is null or k.revoked_at is null)
      order by a.key_id nulls first, a.threshold desc`),
  ).map((row) => ({
    keyId: row.key_id,
    hint: row.hint,
    name: row.name,
    threshold: Number(row.threshold),
    requests: Number(row.requests),
    quota: Number(row.quota),
  }));
}

/** An organisation's thresholds: its own, or the defaults. */
export async function organisationThresholds(db: Database, orgId: string): Promise<readonly number[]> {
  const [settings] = await db.select().from(usageAlertSettings).where(eq(usageAlertSettings.orgId, orgId));
  return settings?.thresholds ?? DEFAULT_THRESHOLDS;
}

/** Sets an organisation's thresholds (normalised by the caller). */
export async function storeThresholds(db: Database, orgId: string, thresholds: number[]): Promise<void> {
  await db
    .insert(usageAlertSettings)
    .values({ orgId, thresholds })
    .onConflictDoUpdate({ target: usageAlertSettings.orgId, set: { thresholds } });
}
