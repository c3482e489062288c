import type { Config } from "../config.ts";
import type { DatabaseHandle } from "../db/index.ts";
import { EventNames } from "./ingest.ts";
import { archiveClosedBuckets, dropArchiveBefore, pruneRevisions } from "./archive.ts";
import { pruneFeedLines } from "./ingest-store.ts";
import { startLeadership, type Leadership } from "./leader.ts";
import { logger } from "../log/index.ts";

/** What one step of a feed source did, as its first report and any refusal are logged. */
export type SourceReport = {
  tracked: number;
  applied: number;
  rejected: number;
  rejections: string[];
  replayed: number;
};

/**
 * A source the leading instance runs (the simulator): it writes through the feed's ingest, so the
 * feed knows it only by this shape.
 */
export type FeedSource = {
  world: string;
  start(onReport: (report: SourceReport) => void): void;
  stop(): Promise<void>;
};

/**
 * The feed's jobs on one instance: while it leads, its source, the archiving of revisions and the
 * pruning of what is past each window.
 */
export type FeedService = {
  leadership: Leadership;
  /** The ids of competitions and sides the providers' batches named, for the ingest endpoint. */
  names: EventNames;
  stop(): Promise<void>;
};

const PRUNE_EVERY_MS = 60_000;

export function startFeed(
  handle: DatabaseHandle,
  config: Config,
  options: {
    now?: () => Date;
    leaderIntervalMs?: number;
    log?: (line: string) => void;
    /** Run while this instance leads; null when SIM=off. */
    source?: FeedSource | null;
    /** More retention for the leader's minute job, after the feed's own (the request log's). */
    prune?: (at: Date) => Promise<unknown>;
  } = {},
): FeedService {
  const log = options.log ?? ((line: string) => logger().info(line));
  const now = options.now ?? (() => new Date());
  const simulator = options.source ?? null;
  let pruneTimer: NodeJS.Timeout | undefined;
  // The pass in flight: one at a time, and a stop waits for it rather than close the database under it.
  let pruning: Promise<void> | null = null;

  // Archiving first: the recent table deletes only what the archive holds.
  const prune = async () => {
    try {
      const at = now();
      await archiveClosedBuckets(handle.db, at);
      const before = new Date(at.getTime() - config.REVISION_RETENTION_SECONDS * 1000);
      await pruneRevisions(handle.db, before);
      await pruneFeedLines(handle.db, before);
      await dropArchiveBefore(handle.db, new Date(at.getTime() - config.HISTORY_SECONDS * 1000));
    } catch (error) {
      logger().error({ err: error }, "Pruning the feed's history failed");
    }
    try {
      await options.prune?.(now());
    } catch (error) {
      logger().error({ err: error }, "Pruning failed");
    }
  };

  const leadership = startLeadership(handle, {
    intervalMs: options.leaderIntervalMs,
    onLead: () => {
      log(
        simulator
          ? `Feed: this instance leads; simulator running at speed ${config.SIM_SPEED} (seed ${config.SIM_SEED}, world ${simulator.world})`
          : "Feed: this instance leads; the simulator is off (SIM=off)",
      );
      let first = true;
      simulator?.start((report) => {
        // Rejections after the first tick would mean the simulator and the ingest disagree.
        if (first || report.rejected > 0) {
          log(
            `Simulator: ${report.tracked} events followed, ${report.applied} updates applied` +
              (report.rejected ? `, ${report.rejected} refused (${report.rejections.join("; ")})` : ""),
          );
        }
        if (report.replayed > 0) {
          logger().debug(`Simulator: ${report.replayed} replayed updates were already applied; skipped`);
        }
        first = false;
      });
      const prunePass = () => {
        pruning ??= prune().finally(() => (pruning = null));
      };
      prunePass();
      pruneTimer = setInterval(prunePass, PRUNE_EVERY_MS);
      pruneTimer.unref();
    },
    onLose: async () => {
      log("Feed: this instance no longer leads");
      clearInterval(pruneTimer);
      await simulator?.stop();
      await pruning;
    },
  });

  return {
    leadership,
    names: new EventNames(),
    async stop() {
      await leadership.stop();
    },
  };
}
