import postgres from "postgres";
import type { DatabaseHandle } from "../db/index.ts";
import { logger } from "../log/index.ts";

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
 * Leader election with a session-level PostgreSQL advisory lock, held on a connection of its own
 * outside the pool: when the leader's process dies its connection closes, the lock is released,
 * and a follower takes it at its next attempt. A leader whose connection closes stops leading at
 * once, since its lock is gone. On PGlite one process owns the data, so it always leads.
 */
export function startLeadership(handle: DatabaseHandle, options: Options): Leadership {
  const intervalMs = options.intervalMs ?? 2_000;
  const lockKey = options.lockKey ?? FEED_LEADER_LOCK;
  let leading = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let transition: Promise<void> = Promise.resolve();

  const lose = () => {
    if (!leading) return transition;
    leading = false;
    transition = transition.then(options.onLose);
    return transition;
  };

  const connection = handle.connectionUrl
    ? postgres(handle.connectionUrl, {
        max: 1,
        idle_timeout: 0,
        max_lifetime: null,
        connect_timeout: 5,
        onnotice: () => {},
        // A closed session has dropped its locks, whatever closed it.
        onclose: () => void lose(),
      })
    : undefined;

  const attempt = async () => {
    if (stopped) return;
    if (!connection) {
      if (!leading) {
        leading = true;
        await options.onLead();
      }
      return;
    }
    try {
      if (leading) {
        await connection`select 1`;
        return;
      }
      const [row] = await connection`select pg_try_advisory_lock(${lockKey}) as locked`;
      if (row?.locked && !stopped) {
        leading = true;
        transition = transition.then(options.onLead);
        await transition;
      }
    } catch (error) {
      logger().error({ err: error }, "Feed leadership check failed");
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
      await connection?.end({ timeout: 2 });
    },
  };
}
