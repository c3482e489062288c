import { sql } from "drizzle-orm";
import { rowsOf, type Database } from "../db/index.ts";
import type { ApiKeyRecord } from "../keys/lookup.ts";
import { monthOf, rateLimitHeaders, secondsUntilNextMonth, type Policy } from "./policies.ts";

export type Admission =
  | { admitted: true; used: number; quota: number; headers: Record<string, string> }
  | {
      admitted: false;
      code: "rate_limited" | "quota_exceeded";
      violated: Policy;
      retryAfter: number;
      used: number;
      quota: number;
      headers: Record<string, string>;
    };

/**
 * The metering hook of the API: decides whether a request of a known, active key is admitted, and
 * counts it if so. `used` includes the request being answered.
 */
export interface Meter {
  admit(key: ApiKeyRecord, at: Date): Admission | Promise<Admission>;
  close(): Promise<void>;
}

type MonthCount = { month: string; used: number; unflushed: number };
type SecondWindow = { second: number; count: number };

const FLUSH_EVERY_MS = 1_000;

/**
 * Counts in memory and writes the counts to usage_monthly and usage_daily every second. Exact on
 * one instance while it runs; what was counted since the last flush is lost if the process dies,
 * and instances sharing a database do not see each other's counts until they reload. The metering
 * issue replaces it with a design that holds across instances and crashes.
 */
export class WriteBehindMeter implements Meter {
  private readonly months = new Map<string, MonthCount>();
  private readonly loading = new Map<string, Promise<MonthCount>>();
  private readonly seconds = new Map<string, SecondWindow>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  private readonly db: Database;

  constructor(db: Database) {
    this.db = db;
    this.timer = setInterval(() => void this.flush(), FLUSH_EVERY_MS);
    this.timer.unref();
  }

  admit(key: ApiKeyRecord, at: Date): Admission | Promise<Admission> {
    const count = this.months.get(key.id);
    if (count && count.month === monthOf(at)) return this.decide(key, count, at);
    return this.load(key.id, monthOf(at)).then((loaded) => this.decide(key, loaded, at));
  }

  private decide(key: ApiKeyRecord, count: MonthCount, at: Date): Admission {
    const second = Math.floor(at.getTime() / 1000);
    let window = this.seconds.get(key.id);
    if (!window || window.second !== second) {
      window = { second, count: 0 };
      this.seconds.set(key.id, window);
    }
    const remaining = () => ({
      second: key.requestsPerSecond - window.count,
      month: key.monthlyQuota - count.used,
    });
    if (count.used >= key.monthlyQuota) {
      return {
        admitted: false,
        code: "quota_exceeded",
        violated: "month",
        retryAfter: secondsUntilNextMonth(at),
        used: count.used,
        quota: key.monthlyQuota,
        headers: rateLimitHeaders(key, at, remaining()),
      };
    }
    if (window.count >= key.requestsPerSecond) {
      return {
        admitted: false,
        code: "rate_limited",
        violated: "second",
        retryAfter: 1,
        used: count.used,
        quota: key.monthlyQuota,
        headers: rateLimitHeaders(key, at, remaining()),
      };
    }
    window.count++;
    count.used++;
    count.unflushed++;
    return {
      admitted: true,
      used: count.used,
      quota: key.monthlyQuota,
      headers: rateLimitHeaders(key, at, remaining()),
    };
  }

  private load(keyId: string, month: string): Promise<MonthCount> {
    const id = `${keyId}:${month}`;
    let pending = this.loading.get(id);
    if (!pending) {
      pending = (async () => {
        const [row] = rowsOf<{ requests: string | number }>(
          await this.db.execute(sql`select requests from usage_monthly where key_id = ${keyId} and month = ${month}`),
        );
        const previous = this.months.get(keyId);
        const count: MonthCount = { month, used: Number(row?.requests ?? 0), unflushed: 0 };
        // A new month: what the old one counted and has not written yet is still written.
        if (previous && previous.month !== month && previous.unflushed > 0) await this.write(keyId, previous);
        this.months.set(keyId, count);
        return count;
      })().finally(() => this.loading.delete(id));
      this.loading.set(id, pending);
    }
    return pending;
  }

  private async write(keyId: string, count: MonthCount): Promise<void> {
    const requests = count.unflushed;
    if (requests === 0) return;
    count.unflushed = 0;
    try {
      const day = new Date().toISOString().slice(0, 10);
      const flushDay = day.startsWith(count.month.slice(0, 7)) ? day : count.month;
      await this.db.transaction(async (tx) => {
        // These counts are written once a second and a crash loses the last second anyway, so the
        // commit need not wait for its WAL flush: on the embedded database that flush would stall
        // the event loop that answers requests.
        await tx.execute(sql`set local synchronous_commit = off`);
        await tx.execute(sql`
          insert into usage_monthly (key_id, month, requests) values (${keyId}, ${count.month}, ${requests})
          on conflict (key_id, month) do update set requests = usage_monthly.requests + excluded.requests`);
        await tx.execute(sql`
          insert into usage_daily (key_id, day, requests) values (${keyId}, ${flushDay}, ${requests})
          on conflict (key_id, day) do update set requests = usage_daily.requests + excluded.requests`);
        await tx.execute(sql`update api_keys set last_used_at = now() where id = ${keyId}`);
      });
    } catch (error) {
      count.unflushed += requests;
      throw error;
    }
  }

  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      for (const [keyId, count] of this.months) {
        try {
          await this.write(keyId, count);
        } catch (error) {
          console.error(
            "Writing request counts failed; kept for the next flush:",
            error instanceof Error ? error.message : error,
          );
          return;
        }
      }
    });
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
