import { gte } from "drizzle-orm";
import type { DatabaseHandle } from "../../db/index.ts";
import { statusMinutes } from "../../db/schema/index.ts";
import { readiness } from "../../health.ts";
import { emptyHistogram, type Histogram, type MinuteRecord } from "./figures.ts";
import { recentIncidents } from "./incidents.ts";
import type { StatusRecorder } from "./recorder.ts";
import { statusReport, type StatusReport } from "./report.ts";

// The status page's document, read at most every 30 seconds, so that a page anyone may load in a
// loop costs the database nothing more; while the database is away, the last one, saying so.

const CACHE_MS = 30_000;

const dense = (counts: Record<string, number>): Histogram => {
  const histogram = emptyHistogram();
  for (const [index, count] of Object.entries(counts)) histogram[Number(index)] = count;
  return histogram;
};

export class StatusService {
  private readonly handle: DatabaseHandle;
  private readonly recorder: StatusRecorder;
  private readonly now: () => Date;
  private last: { at: number; ready: boolean; report: Promise<StatusReport> } | undefined;
  private lastGood: StatusReport | undefined;

  constructor(handle: DatabaseHandle, recorder: StatusRecorder, now: () => Date = () => new Date()) {
    this.handle = handle;
    this.recorder = recorder;
    this.now = now;
  }

  /** Read again after 30 s, or at once when readiness changed (readiness is itself shared per second). */
  async report(): Promise<StatusReport> {
    const at = this.now().getTime();
    const ready = (await readiness(this.handle)).status === 200;
    if (this.last && at - this.last.at < CACHE_MS && this.last.ready === ready) return this.last.report;
    const report = this.read(ready);
    this.last = { at, ready, report };
    return report;
  }

  private async read(ready: boolean): Promise<StatusReport> {
    const now = this.now();
    const feeds = this.recorder.freshness();
    try {
      const since = new Date(now.getTime() - 30 * 86_400_000);
      const hourAgo = now.getTime() - 3_600_000;
      const rows = await this.handle.db
        .select({
          minute: statusMinutes.minute,
          instance: statusMinutes.instance,
          ready: statusMinutes.ready,
          feeds: statusMinutes.feeds,
        })
        .from(statusMinutes)
        .where(gte(statusMinutes.minute, since));
      const minutes: MinuteRecord[] = rows.map((row) => ({
        minute: row.minute,
        instance: row.instance,
        ready: row.ready,
        feeds: row.feeds,
        rest: emptyHistogram(),
        streamLag: emptyHistogram(),
      }));
      const recent = await this.handle.db
        .select({ rest: statusMinutes.rest, streamLag: statusMinutes.streamLag })
        .from(statusMinutes)
        .where(gte(statusMinutes.minute, new Date(hourAgo)));
      const incidents = await recentIncidents(this.handle.db, new Date(now.getTime() - 7 * 86_400_000));
      this.lastGood = statusReport({
        now,
        minutes,
        recent: { rest: recent.map((row) => dense(row.rest)), streamLag: recent.map((row) => dense(row.streamLag)) },
        incidents,
        ready,
        feeds,
        databaseReachable: true,
      });
      return this.lastGood;
    } catch {
      // Figures as last read; the state now says what this instance sees.
      const fallback = statusReport({
        now,
        minutes: [],
        recent: { rest: [], streamLag: [] },
        incidents: [],
        ready: false,
        feeds,
        databaseReachable: false,
      });
      if (!this.lastGood) return fallback;
      return {
        ...this.lastGood,
        status: fallback.status,
        updated_at: fallback.updated_at,
        database_reachable: false,
        components: this.lastGood.components.map((c) => ({ ...c, state: "down" as const })),
      };
    }
  }
}
