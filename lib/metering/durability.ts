import { inArray, sql } from "drizzle-orm";
import { publish, usageTotals, type UsageNotice } from "../bus/index.ts";
import type { Database } from "../db/index.ts";
import { meterJournals } from "../db/schema/index.ts";
import { logger } from "../log/index.ts";
import { Journal } from "./journal.ts";
import { lostLines, merged, replayOrphans } from "./replay.ts";
import { add, addTally, merge, type MonthTotal, type Tally } from "./tally.ts";
import type { KeyUsage } from "./usage.ts";

/** How far the meter's journal is ahead of the database, for the metrics. */
export type MeterStats = {
  flushLagSeconds: number;
  journalBytes: number;
  unflushedBytes: number;
  flushFailures: number;
};

/** A request admitted and counted in memory, whose line the journal writes next. */
export type Counted = { usage: KeyUsage; keyId: string; month: string; day: string; time: number };

/** Requests admitted since the journal was last written: answered once their lines are written. */
type JournalBatch = {
  admitted: Counted[];
  written: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
};

/** What a flush carries besides the journal's lines: the counts in flight and the announcements. */
export type FlushCargo = {
  /** Whether there is something to announce though nothing was journaled. */
  due: boolean;
  /** Takes this flush's counts and announcements; `tally` is what the flush adds. */
  board(tally: Tally): Flight;
};

export type Flight = {
  /** The announcements to send in the flush's transaction, once its totals are known. */
  notices(totals: MonthTotal[]): UsageNotice[];
  /** The transaction failed: what it carried is for the next flush. */
  abort(): void;
  /** The transaction committed, with these month totals. */
  land(totals: MonthTotal[]): void;
};

/** As in MeterOptions. */
export type DurabilityOptions = {
  db: Database;
  journalDir: string;
  flushIntervalMs: number;
  now: () => Date;
};

// A journal is sealed and a new one begun at this size or age, so that files stay small.
const ROTATE_BYTES = 8 * 1024 * 1024;
const ROTATE_MS = 60_000;
// How often a running instance looks for journals of instances on its DATA_DIR that died.
const ADOPT_EVERY_MS = 10_000;

/**
 * The meter's counts on their way to the database: the journal each admitted request is written
 * to before it is answered (one write per turn of the event loop), the tally of what it holds
 * beyond the database, the flushes that add it there, and the replay of journals whose instance
 * ended. docs/metering.md gives the design.
 */
export class Durability {
  private journal: Journal | null;
  private batch: JournalBatch | null = null;
  private readonly sealed: Journal[] = [];
  private tally: Tally = new Map();
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
  private readonly options: DurabilityOptions;
  private readonly cargo: (at: number) => FlushCargo;

  constructor(options: DurabilityOptions, cargo: (at: number) => FlushCargo) {
    this.options = options;
    this.cargo = cargo;
    this.journal = Journal.create(options.journalDir);
    this.timer = setInterval(() => void this.flush(), options.flushIntervalMs);
    this.timer.unref();
    this.adopter = setInterval(() => void this.adoptOrphans(), ADOPT_EVERY_MS);
    this.adopter.unref();
  }

  get closed(): boolean {
    return this.journal === null;
  }

  /** Adds an admitted request's line to the next write; throws once the meter is closed. */
  append(keyId: string, time: number): void {
    if (!this.journal) throw new Error("the meter is closed");
    this.journal.append(keyId, time);
    if (this.unflushedSince === 0) this.unflushedSince = time;
  }

  /** Counts an appended request; settles once its line is written (rejects if it could not be). */
  count(counted: Counted): Promise<void> {
    add(this.tally, counted.keyId, counted.month, counted.day, counted.time);
    return this.inBatch(counted);
  }

  /** Requests of the key's month journaled and not yet added to the database. */
  unflushed(keyId: string, month: string): number {
    return this.tally.get(keyId)?.months.get(month) ?? 0;
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

  /** Adds a request to the batch the journal writes next, which is written once this turn is done. */
  private inBatch(admitted: Counted): Promise<void> {
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

  private uncount({ usage, keyId, month, day, time }: Counted): void {
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

  /** A flush as soon as this turn of the event loop is done, however many requests ask for one. */
  flushSoon(): void {
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
    const cargo = this.cargo(at);
    if (this.tally.size === 0 && this.sealed.length === 0 && !cargo.due) return;

    // Taken together, with no await between: the tally holds exactly the lines up to these sizes.
    const tally = this.tally;
    this.tally = new Map();
    this.inFlightSince = this.unflushedSince;
    this.unflushedSince = 0;
    const journals = [...(this.journal ? [this.journal] : []), ...this.sealed];
    const sizes = journals.map((j) => j.size);
    const sealed = [...this.sealed];
    const flight = cargo.board(tally);

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
        for (const notice of flight.notices(written)) await publish(tx, usageTotals, notice);
        return written;
      });
    } catch (error) {
      merge(this.tally, tally);
      if (this.inFlightSince !== 0) {
        this.unflushedSince =
          this.unflushedSince === 0 ? this.inFlightSince : Math.min(this.unflushedSince, this.inFlightSince);
      }
      this.inFlightSince = 0;
      flight.abort();
      throw error;
    }
    journals.forEach((j, i) => (j.flushedBytes = sizes[i]!));
    this.inFlightSince = 0;
    flight.land(totals);
    if (sealed.length > 0) await this.retire(sealed);
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

  /** Stops the timers: nothing is flushed or adopted but what `close` does. */
  stop(): void {
    clearInterval(this.timer);
    clearInterval(this.adopter);
  }

  /** Adds what is left to the database and closes the journal; a failure leaves it for the next start. */
  async close(): Promise<void> {
    if (!this.journal) return;
    this.commitJournal();
    this.sealed.push(this.journal);
    this.journal = null;
    await this.flush();
    for (const journal of this.sealed) journal.close();
  }
}
