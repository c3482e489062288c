import type { ReservedSql } from "postgres";
import type { DatabaseHandle } from "../db/index.ts";

/** The advisory lock whose holder runs the simulator (and the revision pruning) for everyone. */
export const FEED_LEADER_LOCK = 4180221909;

export type Leadership = {
  readonly leading: boolean;
  stop(): Promise<void>;
};

type Options = {
  onLead: () => void | Promise<void>;
  onLose: () => void | Promise<void>;
  /** How often a follower tries to take over, and a leader checks it still holds the lock. */
  intervalMs?: number;
  lockKey?: number;
};

/**
 * Leader election with a session-level PostgreSQL advisory lock held on a connection of its own:
 * when the leader's process dies its connection closes, the lock is released, and a follower
 * takes it at its next attempt. On PGlite one process owns the data, so it always leads.
 */
export function startLeadership(handle: DatabaseHandle, options: Options): Leadership {
  const intervalMs = options.intervalMs ?? 2_000;
  const lockKey = options.lockKey ?? FEED_LEADER_LOCK;
  let leading = false;
  let stopped = false;
  let connection: ReservedSql | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const lose = async () => {
    if (!leading) return;
    leading = false;
    await options.onLose();
  };

  const attempt = async () => {
    if (stopped) return;
    if (!handle.postgres) {
      if (!leading) {
        leading = true;
        await options.onLead();
      }
      return;
    }
    try {
      if (leading) {
        await connection!`select 1`;
        return;
      }
      connection ??= await handle.postgres.reserve();
      const [row] = await connection`select pg_try_advisory_lock(${lockKey}) as locked`;
      if (row?.locked && !stopped) {
        leading = true;
        await options.onLead();
      }
    } catch (error) {
      // The connection is gone, and the lock with it: someone else may lead now.
      console.error("Feed leadership check failed:", error instanceof Error ? error.message : error);
      connection?.release();
      connection = undefined;
      await lose();
    }
  };

  const loop = () => {
    running = attempt().finally(() => {
      if (!stopped) timer = setTimeout(loop, intervalMs);
    });
  };
  loop();

  return {
    get leading() {
      return leading;
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      await lose();
      if (connection) {
        await connection`select pg_advisory_unlock_all()`.catch(() => {});
        connection.release();
        connection = undefined;
      }
    },
  };
}
