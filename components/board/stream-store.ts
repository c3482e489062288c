import type { z } from "zod";
import type { Market as MarketSchema } from "@/lib/api/endpoints/schemas";
import type { ConnectionState, Refusal, StreamMessage } from "./stream";

export type Market = z.infer<typeof MarketSchema>;

// What the board's and the event page's stores share: a stream's messages are queued as they
// arrive and applied once per animation frame (then only what they touched is told), how fresh
// the data is, and the price moves that make a cell flash.

export type Flash = { direction: "up" | "down"; at: number; sequence: number };

export type Freshness = {
  connection: ConnectionState;
  /** The server said it cannot hear the feed (`stale` message). */
  stale: boolean;
  /** When anything last arrived, a ping too (ms); null before the stream opened. */
  heardAt: number | null;
  sandbox: boolean;
  delaySeconds: number;
  /** When a snapshot last replaced the state after a gap (ms). */
  resyncedAt: number | null;
  ended: { code: string; detail: string } | null;
  /** The service refuses to open the stream for now (429); null once it is open. */
  refused: Refusal | null;
};

const FLASH_MS = 1_200;

/**
 * What the board benchmark (bench/board.ts) installs before the page loads: for each batch of
 * messages applied, when each of them arrived and when the frame after React committed them began
 * (by then the changes are painted). Nothing is recorded without it.
 */
type FrameObserver = (arrivals: number[], paintedBy: number) => void;
const frameObserver = (): FrameObserver | undefined =>
  typeof window === "undefined"
    ? undefined
    : (window as { __streamFrameObserver?: FrameObserver }).__streamFrameObserver;

export function subscribe(listeners: Set<() => void>, listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function notify(listeners: Iterable<() => void> | undefined): void {
  for (const listener of listeners ?? []) listener();
}

export abstract class StreamStore<M extends StreamMessage = StreamMessage> {
  private freshness: Freshness = {
    connection: "connecting",
    stale: false,
    heardAt: null,
    sandbox: false,
    delaySeconds: 0,
    resyncedAt: null,
    ended: null,
    refused: null,
  };
  private queue: M[] = [];
  private arrivals: number[] = [];
  /** Batches applied and not yet committed by React, for the frame observer only. */
  private uncommitted: { batch: number; arrivals: number[] }[] = [];
  private batch = 0;
  private batchListeners = new Set<() => void>();
  private scheduled = false;
  private flashes = new Map<string, Flash>();
  private flashSequence = 0;
  private freshnessListeners = new Set<() => void>();
  /** Whether a stream snapshot arrived: the first state from a query is then out of date. */
  protected snapshotSeen = false;

  freshnessNow = (): Freshness => this.freshness;
  /** The last batch applied while the frame observer watches; 0 without it. */
  appliedBatch = (): number => this.batch;
  subscribeBatch = (listener: () => void): (() => void) => subscribe(this.batchListeners, listener);
  subscribeFreshness = (listener: () => void): (() => void) => subscribe(this.freshnessListeners, listener);

  /** The last move of an outcome's price, while its flash is still to be shown. */
  flash(marketId: string, outcomeId: string, now = Date.now()): Flash | undefined {
    const flash = this.flashes.get(`${marketId}/${outcomeId}`);
    return flash && now - flash.at < FLASH_MS ? flash : undefined;
  }

  receive(message: M): void {
    this.queue.push(message);
    if (frameObserver()) this.arrivals.push(performance.now());
    if (this.scheduled) return;
    this.scheduled = true;
    // Once per frame; a hidden tab gets no frames, so a timer makes sure the queue still drains.
    const timer = setTimeout(() => this.applyQueue(), 250);
    requestAnimationFrame(() => {
      clearTimeout(timer);
      this.applyQueue();
    });
  }

  connection(state: ConnectionState): void {
    this.setFreshness({ connection: state });
  }
  heard(at: number): void {
    // Kept without telling anyone: the status chip reads it on its own clock.
    this.freshness = { ...this.freshness, heardAt: at };
  }
  ended(problem: { code: string; detail: string }): void {
    this.setFreshness({ ended: problem, connection: "ended" });
  }
  refused(refusal: Refusal | null): void {
    if (refusal === null && this.freshness.refused === null) return;
    this.setFreshness({ refused: refusal });
  }

  /** Applies one frame's messages, in order. */
  protected abstract apply(messages: M[]): void;

  protected setFreshness(change: Partial<Freshness>): void {
    this.freshness = { ...this.freshness, ...change };
    notify(this.freshnessListeners);
  }

  /** Every message says whether it is the sandbox's and how late; a snapshot may be a resync. */
  private noteFreshness(message: M): void {
    const { sandbox, delay_seconds: delaySeconds, resync } = message.data;
    if (sandbox !== this.freshness.sandbox || delaySeconds !== this.freshness.delaySeconds) {
      this.setFreshness({ sandbox, delaySeconds });
    }
    if (message.event === "snapshot") {
      // The snapshot replaces the state, so nothing read before it is needed again.
      this.snapshotSeen = true;
      if (resync === true) this.setFreshness({ resyncedAt: Date.now() });
    }
    if (message.event === "stale") this.setFreshness({ stale: message.data.stale === true });
  }

  private applyQueue(): void {
    if (!this.scheduled) return;
    this.scheduled = false;
    const messages = this.queue;
    this.queue = [];
    const now = Date.now();
    for (const [key, flash] of this.flashes) if (now - flash.at >= FLASH_MS) this.flashes.delete(key);
    for (const message of messages) this.noteFreshness(message);
    this.apply(messages);
    if (frameObserver() && this.arrivals.length > 0) {
      this.uncommitted.push({ batch: ++this.batch, arrivals: this.arrivals });
      this.arrivals = [];
      // Told in the same task as the rows, so React commits the batch with them (usePaintReport).
      notify(this.batchListeners);
    }
  }

  /** React committed what was applied up to `batch`: the next frame paints it. */
  committed(batch: number): void {
    const observer = frameObserver();
    const done = this.uncommitted.filter((each) => each.batch <= batch);
    if (!observer || done.length === 0) return;
    this.uncommitted = this.uncommitted.filter((each) => each.batch > batch);
    const arrivals = done.flatMap((each) => each.arrivals);
    requestAnimationFrame((paintedBy) => observer(arrivals, paintedBy));
  }

  /** Changed markets replace their old selves, in place; a price that moved is kept for its flash. */
  protected mergeMarkets(current: Market[], changed: Market[]): Market[] {
    const now = Date.now();
    const byId = new Map(current.map((market) => [market.id, market]));
    const added: Market[] = [];
    for (const market of changed) {
      const before = byId.get(market.id);
      if (!before) added.push(market);
      else {
        const prices = new Map(before.outcomes.map((outcome) => [outcome.id, outcome.price]));
        for (const outcome of market.outcomes) {
          const previous = prices.get(outcome.id);
          if (previous === undefined || previous === outcome.price) continue;
          this.flashes.set(`${market.id}/${outcome.id}`, {
            direction: outcome.price > previous ? "up" : "down",
            at: now,
            sequence: ++this.flashSequence,
          });
        }
      }
      byId.set(market.id, market);
    }
    return [...current.map((market) => byId.get(market.id)!), ...added];
  }
}
