import type { z } from "zod";
import type { Event, EventWithMarkets as EventWithMarketsSchema } from "@/lib/api/endpoints/schemas";
import type { BoardStreamMessage } from "@/lib/api/endpoints/stream-schemas";
import { notify, StreamStore, subscribe, type Market } from "./stream-store";

// The live board's state, kept outside React. Each row is an immutable object replaced when it
// changes, so a row component reading it (useStoreValue) re-renders when its own event or markets
// change, and no other row does; the list re-renders only when an event comes onto the board or
// leaves it.

export type BoardEvent = z.infer<typeof Event>;
export type BoardRow = {
  event: BoardEvent;
  markets: Market[];
  /** When the row last changed in the feed (ms): its age is shown when it is not fresh. */
  changedAt: number;
};
/** An event with its markets, as GET /api/v1/odds and the board snapshot list it. */
export type EventWithMarkets = z.infer<typeof EventWithMarketsSchema>;
export type BoardMessage = z.infer<typeof BoardStreamMessage>;

const IN_PLAY = ["live", "suspended"];

export function changedAtOf(event: BoardEvent, markets: Market[]): number {
  let at = Date.parse(event.updated_at);
  for (const market of markets) at = Math.max(at, Date.parse(market.updated_at));
  return at;
}

export class BoardStore extends StreamStore<BoardMessage> {
  private rows = new Map<string, BoardRow>();
  private idList: readonly string[] = [];
  private rowListeners = new Map<string, Set<() => void>>();
  private listListeners = new Set<() => void>();

  ids = (): readonly string[] => this.idList;
  row = (id: string): BoardRow | undefined => this.rows.get(id);

  subscribeRow = (id: string, listener: () => void): (() => void) => {
    let listeners = this.rowListeners.get(id);
    if (!listeners) this.rowListeners.set(id, (listeners = new Set()));
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.rowListeners.delete(id);
    };
  };
  subscribeList = (listener: () => void): (() => void) => subscribe(this.listListeners, listener);

  /** The first state, from GET /api/v1/odds, shown until the stream's snapshot arrives. */
  seed(events: EventWithMarkets[], sandbox: boolean, delaySeconds: number): void {
    if (this.snapshotSeen) return;
    this.replaceAll(events);
    this.setFreshness({ sandbox, delaySeconds });
  }

  protected apply(messages: BoardMessage[]): void {
    const touched = new Set<string>();
    let listChanged = false;
    for (const message of messages) {
      if (message.event === "snapshot") {
        this.replaceAll(message.data.events);
        touched.clear();
        listChanged = false;
      } else if (message.event === "event") {
        const { event } = message.data;
        const existing = this.rows.get(event.id);
        if (!IN_PLAY.includes(event.status)) {
          // Finished, settled or cancelled: off the board.
          if (existing) this.rows.delete(event.id);
          listChanged ||= existing !== undefined;
          continue;
        }
        const markets = message.data.markets ?? existing?.markets ?? [];
        listChanged ||= existing === undefined;
        this.rows.set(event.id, { event, markets, changedAt: changedAtOf(event, markets) });
        touched.add(event.id);
      } else if (message.event === "markets") {
        const id = message.data.event_id;
        const existing = this.rows.get(id);
        if (!existing) continue;
        const markets = this.mergeMarkets(existing.markets, message.data.markets);
        this.rows.set(id, { ...existing, markets, changedAt: changedAtOf(existing.event, markets) });
        touched.add(id);
      }
    }
    if (listChanged) {
      this.idList = this.ordered();
      notify(this.listListeners);
    }
    for (const id of touched) notify(this.rowListeners.get(id));
  }

  private replaceAll(events: EventWithMarkets[]): void {
    const before = this.rows;
    this.rows = new Map();
    for (const { markets, ...event } of events) {
      this.rows.set(event.id, { event, markets, changedAt: changedAtOf(event, markets) });
    }
    this.idList = this.ordered();
    notify(this.listListeners);
    for (const id of new Set([...before.keys(), ...this.rows.keys()])) notify(this.rowListeners.get(id));
  }

  /** Kickoff order, then id: the order of GET /api/v1/odds. */
  private ordered(): string[] {
    return [...this.rows.values()]
      .sort((a, b) => a.event.kickoff.localeCompare(b.event.kickoff) || a.event.id.localeCompare(b.event.id))
      .map((row) => row.event.id);
  }
}
