import { sql } from "drizzle-orm";
import { rowsOf, type Database } from "../db/index.ts";
import { monthOf, nextMonthStart } from "./policies.ts";
import type { ApiKeyRecord } from "../keys/lookup.ts";
import { memberOf, organisationOf, type MonthTotal, type Tally } from "./tally.ts";

/** One key's count for the current month, as this instance knows it. */
export type KeyUsage = {
  month: string;
  /** The month as epoch ms, [monthStart, monthEnd). */
  monthStart: number;
  monthEnd: number;
  /** The UTC day of the last admission, `YYYY-MM-DD`, and its bounds. */
  day: string;
  dayStart: number;
  dayEnd: number;
  /** RateLimit-Policy for the limits it was made for (a plan can change under a key). */
  policy: string;
  policyRate: number;
  policyQuota: number;
  /** usage_monthly's total as last learned: from our own flushes and from other instances'. */
  recorded: number;
  /** A total another instance announced while our own flush was in flight, applied after it. */
  noticed: number;
  /** Ours, in a flush not yet committed. */
  inFlight: number;
  /** Ours, journaled, not yet flushed. */
  pending: number;
  second: number;
  secondAdmitted: number;
  /** The count at which the meter's watch wants to hear of the key again (0: at once). */
  watchAt: number;
  /** The key as its last request knew it, for the watch to hear of totals learned between requests. */
  key: ApiKeyRecord | null;
};

/** The meter's watch (meter.ts's UsageWatch). */
type Watch = (key: ApiKeyRecord, used: number, time: number, month: string) => number;

/** A flush's requests of each key's current month: moved from pending to in flight while it runs. */
export type InFlight = [usage: KeyUsage, requests: number, keyId: string][];

/** Each key's count for its current month, read once from the database and kept up to date. */
export class UsageBook {
  private readonly usage = new Map<string, KeyUsage>();
  private readonly loading = new Map<string, Promise<KeyUsage>>();
  private readonly db: Database;
  private readonly watch: Watch | undefined;
  private readonly now: () => Date;

  constructor(db: Database, watch?: Watch, now: () => Date = () => new Date()) {
    this.db = db;
    this.watch = watch;
    this.now = now;
  }

  /**
   * A total learned from a flush or another instance: the watch hears it when it reaches the
   * watched count, since with several instances the request that reaches a threshold may be
   * admitted where the total is not yet known, and no request may follow it.
   */
  private watchTotal(usage: KeyUsage): void {
    if (!this.watch || !usage.key) return;
    const used = usage.recorded + usage.inFlight + usage.pending;
    if (used >= usage.watchAt) usage.watchAt = this.watch(usage.key, used, this.now().getTime(), usage.month);
  }

  get(keyId: string): KeyUsage | undefined {
    return this.usage.get(keyId);
  }

  /**
   * Reads the key's total for the month of `at`, once however many requests wait for it.
   * `unflushed` is what this instance journaled of that month and has not added yet.
   */
  load(keyId: string, at: Date, unflushed: (keyId: string, month: string) => number): Promise<KeyUsage> {
    const month = monthOf(at);
    const id = `${keyId}:${month}`;
    let pending = this.loading.get(id);
    if (!pending) {
      pending = (async () => {
        const userId = memberOf(keyId);
        const orgId = organisationOf(keyId);
        const [row] = rowsOf<{ requests: string | number }>(
          await this.db.execute(
            orgId !== undefined
              ? sql`select requests from org_usage_monthly where org_id = ${orgId} and month = ${month}`
              : userId === undefined
                ? sql`select requests from usage_monthly where key_id = ${keyId} and month = ${month}`
                : sql`select requests from member_usage_monthly where user_id = ${userId} and month = ${month}`,
          ),
        );
        const usage: KeyUsage = {
          month,
          monthStart: Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1),
          monthEnd: nextMonthStart(at).getTime(),
          day: "",
          dayStart: 0,
          dayEnd: 0,
          policy: "",
          policyRate: -1,
          policyQuota: -1,
          recorded: Number(row?.requests ?? 0),
          noticed: 0,
          inFlight: 0,
          // Requests of that month this instance journaled and has not flushed (the clock moved back
          // to a month it had left) are still ours to count.
          pending: unflushed(keyId, month),
          second: 0,
          secondAdmitted: 0,
          watchAt: 0,
          key: null,
        };
        this.usage.set(keyId, usage);
        return usage;
      })().finally(() => this.loading.delete(id));
      this.loading.set(id, pending);
    }
    return pending;
  }

  /** Every key's next count is decided again by the watch (its thresholds changed). */
  rewatch(): void {
    for (const usage of this.usage.values()) usage.watchAt = 0;
  }

  /**
   * A total another instance announced after its flush. Totals only ever raise what we know; while
   * our own flush is in flight we cannot tell whether this total includes it, so it is applied once
   * the flush has answered.
   */
  heard(keyId: string, month: string, total: number): void {
    const usage = this.usage.get(keyId);
    if (!usage || usage.month !== month) return;
    if (usage.inFlight > 0) usage.noticed = Math.max(usage.noticed, total);
    else usage.recorded = Math.max(usage.recorded, total);
    this.watchTotal(usage);
  }

  startFlight(tally: Tally): InFlight {
    const moved: InFlight = [];
    for (const [keyId, entry] of tally) {
      const usage = this.usage.get(keyId);
      const n = usage ? entry.months.get(usage.month) : undefined;
      if (!usage || !n) continue;
      usage.pending -= n;
      usage.inFlight += n;
      moved.push([usage, n, keyId]);
    }
    return moved;
  }

  /** The flush failed: its requests are pending again, for the next one. */
  abortFlight(moved: InFlight): void {
    for (const [usage, n] of moved) {
      usage.inFlight -= n;
      usage.pending += n;
    }
  }

  /** The flush committed: its requests are recorded, with the totals it returned and any heard meanwhile. */
  landFlight(moved: InFlight, totals: MonthTotal[]): void {
    const byMonth = new Map(totals.map((t) => [`${t.keyId}:${t.month}`, t.requests]));
    for (const [usage, n, keyId] of moved) {
      usage.inFlight -= n;
      const total = byMonth.get(`${keyId}:${usage.month}`) ?? 0;
      usage.recorded = Math.max(usage.recorded + n, total, usage.noticed);
      this.watchTotal(usage);
    }
  }
}
