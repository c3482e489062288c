import { randomBytes } from "node:crypto";
import path from "node:path";
import { utcDay, wallClockMs } from "../clock.ts";
import type { Config } from "../config.ts";
import type { Database, DatabaseHandle } from "../db/index.ts";
import { DatabaseWaitExceeded } from "../db/wait.ts";
import { usageTotals, type ChangeBus } from "../bus/index.ts";
import type { ApiKeyRecord, LimitPool } from "../keys/lookup.ts";
import { decideAdmission, nearLimit, type Admission, type AdmissionCounts } from "./admission.ts";
import { Durability, type FlushCargo, type MeterStats } from "./durability.ts";
import { Gossip } from "./gossip.ts";
import { rateLimit, rateLimitPolicy } from "./policies.ts";
import { replayOrphans } from "./replay.ts";
import { StreamSlots, type StreamSlot } from "./stream-slots.ts";
import { UsageBook, type KeyUsage } from "./usage.ts";

export type { Admission } from "./admission.ts";
export type { MeterStats } from "./durability.ts";
export type { StreamSlot } from "./stream-slots.ts";

/**
 * The metering hook of the API: decides whether a request of a known, active key is admitted, and
 * counts it if so. `used` includes the request being answered.
 */
export interface Meter {
  /**
   * `notAfter` (epoch ms): when the key's count must first be read, a read that ends after it
   * admits and counts nothing and rejects with DatabaseWaitExceeded (the request was answered 503).
   */
  admit(key: ApiKeyRecord, at: Date, notAfter?: number): Admission | Promise<Admission>;
  /** A slot for one more open stream of the key, or null when it has as many as its plan allows. */
  openStream(key: ApiKeyRecord, at: Date): StreamSlot | null;
  close(): Promise<void>;
}

/** The meter an instance holds: the API's hook, and what the metrics and the usage alerts ask of it. */
export interface InstanceMeter extends Meter {
  /** Asks the usage watch about every key again at its next request (the alerts' thresholds changed). */
  rewatch(): void;
  stats(): MeterStats;
}

export type MeterOptions = {
  db: Database;
  /** Where this instance's journal lives (DATA_DIR/meter). */
  journalDir: string;
  /** How often the journal's new lines are added to the database. */
  flushIntervalMs: number;
  /** Instances sharing a PostgreSQL database hear each other's counts on this bus. */
  bus?: ChangeBus;
  now: () => Date;
  /** Hears a key's count of its month once it reaches the count it last returned (usage alerts). */
  watch?: UsageWatch;
};

/**
 * Told a key's count of `month` at `time` (epoch ms), the request included; returns the count at
 * which to be told again. Called on the request path, rarely: it must not wait for anything.
 */
export type UsageWatch = (key: ApiKeyRecord, used: number, time: number, month: string) => number;

const DAY_MS = 86_400_000;

/** An organisation's pool as the watch hears of it: a principal with the pool's limits and no pool. */
function organisationRecord(key: ApiKeyRecord, pool: LimitPool): ApiKeyRecord {
  return {
    id: pool.id,
    orgId: key.orgId,
    environment: "production",
    planCode: key.planCode,
    sports: key.sports,
    monthlyQuota: pool.monthlyQuota,
    requestsPerSecond: pool.requestsPerSecond,
    concurrentStreams: pool.concurrentStreams,
    pool: null,
    createdAt: key.createdAt,
    expiresAt: null,
    revokedAt: null,
  };
}

/**
 * The meter: each admitted request journaled before it is answered, flushed to the database in
 * batches, replayed after a crash, and announced to the other instances (docs/metering.md).
 */
export class JournalMeter implements InstanceMeter {
  readonly instance = randomBytes(8).toString("hex");
  private readonly usage: UsageBook;
  private readonly slots = new StreamSlots();
  private readonly gossip: Gossip;
  private readonly durability: Durability;
  private unsubscribe: (() => void) | undefined;
  private readonly options: MeterOptions;

  private constructor(options: MeterOptions) {
    this.options = options;
    this.usage = new UsageBook(options.db, options.watch, options.now);
    this.gossip = new Gossip(this.instance, this.usage, this.slots, options.now);
    this.durability = new Durability(options, (at) => this.cargo(at));
  }

  /**
   * Replays the journals of processes that are gone, then starts this instance's own journal.
   * Returns how many requests the replay added.
   */
  static async start(options: MeterOptions): Promise<{ meter: JournalMeter; replayed: number }> {
    const replayed = await replayOrphans(options.db, options.journalDir);
    const meter = new JournalMeter(options);
    if (options.bus) {
      meter.unsubscribe = await options.bus.subscribe(usageTotals, (notice) => meter.gossip.hear(notice));
    }
    return { meter, replayed };
  }

  admit(key: ApiKeyRecord, at: Date, notAfter?: number): Admission | Promise<Admission> {
    const time = at.getTime();
    const pool = key.pool ?? null;
    const usage = this.current(key.id, time);
    const pooled = pool ? this.current(pool.id, time) : null;
    if (usage && pooled !== undefined) return this.decide(key, usage, pooled, time);
    const load = (id: string) => this.usage.load(id, at, (keyId, month) => this.durability.unflushed(keyId, month));
    return Promise.all([usage ?? load(key.id), pool ? (pooled ?? load(pool.id)) : null]).then(([own, shared]) => {
      // At notAfter the pipeline's wait may already have answered 503: from then on, count nothing.
      if (notAfter !== undefined && wallClockMs() >= notAfter) throw new DatabaseWaitExceeded();
      return this.decide(key, own, shared, time);
    });
  }

  /** The principal's count if this instance holds it for the month of `time`. */
  private current(id: string, time: number): KeyUsage | undefined {
    const usage = this.usage.get(id);
    return usage && time >= usage.monthStart && time < usage.monthEnd ? usage : undefined;
  }

  // Per request: no dates formatted, no strings built but the RateLimit header; the month, day and
  // policy are worked out once per month, day and plan. A key that shares its organisation's
  // limits (`pooled`) is admitted only within both its own and the organisation's.
  private decide(key: ApiKeyRecord, usage: KeyUsage, pooled: KeyUsage | null, time: number): Admission {
    usage.key = key;
    const second = Math.floor(time / 1000);
    const pool = pooled ? key.pool! : null;
    const own = this.countsOf(usage, key.id, key, second, time);
    const shared = pooled && pool ? this.countsOf(pooled, pool.id, pool, second, time) : null;
    // What the answer reports of the two: the one with less left, which is the one that binds.
    const rate = Math.min(key.requestsPerSecond, pool?.requestsPerSecond ?? Infinity);
    const quota = Math.min(key.monthlyQuota, pool?.monthlyQuota ?? Infinity);
    if (usage.policyRate !== rate || usage.policyQuota !== quota) {
      usage.policyRate = rate;
      usage.policyQuota = quota;
      usage.policy = rateLimitPolicy({ requestsPerSecond: rate, monthlyQuota: quota });
      usage.watchAt = 0;
    }
    // The pool's watch hears of it as a principal of its own, made again only when its plan changes.
    if (pooled && pool && (pooled.key?.monthlyQuota !== pool.monthlyQuota || pooled.key.orgId !== key.orgId)) {
      pooled.key = organisationRecord(key, pool);
      pooled.watchAt = 0;
    }
    const left = (c: AdmissionCounts) => c.monthlyQuota - c.used;
    const reported = shared && left(shared) <= left(own) ? shared : own;
    const headers = (taken: number) => ({
      "ratelimit-policy": usage.policy,
      ratelimit: rateLimit(time, usage.monthEnd, {
        second:
          Math.min(
            own.requestsPerSecond - own.inSecond,
            shared ? shared.requestsPerSecond - shared.inSecond : Infinity,
          ) - taken,
        month: Math.min(left(own), shared ? left(shared) : Infinity) - taken,
      }),
    });
    const counts = (taken: number) => ({
      key: { used: own.used + taken, quota: own.monthlyQuota },
      organisation: shared ? { used: shared.used + taken, quota: shared.monthlyQuota } : null,
    });
    const ownDecision = decideAdmission(own);
    const decision = ownDecision.admit && shared ? decideAdmission(shared) : ownDecision;
    const { watch } = this.options;
    const used = own.used;
    if (!decision.admit) {
      // A quota used up by requests admitted elsewhere is seen here first by the one refused.
      if (watch && used >= usage.watchAt) usage.watchAt = watch(key, used, time, usage.month);
      if (watch && pooled && shared && shared.used >= pooled.watchAt) {
        pooled.watchAt = watch(pooled.key!, shared.used, time, pooled.month);
      }
      const { code, violated, retryAfter } = decision;
      const over = ownDecision.admit ? "organisation" : "key";
      const refused = over === "key" ? own : shared!;
      return {
        admitted: false,
        code,
        violated,
        retryAfter,
        over,
        used: refused.used,
        quota: refused.monthlyQuota,
        counts: counts(0),
        headers: headers(0),
      };
    }

    // Journaled before it is answered: a request whose line cannot be written is not counted.
    this.durability.append(key.id, time);
    let journaled = this.counted(usage, key.id, time);
    if (pooled && pool) {
      this.durability.append(pool.id, time);
      journaled = this.counted(pooled, pool.id, time);
    }
    if (watch && used + 1 >= usage.watchAt) usage.watchAt = watch(key, used + 1, time, usage.month);
    if (watch && pooled && shared && shared.used + 1 >= pooled.watchAt) {
      pooled.watchAt = watch(pooled.key!, shared.used + 1, time, pooled.month);
    }
    // Near a limit the others must hear of this at once, not at the next flush.
    if (this.options.bus && (nearLimit(own) || (shared !== null && nearLimit(shared)))) this.durability.flushSoon();
    return {
      admitted: true,
      used: reported.used + 1,
      quota: reported.monthlyQuota,
      counts: counts(1),
      headers: headers(1),
      journaled,
    };
  }

  /** A principal's counts as a request arrives, its second moved on to the request's. */
  private countsOf(
    usage: KeyUsage,
    id: string,
    limits: Pick<ApiKeyRecord, "monthlyQuota" | "requestsPerSecond">,
    second: number,
    time: number,
  ): AdmissionCounts {
    if (usage.second !== second) {
      usage.second = second;
      usage.secondAdmitted = 0;
    }
    return {
      used: usage.recorded + usage.inFlight + usage.pending,
      inSecond: usage.secondAdmitted + this.gossip.inSecond(id, second),
      monthlyQuota: limits.monthlyQuota,
      requestsPerSecond: limits.requestsPerSecond,
      time,
      monthEnd: usage.monthEnd,
    };
  }

  /** Counts an admitted request of a principal whose line was appended; settles once it is written. */
  private counted(usage: KeyUsage, id: string, time: number): Promise<void> {
    usage.pending++;
    usage.secondAdmitted++;
    if (time < usage.dayStart || time >= usage.dayEnd) {
      usage.dayStart = time - (time % DAY_MS);
      usage.dayEnd = usage.dayStart + DAY_MS;
      usage.day = utcDay(new Date(time));
    }
    return this.durability.count({ usage, keyId: id, month: usage.month, day: usage.day, time });
  }

  rewatch(): void {
    this.usage.rewatch();
  }

  openStream(key: ApiKeyRecord, at: Date): StreamSlot | null {
    const time = at.getTime();
    const own = this.slots.take(key.id, key.concurrentStreams, this.gossip.streamsElsewhere(key.id, time));
    const pool = key.pool;
    if (!own || !pool) return own;
    const shared = this.slots.take(pool.id, pool.concurrentStreams, this.gossip.streamsElsewhere(pool.id, time));
    if (!shared) {
      own.release();
      return null;
    }
    return {
      release: () => {
        own.release();
        shared.release();
      },
    };
  }

  /** What a flush at `at` carries besides the journal's lines: counts in flight and announcements. */
  private cargo(at: number): FlushCargo {
    const shared = this.options.bus !== undefined;
    const repeat = shared && this.slots.repeatDue(at);
    return {
      due: this.slots.anyChanged || repeat,
      board: (tally) => {
        const moved = this.usage.startFlight(tally);
        const streams = this.slots.takeAnnounced(repeat);
        return {
          notices: (totals) => (shared ? this.gossip.notices(totals, tally, streams) : []),
          abort: () => {
            this.usage.abortFlight(moved);
            this.slots.putBack(streams);
          },
          land: (totals) => {
            if (repeat) this.slots.repeated(at);
            this.usage.landFlight(moved, totals);
          },
        };
      },
    };
  }

  stats(): MeterStats {
    return this.durability.stats();
  }

  flush(): Promise<void> {
    return this.durability.flush();
  }

  /** Adds what is left to the database and deletes the journal; a failure leaves it for the next start. */
  async close(): Promise<void> {
    if (this.durability.closed) return;
    this.durability.stop();
    this.unsubscribe?.();
    await this.durability.close();
  }
}

// How often an instance adds its journal to the database. With PostgreSQL the same flush tells the
// other instances what this one admitted, so it is frequent: the bounds in docs/metering.md follow
// from it. PGlite admits one process, so there are no others, and runs one statement at a time for
// the whole process, on its own thread or (PGLITE_THREAD=main) the one that answers requests.
const SHARED_FLUSH_MS = 100;
const EMBEDDED_FLUSH_MS = 1_000;

/** The meter of a server instance on this database: its journal in DATA_DIR/meter. */
export function startInstanceMeter(
  handle: DatabaseHandle,
  config: Pick<Config, "DATA_DIR">,
  bus: ChangeBus,
  now: () => Date,
  watch?: UsageWatch,
): Promise<{ meter: JournalMeter; replayed: number }> {
  const shared = handle.kind === "postgres";
  return JournalMeter.start({
    db: handle.db,
    journalDir: path.join(config.DATA_DIR, "meter"),
    bus: shared ? bus : undefined,
    flushIntervalMs: shared ? SHARED_FLUSH_MS : EMBEDDED_FLUSH_MS,
    now,
    watch,
  });
}
