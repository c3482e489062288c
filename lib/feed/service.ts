import type { Config } from "../config.ts";
import type { DatabaseHandle } from "../db/index.ts";
import { Simulator } from "../sim/simulator.ts";
import { startChangeBus, type ChangeBus } from "./bus.ts";
import { EventNames } from "./ingest.ts";
import { pruneRevisions } from "./history.ts";
import { startLeadership, type Leadership } from "./leader.ts";
import { FeedViews } from "./views.ts";
import { logger } from "../log/index.ts";

/**
 * The feed machinery of one instance: its change bus, and, while it leads, the simulator and the
 * pruning of revisions past the retention window. Kept on globalThis so the code Next bundles
 * into route handlers finds the same bus as the server.
 */
export type FeedService = {
  bus: ChangeBus;
  leadership: Leadership;
  /** The present and the sandbox's delayed view, in memory, as the API serves them. */
  views: FeedViews;
  simulator: Simulator | null;
  /** The ids of competitions and sides the providers' batches named, for the ingest endpoint. */
  names: EventNames;
  stop(): Promise<void>;
};

declare global {
  var __sportsDataFeed: FeedService | undefined;
}

export function getFeedService(): FeedService | undefined {
  return globalThis.__sportsDataFeed;
}

const PRUNE_EVERY_MS = 60_000;

export async function startFeed(
  handle: DatabaseHandle,
  config: Config,
  options: { now?: () => Date; leaderIntervalMs?: number; log?: (line: string) => void } = {},
): Promise<FeedService> {
  const log = options.log ?? ((line: string) => logger().info(line));
  const now = options.now ?? (() => new Date());
  const bus = await startChangeBus(handle);
  const views = new FeedViews(handle.db, config.SANDBOX_DELAY_SECONDS, now);
  await views.start(bus);
  const simulator =
    config.SIM === "on" ? new Simulator(handle.db, { speed: config.SIM_SPEED, seed: config.SIM_SEED, now }) : null;
  let pruneTimer: NodeJS.Timeout | undefined;

  const prune = async () => {
    try {
      await pruneRevisions(handle.db, new Date(now().getTime() - config.REVISION_RETENTION_SECONDS * 1000));
    } catch (error) {
      logger().error({ err: error }, "Pruning revisions failed");
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
      void prune();
      pruneTimer = setInterval(() => void prune(), PRUNE_EVERY_MS);
      pruneTimer.unref();
    },
    onLose: async () => {
      log("Feed: this instance no longer leads");
      clearInterval(pruneTimer);
      await simulator?.stop();
    },
  });

  const service: FeedService = {
    bus,
    leadership,
    views,
    simulator,
    names: new EventNames(),
    async stop() {
      views.stop();
      await leadership.stop();
      await bus.close();
      if (globalThis.__sportsDataFeed === service) globalThis.__sportsDataFeed = undefined;
    },
  };
  globalThis.__sportsDataFeed = service;
  return service;
}
