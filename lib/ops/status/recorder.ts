import { lt, sql } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { statusMinutes } from "../../db/schema/index.ts";
import type { FeedViews } from "../../feed/views.ts";
import { feedFreshness } from "./feed-cadence.ts";
import { emptyHistogram, observe, type Histogram, type MinuteRecord } from "./figures.ts";

// What this instance records of each minute for the status page: readiness at every sample,
// each sport's feed freshness, REST latencies as answered and the lag from a change's commit to
// this instance's streams. Written once the minute is over; kept in memory while the database
// cannot take it, and written when it can.

const SAMPLE_MS = 10_000;
const KEEP_DAYS = 31;
const MAX_PENDING = 240;

export type RecorderOptions = {
  /**
   * A feed is fresh while its newest change is at most this old, when it has live events; without
   * it, each sport's own quiet time (feed-cadence.ts).
   */
  freshSeconds?: number;
  sampleMs?: number;
  now?: () => Date;
};

/** What the recorder reads of the feed: the present's events, and each revision as it arrives. */
export type RecordedViews = Pick<FeedViews, "follow"> & {
  mirror(view: "present"): {
    inListOrder(): readonly { event: { sport: string; status: string; period: string; updated_at: string } }[];
  };
};

type Minute = { start: number; ready: boolean; feeds: Map<string, boolean>; rest: Histogram; streamLag: Histogram };

const sparse = (histogram: Histogram): Record<string, number> =>
  Object.fromEntries(histogram.flatMap((count, i) => (count ? [[String(i), count]] : [])));

export class StatusRecorder {
  private readonly db: Database;
  private readonly views: RecordedViews;
  private readonly instance: string;
  private readonly ready: () => Promise<boolean>;
  private readonly freshMs: number | null;
  private readonly sampleMs: number;
  private readonly now: () => Date;
  private readonly lastChange = new Map<string, number>();
  private readonly pending: MinuteRecord[] = [];
  private current: Minute;
  private timer: NodeJS.Timeout | undefined;
  private unfollow: (() => void) | undefined;
  private flushes = 0;
  private sampling: Promise<void> = Promise.resolve();

  constructor(
    db: Database,
    views: RecordedViews,
    instance: string,
    ready: () => Promise<boolean>,
    options: RecorderOptions = {},
  ) {
    this.db = db;
    this.views = views;
    this.instance = instance;
    this.ready = ready;
    this.freshMs = options.freshSeconds === undefined ? null : options.freshSeconds * 1000;
    this.sampleMs = options.sampleMs ?? SAMPLE_MS;
    this.now = options.now ?? (() => new Date());
    this.current = this.minuteAt(this.now().getTime());
  }

  start(): void {
    for (const document of this.views.mirror("present").inListOrder()) {
      const at = Date.parse(document.event.updated_at);
      if (at > (this.lastChange.get(document.event.sport) ?? 0)) this.lastChange.set(document.event.sport, at);
    }
    this.unfollow = this.views.follow("present", {
      revision: (revision, document) => {
        const at = revision.recordedAt.getTime();
        if (at > (this.lastChange.get(document.event.sport) ?? 0)) this.lastChange.set(document.event.sport, at);
        observe(this.current.streamLag, Math.max(0, this.now().getTime() - at));
      },
      applied: () => {},
      reset: () => {},
    });
    this.timer = setInterval(() => void this.sample(), this.sampleMs);
    this.timer.unref();
  }

  /** One REST answer's time, as the API served it. */
  observeRest(seconds: number): void {
    observe(this.current.rest, seconds * 1000);
  }

  /**
   * Checks readiness and the feeds' freshness; closes the minute once it is over. One sample at a
   * time, so two never close the same minute and a stop can wait for the one under way.
   */
  sample(): Promise<void> {
    // After the one before it, whether that one failed or not: a failure is its caller's.
    const sampled = this.sampling.catch(() => {}).then(() => this.sampleNow());
    this.sampling = sampled;
    return sampled;
  }

  private async sampleNow(): Promise<void> {
    const ready = await this.ready().catch(() => false);
    const at = this.now().getTime();
    if (at - this.current.start >= 60_000) {
      this.close();
      this.current = this.minuteAt(at);
    }
    this.current.ready &&= ready;
    for (const [sport, fresh] of this.freshnessAt(at)) {
      this.current.feeds.set(sport, (this.current.feeds.get(sport) ?? true) && fresh);
    }
    await this.flush();
  }

  /** The current state, for the page's "now": readiness and each live sport's freshness. */
  freshness(): Map<string, boolean> {
    return this.freshnessAt(this.now().getTime());
  }

  private freshnessAt(at: number): Map<string, boolean> {
    const events = this.views
      .mirror("present")
      .inListOrder()
      .map((document) => document.event);
    if (this.freshMs === null) return feedFreshness(events, this.lastChange, at);
    const feeds = new Map<string, boolean>();
    for (const event of events) {
      if (event.status === "live") feeds.set(event.sport, at - (this.lastChange.get(event.sport) ?? 0) <= this.freshMs);
    }
    return feeds;
  }

  /**
   * Samples no more, and resolves once a sample under way has ended: the instance closes the
   * database after this, and a minute being written then was lost without a word.
   */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.unfollow?.();
    await this.sampling.catch(() => {});
  }

  private minuteAt(ms: number): Minute {
    return {
      start: Math.floor(ms / 60_000) * 60_000,
      ready: true,
      feeds: new Map(),
      rest: emptyHistogram(),
      streamLag: emptyHistogram(),
    };
  }

  private close(): void {
    const { start, ready, feeds, rest, streamLag } = this.current;
    this.pending.push({
      minute: new Date(start),
      instance: this.instance,
      ready,
      feeds: Object.fromEntries(feeds),
      rest,
      streamLag,
    });
    // The oldest go first when the database stays away for hours.
    if (this.pending.length > MAX_PENDING) this.pending.splice(0, this.pending.length - MAX_PENDING);
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const rows = this.pending.map((record) => ({
      minute: record.minute,
      instance: record.instance,
      ready: record.ready,
      feeds: record.feeds,
      rest: sparse(record.rest),
      streamLag: sparse(record.streamLag),
    }));
    try {
      await this.db.insert(statusMinutes).values(rows).onConflictDoNothing();
      this.pending.length = 0;
      if (this.flushes++ % 60 === 0) {
        await this.db
          .delete(statusMinutes)
          .where(lt(statusMinutes.minute, sql`now() - make_interval(days => ${KEEP_DAYS})`));
      }
    } catch {
      // The database is away: these minutes wait in memory, and the page says it is unreachable.
    }
  }
}
