import { randomBytes } from "node:crypto";
import { eq, inArray, sql } from "drizzle-orm";
import { utcDay } from "../clock.ts";
import path from "node:path";
import type { Config } from "../config.ts";
import { rowsOf, type Database, type DatabaseHandle } from "../db/index.ts";
import { DatabaseWaitExceeded } from "../db/wait.ts";
import { meterJournals } from "../db/schema/index.ts";
import type { ChangeBus } from "../feed/bus.ts";
import type { ApiKeyRecord } from "../keys/lookup.ts";
import { claimOrphans, Journal, readJournal, removeJournalFile } from "./journal.ts";
import { monthOf, nextMonthStart, rateLimit, rateLimitPolicy, secondsUntil, type Policy } from "./policies.ts";
import { add, addTally, count, memberOf, merge, type MonthTotal, type Tally } from "./tally.ts";
import { logger } from "../log/index.ts";

export type Admission =
  | {
      admitted: true;
      used: number;
      quota: number;
      headers: Record<string, string>;
      /**
       * Settles once the request's count is journaled: answer it only then. Rejects when the
       * journal could not be written; the request is then not counted, and must not be answered
       * as served. Absent when the count needs no write.
       */
      journaled?: Promise<void>;
    }
  | {
      admitted: false;
      code: "rate_limited" | "quota_exceeded";
      violated: Policy;
      retryAfter: number;
      used: number;
      quota: number;
      headers: Record<string, string>;
    };

/** A stream's place in its key's concurrent-stream limit; `release` when the stream ends. */
export type StreamSlot = { release(): void };

/**
 * The metering hook of the API: decides whether a request of a known, active key is admitted, and
 * counts it if so. `used` includes the request being answered.
 */
/** How far the meter's journal is ahead of the database, for the metrics. */
export type MeterStats = {
  flushLagSeconds: number;
  journalBytes: number;
  unflushedBytes: number;
  flushFailures: number;
};

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

/** Requests admitted since the journal was last written: answered once their lines are written. */
type JournalBatch = {
  admitted: { usage: KeyUsage; keyId: string; month: string; day: string; time: number }[];
  written: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
};

/** What other instances announce on USAGE_CHANNEL after each of their flushes. */
type Notice = {
  i: string; // the instance
  t: [keyId: string, month: string, total: number][]; // month totals after its flush
  s: [keyId: string, second: number, admitted: number][]; // its admissions in the current second
  o: [keyId: string, open: number][]; // its open streams
};

export const USAGE_CHANNEL = "usage_totals";
// pg_notify takes at most 8000 bytes; an entry is under 90, so a notice of 80 fits.
const NOTICE_ENTRIES = 80;
// A journal is sealed and a new one begun at this size or age, so that files stay small.
const ROTATE_BYTES = 8 * 1024 * 1024;
const ROTATE_MS = 60_000;
// Another instance's open streams count until it has not repeated them for this long (it died).
const STREAMS_STALE_MS = 15_000;
const STREAMS_REPEAT_MS = 5_000;
// How often a running instance looks for journals of instances on its DATA_DIR that died.
const ADOPT_EVERY_MS = 10_000;
const DAY_MS = 86_400_000;

/** One key's count for the current month, as this instance knows it. */
type KeyUsage = {
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
};

type Peer = { second: number; admitted: number };
type PeerStreams = { open: number; at: number };

export type MeterOptions = {
  db: Database;
  /** Where this instance's journal lives (DATA_DIR/meter). */
  journalDir: string;
  /** How often the journal's new lines are added to the database. */
  flushIntervalMs: number;
  /** Instances sharing a PostgreSQL database hear each other's counts on this bus. */
  bus?: ChangeBus;
  now: () => Date;
};

/**
 * The meter: exact on one instance, never losing a counted request, cheap per request.
 *
 * - Each admitted request is appended to this instance's journal (write(2), no fsync) before it
 *   is answered, and counted in memory. The requests admitted in one turn of the event loop share
 *   one write, made once the turn has handled every request that was waiting (group commit);
 *   their answers wait for it. If it fails, none of them is counted and each is answered 503.
 * - Every `flushIntervalMs` the counts since the last flush are added to usage_monthly,
 *   usage_daily and api_keys.last_used_at in one transaction, which also records how far the
 *   journal has been added. That transaction commits asynchronously (no WAL flush wait): it is
 *   the journal that makes a count durable, and a journal file is deleted only after a
 *   synchronous commit has made everything before it durable.
 * - At start-up, journals left by processes that are gone are replayed from where their last
 *   committed flush stopped, so each admitted request is added exactly once.
 * - Instances sharing PostgreSQL announce, with each flush, their month totals, their admissions in
 *   the current second and their open streams (NOTIFY usage_totals). Each instance decides alone
 *   from what it knows; what it does not yet know is what the others admitted since their last
 *   announcement (docs/metering.md gives the bounds that follow).
 */
export class JournalMeter implements Meter {
  readonly instance = randomBytes(8).toString("hex");
  private journal: Journal | null;
  private batch: JournalBatch | null = null;
  private readonly sealed: Journal[] = [];
  private readonly usage = new Map<string, KeyUsage>();
  private readonly loading = new Map<string, Promise<KeyUsage>>();
  private tally: Tally = new Map();
  private readonly peers = new Map<string, Map<string, Peer>>();
  private readonly streams = new Map<string, number>();
  private readonly peerStreams = new Map<string, Map<string, PeerStreams>>();
  private streamsChanged = new Set<string>();
  private streamsRepeatedAt = 0;
  private flushing: Promise<void> = Promise.resolve();
  private flushScheduled = false;
  private flushQueued = false;
  private failing = false;
  private flushFailures = 0;
  // When the oldest request not yet in the database was admitted (0: none), journaled only and in a
  // flush under way: how far the database is behind, for the metrics.
  private unflushedSince = 0;
  private inFlightSince = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly adopter: NodeJS.Timeout;
  private unsubscribe: (() => void) | undefined;
  private readonly options: MeterOptions;

  private constructor(options: MeterOptions) {
    this.options = options;
    this.journal = Journal.create(options.journalDir);
    this.timer = setInterval(() => void this.flush(), options.flushIntervalMs);
    this.timer.unref();
    this.adopter = setInterval(() => void this.adoptOrphans(), ADOPT_EVERY_MS);
    this.adopter.unref();
  }

  /**
   * Replays the journal of an instance on the same DATA_DIR that died while this one runs, so its
   * counts reach the database without waiting for a restart.
   */
  private adoptOrphans(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      // Taken here, in the flush chain, where no rotation can add a journal meanwhile: our own
      // journals carry our pid, which claimOrphans otherwise takes for a predecessor's.
      const own = new Set([...(this.journal ? [this.journal.id] : []), ...this.sealed.map((j) => j.id)]);
      try {
        const added = await replayOrphans(this.options.db, this.options.journalDir, own);
        if (added > 0)
          logger().info(
            { requests: added },
            `Metering: ${added} requests replayed from the journal of an instance that ended`,
          );
      } catch (error) {
        logger().error({ err: error }, "Replaying an ended instance's journal failed; it is tried again");
      }
    });
    return this.flushing;
  }

  /**
   * Replays the journals of processes that are gone, then starts this instance's own journal.
   * Returns how many requests the replay added.
   */
  static async start(options: MeterOptions): Promise<{ meter: JournalMeter; replayed: number }> {
    const replayed = await replayOrphans(options.db, options.journalDir);
    const meter = new JournalMeter(options);
    if (options.bus) {
      meter.unsubscribe = await options.bus.subscribe(USAGE_CHANNEL, (payload) => meter.hear(payload));
    }
    return { meter, replayed };
  }

  admit(key: ApiKeyRecord, at: Date, notAfter?: number): Admission | Promise<Admission> {
    const time = at.getTime();
    const usage = this.usage.get(key.id);
    if (usage && time >= usage.monthStart && time < usage.monthEnd) return this.decide(key, usage, time);
    return this.load(key.id, at).then((loaded) => {
      // At notAfter the pipeline's wait may already have answered 503: from then on, count nothing.
      if (notAfter !== undefined && Date.now() >= notAfter) throw new DatabaseWaitExceeded();
      return this.decide(key, loaded, time);
    });
  }

  // Per request: no dates formatted, no strings built but the RateLimit header; the month, day and
  // policy are worked out once per month, day and plan.
  private decide(key: ApiKeyRecord, usage: KeyUsage, time: number): Admission {
    const second = Math.floor(time / 1000);
    if (usage.second !== second) {
      usage.second = second;
      usage.secondAdmitted = 0;
    }
    if (usage.policyRate !== key.requestsPerSecond || usage.policyQuota !== key.monthlyQuota) {
      usage.policyRate = key.requestsPerSecond;
      usage.policyQuota = key.monthlyQuota;
      usage.policy = rateLimitPolicy(key);
    }
    const used = usage.recorded + usage.inFlight + usage.pending;
    const inSecond = usage.secondAdmitted + this.peersInSecond(key.id, second);
    const headers = (taken: number) => ({
      "ratelimit-policy": usage.policy,
      ratelimit: rateLimit(time, usage.monthEnd, {
        second: key.requestsPerSecond - inSecond - taken,
        month: key.monthlyQuota - used - taken,
      }),
    });
    const refusal = (code: "rate_limited" | "quota_exceeded", violated: Policy, retryAfter: number): Admission => ({
      admitted: false,
      code,
      violated,
      retryAfter,
      used,
      quota: key.monthlyQuota,
      headers: headers(0),
    });
    if (used >= key.monthlyQuota) return refusal("quota_exceeded", "month", secondsUntil(time, usage.monthEnd));
    if (inSecond >= key.requestsPerSecond) return refusal("rate_limited", "second", 1);

    // Journaled before it is answered: a request whose line cannot be written is not counted.
    if (!this.journal) throw new Error("the meter is closed");
    this.journal.append(key.id, time);
    if (this.unflushedSince === 0) this.unflushedSince = time;
    usage.pending++;
    usage.secondAdmitted++;
    if (time < usage.dayStart || time >= usage.dayEnd) {
      usage.dayStart = time - (time % DAY_MS);
      usage.dayEnd = usage.dayStart + DAY_MS;
      usage.day = utcDay(new Date(time));
    }
    add(this.tally, key.id, usage.month, usage.day, time);
    const journaled = this.inBatch({ usage, keyId: key.id, month: usage.month, day: usage.day, time });
    // Near a limit the others must hear of this at once, not at the next flush: what they have not
    // heard is what they can admit beyond it.
    if (
      this.options.bus &&
      (key.monthlyQuota - used - 1 <= key.requestsPerSecond || inSecond + 1 >= key.requestsPerSecond)
    ) {
      this.flushSoon();
    }
    return { admitted: true, used: used + 1, quota: key.monthlyQuota, headers: headers(1), journaled };
  }

  /** Adds a request to the batch the journal writes next, which is written once this turn is done. */
  private inBatch(admitted: JournalBatch["admitted"][number]): Promise<void> {
    if (!this.batch) {
      const { promise, resolve, reject } = Promise.withResolvers<void>();
      // Each request's answer waits on it and sees a failure; one counted by a caller that does not
      // wait (a test, a script) must not turn a failed write into an unhandled rejection.
      promise.catch(() => {});
      this.batch = { admitted: [], written: promise, resolve, reject };
      // setImmediate: after the poll phase has read every request that was waiting, not after each.
      setImmediate(() => this.commitJournal());
    }
    this.batch.admitted.push(admitted);
    return this.batch.written;
  }

  /** Writes the batch's lines; if that fails, takes its requests out of the counts again. */
  private commitJournal(): void {
    const batch = this.batch;
    if (!batch) return;
    this.batch = null;
    try {
      this.journal!.commit();
    } catch (error) {
      for (const request of batch.admitted) this.uncount(request);
      batch.reject(error);
      return;
    }
    batch.resolve();
  }

  private uncount({ usage, keyId, month, day, time }: JournalBatch["admitted"][number]): void {
    usage.pending--;
    if (usage.second === Math.floor(time / 1000)) usage.secondAdmitted--;
    const entry = this.tally.get(keyId);
    if (!entry) return;
    for (const [counts, period] of [
      [entry.months, month],
      [entry.days, day],
    ] as const) {
      const left = (counts.get(period) ?? 0) - 1;
      if (left > 0) counts.set(period, left);
      else counts.delete(period);
    }
    if (entry.months.size === 0) this.tally.delete(keyId);
    if (this.tally.size === 0) this.unflushedSince = 0;
  }

  private peersInSecond(keyId: string, second: number): number {
    const peers = this.peers.get(keyId);
    if (!peers) return 0;
    let admitted = 0;
    for (const peer of peers.values()) if (peer.second === second) admitted += peer.admitted;
    return admitted;
  }

  private load(keyId: string, at: Date): Promise<KeyUsage> {
    const month = monthOf(at);
    const id = `${keyId}:${month}`;
    let pending = this.loading.get(id);
    if (!pending) {
      pending = (async () => {
        const userId = memberOf(keyId);
        const [row] = rowsOf<{ requests: string | number }>(
          await this.options.db.execute(
            userId === undefined
              ? sql`select requests from usage_monthly where key_id = ${keyId} and month = ${month}`
              : sql`select requests from member_usage_monthly where user_id = ${userId} and month = ${month}`,
          ),
        );
        // Requests of that month this instance journaled and has not flushed (the clock moved back
        // to a month it had left) are still ours to count.
        const unflushed = this.tally.get(keyId)?.months.get(month) ?? 0;
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
          pending: unflushed,
          second: 0,
          secondAdmitted: 0,
        };
        this.usage.set(keyId, usage);
        return usage;
      })().finally(() => this.loading.delete(id));
      this.loading.set(id, pending);
    }
    return pending;
  }

  openStream(key: ApiKeyRecord, at: Date): StreamSlot | null {
    const own = this.streams.get(key.id) ?? 0;
    let open = own;
    const peers = this.peerStreams.get(key.id);
    for (const [instance, peer] of peers ?? []) {
      if (at.getTime() - peer.at < STREAMS_STALE_MS) open += peer.open;
      else peers!.delete(instance); // an instance that stopped repeating its streams has ended
    }
    if (open >= key.concurrentStreams) return null;
    this.streams.set(key.id, own + 1);
    this.streamsChanged.add(key.id);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const left = (this.streams.get(key.id) ?? 1) - 1;
        if (left > 0) this.streams.set(key.id, left);
        else this.streams.delete(key.id);
        this.streamsChanged.add(key.id);
      },
    };
  }

  /** Another instance's notice. Totals only ever raise what we know; our own notices are skipped. */
  private hear(payload: string): void {
    const notice = JSON.parse(payload) as Notice;
    if (notice.i === this.instance) return;
    for (const [keyId, month, total] of notice.t) {
      const usage = this.usage.get(keyId);
      if (!usage || usage.month !== month) continue;
      // While our flush is in flight we cannot tell whether this total includes it; it is applied
      // once the flush has answered.
      if (usage.inFlight > 0) usage.noticed = Math.max(usage.noticed, total);
      else usage.recorded = Math.max(usage.recorded, total);
    }
    for (const [keyId, second, admitted] of notice.s) {
      let peers = this.peers.get(keyId);
      if (!peers) {
        peers = new Map();
        this.peers.set(keyId, peers);
      }
      peers.set(notice.i, { second, admitted });
      for (const [instance, peer] of peers) if (peer.second < second - 1) peers.delete(instance);
    }
    const at = this.options.now().getTime();
    for (const [keyId, open] of notice.o) {
      let peers = this.peerStreams.get(keyId);
      if (!peers) {
        peers = new Map();
        this.peerStreams.set(keyId, peers);
      }
      if (open > 0) peers.set(notice.i, { open, at });
      else peers.delete(notice.i);
    }
  }

  private flushSoon(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      void this.flush();
    });
  }

  stats(): MeterStats {
    const journals = [...(this.journal ? [this.journal] : []), ...this.sealed];
    const oldest = [this.unflushedSince, this.inFlightSince].filter((t) => t !== 0);
    return {
      flushLagSeconds: oldest.length ? Math.max(0, this.options.now().getTime() - Math.min(...oldest)) / 1000 : 0,
      journalBytes: journals.reduce((sum, j) => sum + j.size, 0),
      unflushedBytes: journals.reduce((sum, j) => sum + j.size - j.flushedBytes, 0),
      flushFailures: this.flushFailures,
    };
  }

  /**
   * Adds what was journaled since the last flush to the database. Flushes run one at a time, and
   * at most one waits behind the running one: it takes everything journaled until it starts.
   */
  flush(): Promise<void> {
    if (this.flushQueued) return this.flushing;
    this.flushQueued = true;
    this.flushing = this.flushing.then(async () => {
      this.flushQueued = false;
      try {
        await this.flushOnce();
        if (this.failing) {
          logger().info("Metering: request counts reach the database again");
          this.failing = false;
        }
      } catch (error) {
        this.flushFailures++;
        // Said once per outage, not on every flush.
        if (!this.failing) {
          this.failing = true;
          logger().error(
            { err: error },
            "Metering: adding request counts to the database failed; they stay in the journal and are added when it answers",
          );
        }
      }
    });
    return this.flushing;
  }

  private async flushOnce(): Promise<void> {
    // The tally and the journal's size are taken together below: both must cover the same lines.
    this.commitJournal();
    const at = this.options.now().getTime();
    const journal = this.journal;
    if (
      journal &&
      (journal.size >= ROTATE_BYTES || (journal.size > 0 && Date.now() - journal.createdAt >= ROTATE_MS))
    ) {
      this.sealed.push(journal);
      this.journal = Journal.create(this.options.journalDir);
    }
    const repeatStreams =
      this.options.bus !== undefined && this.streams.size > 0 && at - this.streamsRepeatedAt >= STREAMS_REPEAT_MS;
    if (this.tally.size === 0 && this.sealed.length === 0 && this.streamsChanged.size === 0 && !repeatStreams) return;

    // Taken together, with no await between: the tally holds exactly the lines up to these sizes.
    const tally = this.tally;
    this.tally = new Map();
    this.inFlightSince = this.unflushedSince;
    this.unflushedSince = 0;
    const journals = [...(this.journal ? [this.journal] : []), ...this.sealed];
    const sizes = journals.map((j) => j.size);
    const sealed = [...this.sealed];
    const moved = this.startFlight(tally);
    const streams = repeatStreams ? new Set([...this.streams.keys(), ...this.streamsChanged]) : this.streamsChanged;
    this.streamsChanged = new Set();

    let totals: MonthTotal[];
    try {
      // The lines this flush adds reach the disk first: the flush commits without waiting for the
      // database's own disk, so a power cut must not take both.
      await Promise.all(journals.map((journal) => journal.sync()));
      totals = await this.options.db.transaction(async (tx) => {
        await tx.execute(sql`set local synchronous_commit = off`);
        const lost = await lostLines(tx, journals);
        const written = await addTally(
          tx,
          lost.size > 0 ? merged(tally, lost) : tally,
          journals.map((j, i) => ({ id: j.id, flushedBytes: sizes[i]! })),
        );
        if (this.options.bus) {
          for (const payload of this.notices(written, tally, streams)) {
            await tx.execute(sql`select pg_notify(${USAGE_CHANNEL}, ${payload})`);
          }
        }
        return written;
      });
    } catch (error) {
      merge(this.tally, tally);
      if (this.inFlightSince !== 0) {
        this.unflushedSince =
          this.unflushedSince === 0 ? this.inFlightSince : Math.min(this.unflushedSince, this.inFlightSince);
      }
      this.inFlightSince = 0;
      for (const [usage, n] of moved) {
        usage.inFlight -= n;
        usage.pending += n;
      }
      for (const keyId of streams) this.streamsChanged.add(keyId);
      throw error;
    }
    journals.forEach((j, i) => (j.flushedBytes = sizes[i]!));
    this.inFlightSince = 0;
    if (repeatStreams) this.streamsRepeatedAt = at;
    const byMonth = new Map(totals.map((t) => [`${t.keyId}:${t.month}`, t.requests]));
    for (const [usage, n, keyId] of moved) {
      usage.inFlight -= n;
      const total = byMonth.get(`${keyId}:${usage.month}`) ?? 0;
      usage.recorded = Math.max(usage.recorded + n, total, usage.noticed);
    }
    if (sealed.length > 0) await this.retire(sealed);
  }

  /** Moves this flush's requests of each key's current month from pending to in flight. */
  private startFlight(tally: Tally): [KeyUsage, number, string][] {
    const moved: [KeyUsage, number, string][] = [];
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

  /** This flush's announcement to the other instances, in pieces that fit pg_notify. */
  private notices(totals: MonthTotal[], tally: Tally, streams: Set<string>): string[] {
    const entries: ((notice: Notice) => void)[] = [];
    for (const { keyId, month, requests } of totals) entries.push((n) => n.t.push([keyId, month, requests]));
    for (const keyId of tally.keys()) {
      const usage = this.usage.get(keyId);
      if (usage) entries.push((n) => n.s.push([keyId, usage.second, usage.secondAdmitted]));
    }
    for (const keyId of streams) entries.push((n) => n.o.push([keyId, this.streams.get(keyId) ?? 0]));
    const payloads: string[] = [];
    for (let i = 0; i < entries.length; i += NOTICE_ENTRIES) {
      const notice: Notice = { i: this.instance, t: [], s: [], o: [] };
      for (const add of entries.slice(i, i + NOTICE_ENTRIES)) add(notice);
      payloads.push(JSON.stringify(notice));
    }
    return payloads;
  }

  /**
   * Deletes journals whose every line is in the database. A synchronous commit first: it makes the
   * asynchronous commits before it durable too, so no line is deleted before its count is safe.
   */
  private async retire(journals: Journal[]): Promise<void> {
    const ids = journals.map((j) => j.id);
    await this.options.db
      .update(meterJournals)
      .set({ updatedAt: sql`now()` })
      .where(inArray(meterJournals.id, ids));
    for (const journal of journals) {
      journal.remove();
      this.sealed.splice(this.sealed.indexOf(journal), 1);
    }
    await this.options.db.delete(meterJournals).where(inArray(meterJournals.id, ids));
  }

  /** Adds what is left to the database and deletes the journal; a failure leaves it for the next start. */
  async close(): Promise<void> {
    if (!this.journal) return;
    clearInterval(this.timer);
    clearInterval(this.adopter);
    this.unsubscribe?.();
    this.commitJournal();
    this.sealed.push(this.journal);
    this.journal = null;
    await this.flush();
    for (const journal of this.sealed) journal.close();
  }
}

// How often an instance adds its journal to the database. With PostgreSQL the same flush tells the
// other instances what this one admitted, so it is frequent: the bounds in docs/metering.md follow
// from it. PGlite admits one process, so there are no others, and every write runs on the thread
// that answers requests.
const SHARED_FLUSH_MS = 100;
const EMBEDDED_FLUSH_MS = 1_000;

/** The meter of a server instance on this database: its journal in DATA_DIR/meter. */
export function startInstanceMeter(
  handle: DatabaseHandle,
  config: Pick<Config, "DATA_DIR">,
  bus: ChangeBus,
  now: () => Date,
): Promise<{ meter: JournalMeter; replayed: number }> {
  const shared = handle.kind === "postgres";
  return JournalMeter.start({
    db: handle.db,
    journalDir: path.join(config.DATA_DIR, "meter"),
    bus: shared ? bus : undefined,
    flushIntervalMs: shared ? SHARED_FLUSH_MS : EMBEDDED_FLUSH_MS,
    now,
  });
}

function merged(a: Tally, b: Tally): Tally {
  const result: Tally = new Map();
  merge(result, a);
  merge(result, b);
  return result;
}

/**
 * Lines this instance flushed that the database no longer has: its asynchronous commits are lost
 * when PostgreSQL itself crashes before writing them. The journal row then says less than we last
 * committed, and those lines are read back from the journal and added again.
 */
async function lostLines(tx: Pick<Database, "execute">, journals: Journal[]): Promise<Tally> {
  const lost: Tally = new Map();
  const flushed = journals.filter((j) => j.flushedBytes > 0);
  if (flushed.length === 0) return lost;
  const rows = rowsOf<{ id: string; flushed_bytes: string | number }>(
    await tx.execute(
      sql`select id, flushed_bytes from meter_journals where id in ${flushed.map((j) => j.id)} for update`,
    ),
  );
  const stored = new Map(rows.map((r) => [r.id, Number(r.flushed_bytes)]));
  for (const journal of flushed) {
    const from = stored.get(journal.id) ?? 0;
    if (from >= journal.flushedBytes) continue;
    logger().warn(
      { journal: journal.id },
      "Metering: the database lost counts it had committed; adding them again from the journal",
    );
    for (const record of readJournal(journal.file, from, journal.flushedBytes).records)
      count(lost, record.keyId, record.at);
  }
  return lost;
}

/** Replays every journal in `dir` whose process is gone; returns the requests it added. */
async function replayOrphans(db: Database, dir: string, own?: ReadonlySet<string>): Promise<number> {
  let added = 0;
  for (const orphan of claimOrphans(dir, own)) {
    const [row] = rowsOf<{ flushed_bytes: string | number }>(
      await db.execute(sql`select flushed_bytes from meter_journals where id = ${orphan.id}`),
    );
    const { records, end } = readJournal(orphan.file, Number(row?.flushed_bytes ?? 0));
    const tally: Tally = new Map();
    for (const record of records) count(tally, record.keyId, record.at);
    // A synchronous commit: the file is deleted right after it.
    await db.transaction((tx) => addTally(tx, tally, [{ id: orphan.id, flushedBytes: end }]));
    removeJournalFile(orphan.file);
    await db.delete(meterJournals).where(eq(meterJournals.id, orphan.id));
    added += records.length;
  }
  return added;
}
