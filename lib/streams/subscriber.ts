import type { Revision } from "../feed/history.ts";
import type { ViewName } from "../feed/views.ts";
import { logger } from "../log/index.ts";
import type { ChannelSpec, ChannelTable, Subscriber } from "./channels.ts";
import { StreamEnding } from "./errors.ts";
import type { FanOut } from "./fanout.ts";
import type { FeedSource } from "./feed-source.ts";
import {
  boardCatchUp,
  boardSnapshot,
  endMessage,
  eventSnapshot,
  TERMINAL,
  type Freshness,
  type ResyncReason,
  type StreamMessage,
} from "./messages.ts";
import { drainOrStall, overflowed } from "./replay-guard.ts";
import { HistoryGone, REPLAY_REVISIONS, replayed } from "./replay.ts";
import { sseMessage, sseRetry } from "./sse.ts";
import { isClosed, type StreamCounters, type StreamRequest, type StreamSettings } from "./stream.ts";

const RETRY_MS = 2_000;
// One buffer for every client's first line, so that its framed copy is made once (sink.ts).
const RETRY = sseRetry(RETRY_MS);
// A resuming client from another instance may be a moment ahead of this one's view.
const AHEAD_WAIT_MS = 2_000;
// How long a board's serialised snapshot is given to clients that open at the same revision.
const SNAPSHOT_REUSE_MS = 1_000;

/** What a subscriber's way from opening to live needs of the rest of the hub. */
export type SubscriberContext = {
  feed: FeedSource;
  channels: ChannelTable;
  fanOut: FanOut;
  subscribers: Set<Subscriber>;
  settings: StreamSettings;
  counters: StreamCounters;
  freshness(view: ViewName, asOf: Date | string): Freshness;
  /** The moment of the feed a view shows now. */
  viewMoment(view: ViewName): Date;
  /** The `stale` message while the instance cannot hear the feed; null while it can. */
  staleMessage(view: ViewName): Buffer | null;
  close(subscriber: Subscriber, endConnection: boolean): void;
  endWithError(subscriber: Subscriber, ending: StreamEnding): void;
};

/**
 * A subscriber's way onto its channel: opened (`replaying`), given a snapshot or, when it resumes,
 * every change it missed from the history, then `live`; put back on the live messages with the
 * latest state after it fell behind or its view started again; `closed` once it or the service
 * ends it.
 */
export class Subscriptions {
  private readonly context: SubscriberContext;

  constructor(context: SubscriberContext) {
    this.context = context;
  }

  open(request: StreamRequest, spec: ChannelSpec): Subscriber {
    const { channels, subscribers, counters } = this.context;
    const subscriber: Subscriber = {
      ...request,
      channel: channels.open(request.view, spec),
      state: "replaying",
      lastId: 0,
      held: [],
      heldBytes: 0,
      openedAt: Date.now(),
      messages: 0,
    };
    subscribers.add(subscriber);
    counters.opened++;
    request.sink.onClose(() => this.context.close(subscriber, false));
    request.sink.write(RETRY);
    void this.begin(subscriber).catch((error: unknown) => {
      logger().error({ err: error, request_id: request.requestId }, "A stream could not start");
      this.context.endWithError(
        subscriber,
        new StreamEnding("unavailable", "The stream could not read the feed's history; reconnect with your last id."),
      );
    });
    return subscriber;
  }

  /** The client that fell behind drained: a board is sent what changed, an event a fresh snapshot. */
  caughtUp(subscriber: Subscriber): void {
    if (subscriber.channel.kind === "board") this.attach(subscriber, null, true);
    else this.attach(subscriber, "slow_client");
  }

  /** The client's view started again: it is sent a snapshot that says why, unless it gets one anyway. */
  resync(subscriber: Subscriber, reason: ResyncReason): void {
    if (subscriber.state === "closed") return;
    if (subscriber.state === "replaying") return; // its replay ends in a snapshot or the live feed
    if (subscriber.state === "behind") return; // it gets the latest state once it drains
    this.attach(subscriber, reason);
  }

  /** A snapshot for a new client; for a resuming one, every change it missed, or a resync. */
  private async begin(subscriber: Subscriber): Promise<void> {
    const { feed, fanOut, settings } = this.context;
    const { lastEventId } = subscriber;
    if (lastEventId === undefined) return this.attach(subscriber, null);
    const after = /^\d{1,15}$/.test(lastEventId) ? Number(lastEventId) : NaN;
    const mirror = feed.mirror(subscriber.view);
    if (Number.isNaN(after)) return this.attach(subscriber, "unknown_id");
    if (after > mirror.revision) {
      const deadline = Date.now() + AHEAD_WAIT_MS;
      if (subscriber.view === "present") await feed.reach(after, AHEAD_WAIT_MS);
      while (after > mirror.revision && Date.now() < deadline && subscriber.state !== "closed") {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      if (subscriber.state === "closed") return;
      if (after > mirror.revision) return this.attach(subscriber, "unknown_id");
    }
    // Further behind than a resume replays: the current state costs less than reading that far back.
    if (mirror.revision - after > REPLAY_REVISIONS) return this.attach(subscriber, "retention_exceeded");
    // Live messages from here on are held while the history up to here is written.
    fanOut.flushChannel(subscriber.channel);
    subscriber.channel.subscribers.add(subscriber);
    const through = mirror.revision;
    subscriber.lastId = after;
    const complete = await this.replay(subscriber, after, through);
    if (subscriber.state === "closed") return;
    if (!complete) return this.attach(subscriber, "retention_exceeded");
    if (overflowed(subscriber, settings.bufferBytes)) return this.attach(subscriber, "slow_client");
    for (const chunk of subscriber.held) fanOut.write(subscriber, chunk);
    subscriber.held = [];
    subscriber.heldBytes = 0;
    subscriber.state = "live";
    this.afterAttach(subscriber);
  }

  /**
   * Writes the revisions after `after`, through `through`, as the live stream would have sent
   * them. False when the history no longer reaches back that far.
   */
  private async replay(subscriber: Subscriber, after: number, through: number): Promise<boolean> {
    const { feed, settings } = this.context;
    const fresh = (revision: Revision) => this.context.freshness(subscriber.view, revision.recordedAt);
    try {
      for await (const { messages } of replayed(feed, subscriber.channel, after, through, fresh)) {
        if (subscriber.state === "closed") return true;
        for (const message of messages) {
          subscriber.sink.write(sseMessage(message.event, message.data, message.id));
          subscriber.lastId = message.id ?? subscriber.lastId;
          subscriber.messages++;
        }
        if (subscriber.sink.pending > settings.bufferBytes) await this.drained(subscriber);
        if (isClosed(subscriber) || overflowed(subscriber, settings.bufferBytes)) return true;
      }
    } catch (error) {
      if (error instanceof HistoryGone) return false;
      throw error;
    }
    return true;
  }

  /** Waits for the client to take its replay so far; one that stalls is let go, to resume later. */
  private async drained(subscriber: Subscriber): Promise<void> {
    if (subscriber.state === "closed") return;
    if ((await drainOrStall(subscriber.sink, this.context.settings.pingSeconds)) !== "stalled") return;
    this.context.close(subscriber, true);
    subscriber.sink.destroy();
  }

  /**
   * Puts the client on its channel's live messages from this moment, starting with the current
   * state: a snapshot (with `resync` and its reason when it replaces what the client had), or for
   * a board client that fell behind, the latest state of what changed. Flushing the channel first
   * means every message it sends from now on is newer than what the client is given here.
   */
  private attach(subscriber: Subscriber, resync: ResyncReason | null, catchUp = false): void {
    if (subscriber.state === "closed") return;
    const { feed, fanOut, counters } = this.context;
    const { channel, view } = subscriber;
    fanOut.flushChannel(channel);
    const mirror = feed.mirror(view);
    const fresh = this.context.freshness(view, this.context.viewMoment(view));
    let messages: StreamMessage[];
    if (catchUp && channel.kind === "board") {
      messages = boardCatchUp(mirror, channel.filter, subscriber.lastId, fresh);
      counters.conflated += messages.length;
    } else if (channel.kind === "board") {
      if (resync) counters.resyncs[resync]++;
      return this.sendBoardSnapshot(subscriber, resync);
    } else {
      if (resync) counters.resyncs[resync]++;
      const document = mirror.get(channel.eventId);
      // The event existed when the stream opened; a view that started again may lack it.
      if (!document) {
        return this.context.endWithError(
          subscriber,
          new StreamEnding("not_found", `No event ${channel.eventId} in this view of the feed any more.`),
        );
      }
      messages = [eventSnapshot(mirror, document, fresh, resync ? { reason: resync } : null)];
    }
    subscriber.held = [];
    subscriber.heldBytes = 0;
    channel.subscribers.add(subscriber);
    for (const message of messages) {
      subscriber.sink.write(sseMessage(message.event, message.data, message.id));
      if (message.id !== undefined) subscriber.lastId = message.id;
      subscriber.messages++;
    }
    if (!catchUp) subscriber.lastId = Math.max(subscriber.lastId, mirror.revision);
    subscriber.state = "live";
    this.afterAttach(subscriber);
  }

  /**
   * A board's snapshot, serialised once for every client of the channel that opens (or resyncs
   * for the same reason) at the same revision within a second: after a deploy every board
   * reconnects at once, and 200 events with their markets are costly to serialise per client. Its
   * `as_of` is when it was made, at most a second earlier: never fresher than what it shows.
   */
  private sendBoardSnapshot(subscriber: Subscriber, resync: ResyncReason | null): void {
    const { channel, view } = subscriber;
    if (channel.kind !== "board") return;
    const mirror = this.context.feed.mirror(view);
    const now = Date.now();
    const reason = resync ?? "";
    let cached = channel.snapshots.get(reason);
    if (!cached || cached.revision !== mirror.revision || now - cached.madeAt > SNAPSHOT_REUSE_MS) {
      const fresh = this.context.freshness(view, this.context.viewMoment(view));
      const message = boardSnapshot(mirror, channel.filter, fresh, resync ? { reason: resync } : null);
      cached = { revision: mirror.revision, madeAt: now, bytes: sseMessage(message.event, message.data, message.id) };
      channel.snapshots.set(reason, cached);
    }
    subscriber.held = [];
    subscriber.heldBytes = 0;
    channel.subscribers.add(subscriber);
    subscriber.sink.write(cached.bytes);
    subscriber.messages++;
    subscriber.lastId = Math.max(subscriber.lastId, mirror.revision);
    subscriber.state = "live";
    this.afterAttach(subscriber);
  }

  /** What a client that just caught up must also hear: its event is over, or the feed is stale. */
  private afterAttach(subscriber: Subscriber): void {
    const { channel, view } = subscriber;
    if (subscriber.state === "closed") return;
    const stale = this.context.staleMessage(view);
    if (stale) subscriber.sink.write(stale);
    if (channel.kind === "event") {
      const document = this.context.feed.mirror(view).get(channel.eventId);
      if (document && TERMINAL.includes(document.event.status)) {
        const end = endMessage(document, this.context.freshness(view, this.context.viewMoment(view)));
        subscriber.sink.write(sseMessage(end.event, end.data, undefined, end.retry));
        this.context.close(subscriber, true);
      }
    }
  }
}
