import { sql, type SQL } from "drizzle-orm";
import type { Database, DatabaseHandle } from "../db/index.ts";
import { logger } from "../log/index.ts";
import { outboxQueued, type Channel, type Notice, type OutboxName, type Published } from "./channels.ts";

export * from "./channels.ts";

/**
 * Tells every instance on the database (this one included) when, and only if, the transaction
 * `db` belongs to commits; at once when `db` is the pool.
 */
export async function publish<C extends Channel>(db: Database, channel: C, notice: Published<C>): Promise<void> {
  await db.execute(sql`select pg_notify(${channel.name}, ${JSON.stringify(notice)})`);
}

/**
 * The notices as a select to end a statement that writes (`with ... select`): sent as `publish`
 * sends them, in order, without a statement of their own.
 */
export function publishing<C extends Channel>(channel: C, notices: Published<C>[]): SQL {
  const payloads = JSON.stringify(notices.map((notice) => JSON.stringify(notice)));
  return sql`select pg_notify(${channel.name}, payload) from jsonb_array_elements_text(${payloads}::jsonb) as payload`;
}

/**
 * One LISTEN per channel, fanned out in memory to any number of subscribers. A notice is heard after
 * its transaction commits and never before.
 */
export type ChangeBus = {
  /** Each notice of the channel; one it cannot read is logged and skipped. */
  subscribe<C extends Channel>(channel: C, listener: (notice: Notice<C>) => void): Promise<() => void>;
  /**
   * Each notice of the channel, and null when notices may have been lost: the LISTEN connection was
   * lost and is back, or a notice could not be read. The follower treats null as "anything may have
   * changed" and reads again what it holds.
   */
  follow<C extends Channel>(channel: C, listener: (notice: Notice<C> | null) => void): Promise<() => void>;
  close(): Promise<void>;
};

type Unlisten = () => Promise<void>;

async function listen(
  handle: DatabaseHandle,
  name: string,
  onPayload: (payload: string) => void,
  onRelisten: () => void,
): Promise<Unlisten> {
  if (handle.postgres) {
    // postgres.js keeps a dedicated connection for LISTEN and listens again after a reconnect.
    let first = true;
    const { unlisten } = await handle.postgres.listen(name, onPayload, () => {
      if (!first) onRelisten();
      first = false;
    });
    return unlisten;
  }
  if (handle.pglite) return handle.pglite.listen(name, onPayload);
  throw new Error("the database handle has no client to listen with");
}

type Listener = (notice: unknown) => void;

export async function startChangeBus(handle: DatabaseHandle): Promise<ChangeBus> {
  const listeners = new Map<string, Set<Listener>>();
  const unlistens = new Map<string, Unlisten>();

  const fanOut = (name: string, notice: unknown) => {
    for (const listener of listeners.get(name) ?? []) {
      try {
        listener(notice);
      } catch (error) {
        logger().error({ err: error, channel: name }, "A change bus subscriber failed");
      }
    }
  };

  const read = (channel: Channel, payload: string): unknown => {
    try {
      const parsed = channel.schema.safeParse(JSON.parse(payload));
      if (parsed.success) return parsed.data;
    } catch {
      // not JSON: unreadable, as below
    }
    logger().warn({ channel: channel.name }, "Ignored an unreadable notice");
    return null;
  };

  const follow = async <C extends Channel>(channel: C, listener: (notice: Notice<C> | null) => void) => {
    let set = listeners.get(channel.name);
    if (!set) {
      set = new Set();
      listeners.set(channel.name, set);
      const unlisten = await listen(
        handle,
        channel.name,
        (payload) => fanOut(channel.name, read(channel, payload)),
        () => fanOut(channel.name, null),
      );
      unlistens.set(channel.name, unlisten);
    }
    const added = listener as Listener;
    set.add(added);
    return () => void set.delete(added);
  };

  return {
    follow,
    subscribe: (channel, listener) =>
      follow(channel, (notice) => {
        if (notice !== null) listener(notice);
      }),
    async close() {
      listeners.clear();
      await Promise.all([...unlistens.values()].map((unlisten) => unlisten().catch(() => {})));
      unlistens.clear();
    },
  };
}

/**
 * Wakes each outbox's worker when a message is queued in it on any instance, and every one when
 * notices may have been lost; returns how to stop.
 */
export function followOutboxes(bus: ChangeBus, workers: Record<OutboxName, { wake(): void }>): Promise<() => void> {
  return bus.follow(outboxQueued, (outbox) => {
    for (const [name, worker] of Object.entries(workers)) if (outbox === null || outbox === name) worker.wake();
  });
}
