import type { DatabaseHandle } from "../db/index.ts";
import { decodeChanges, FEED_CHANNEL, type EventChange } from "./changes.ts";
import { logger } from "../log/index.ts";

/**
 * The change bus of one instance. Every change is published by the committing transaction with
 * NOTIFY, so every instance on the database (this one included) hears it after the commit and
 * never before; one LISTEN per channel per instance, fanned out in memory to any number of
 * subscribers (streams, caches, the odds board).
 */
export type ChangeBus = {
  onEventChanges(listener: (changes: EventChange[]) => void): () => void;
  /**
   * Called when the LISTEN connection was lost and is back: notifications sent in between are
   * gone, so a subscriber re-reads what it holds (revisions make that gapless: read past the last
   * revision it saw).
   */
  onResync(listener: () => void): () => void;
  /** Other channels (for example a key revocation) share the same connection and fan-out. */
  subscribe(channel: string, listener: (payload: string) => void): Promise<() => void>;
  close(): Promise<void>;
};

/**
 * Follows the notices of one channel: each read by `read`, and null for one it cannot read or after
 * a resync, when notices may have been lost, so the follower treats null as "anything may have".
 */
export async function followNotices<T>(
  bus: ChangeBus,
  channel: string,
  read: (notice: unknown) => T | null,
  onNotice: (notice: T | null) => void,
): Promise<() => void> {
  const unsubscribe = await bus.subscribe(channel, (payload) => {
    let notice: T | null = null;
    try {
      notice = read(JSON.parse(payload));
    } catch {
      // an unreadable notice: null, as after a resync
    }
    onNotice(notice);
  });
  const unresync = bus.onResync(() => onNotice(null));
  return () => {
    unsubscribe();
    unresync();
  };
}

type Unlisten = () => Promise<void>;

async function listen(
  handle: DatabaseHandle,
  channel: string,
  onPayload: (payload: string) => void,
  onRelisten: () => void,
): Promise<Unlisten> {
  if (handle.postgres) {
    // postgres.js keeps a dedicated connection for LISTEN and listens again after a reconnect.
    let first = true;
    const { unlisten } = await handle.postgres.listen(channel, onPayload, () => {
      if (!first) onRelisten();
      first = false;
    });
    return unlisten;
  }
  if (handle.pglite) return handle.pglite.listen(channel, onPayload);
  throw new Error("the database handle has no client to listen with");
}

export async function startChangeBus(handle: DatabaseHandle): Promise<ChangeBus> {
  const listeners = new Map<string, Set<(payload: string) => void>>();
  const unlistens = new Map<string, Unlisten>();
  const resyncListeners = new Set<() => void>();
  const resync = () => {
    for (const listener of resyncListeners) listener();
  };

  const subscribe = async (channel: string, listener: (payload: string) => void) => {
    let set = listeners.get(channel);
    if (!set) {
      set = new Set();
      listeners.set(channel, set);
      const fanOut = (payload: string) => {
        for (const each of listeners.get(channel) ?? []) {
          try {
            each(payload);
          } catch (error) {
            logger().error({ err: error, channel }, "A change bus subscriber failed");
          }
        }
      };
      unlistens.set(channel, await listen(handle, channel, fanOut, resync));
    }
    set.add(listener);
    return () => void set.delete(listener);
  };

  const eventListeners = new Set<(changes: EventChange[]) => void>();
  await subscribe(FEED_CHANNEL, (payload) => {
    let changes: EventChange[];
    try {
      changes = decodeChanges(payload);
    } catch {
      logger().warn({ channel: FEED_CHANNEL }, "Ignored a malformed notification");
      return;
    }
    for (const listener of eventListeners) listener(changes);
  });

  return {
    onEventChanges(listener) {
      eventListeners.add(listener);
      return () => void eventListeners.delete(listener);
    },
    onResync(listener) {
      resyncListeners.add(listener);
      return () => void resyncListeners.delete(listener);
    },
    subscribe,
    async close() {
      eventListeners.clear();
      resyncListeners.clear();
      listeners.clear();
      await Promise.all([...unlistens.values()].map((unlisten) => unlisten().catch(() => {})));
      unlistens.clear();
    },
  };
}
