import type { Revision } from "../feed/history.ts";
import type { EventDocument } from "../feed/mirror.ts";
import type { ViewName } from "../feed/views.ts";
import { ChannelTable, type Channel, type Subscriber } from "./channels.ts";
import { Closing } from "./closing.ts";
import type { StreamProblem } from "./errors.ts";
import { FanOut } from "./fanout.ts";
import type { FeedSource } from "./feed-source.ts";
import { Liveness, type Heartbeat } from "./liveness.ts";
import { BoardRevision } from "./board-revision.ts";
import {
  endMessage,
  eventStreamMessages,
  freshness,
  TERMINAL,
  type BoardFilter,
  type Freshness,
  type ResyncReason,
} from "./messages.ts";
import { expiredEnding, hasExpired, Revocation, type StreamKeys, type SessionDirectory } from "./revocation.ts";
import { encodeMessages, sseRetry } from "./sse.ts";
import { newCounters, type StreamCounters, type StreamRequest, type StreamSettings } from "./stream.ts";
import { Subscriptions } from "./subscriber.ts";

export type { StreamCounters, StreamPrincipal, StreamRequest, StreamSettings } from "./stream.ts";

const SHUTDOWN_RETRY_MS = 250;

/**
 * Every stream of one instance. It follows the two views of the feed revision by revision (one
 * subscription to the change bus per instance, through the views, never one per client), turns
 * each revision into the messages of each channel it concerns (channels.ts), and writes each
 * channel's messages of a flush tick to each of its clients in one write (fanout.ts). Each client
 * goes from opening to live (subscriber.ts); streams whose key or session stopped being good end
 * (revocation.ts); the heartbeat says when the feed may be stale (liveness.ts).
 */
export class StreamHub {
  private readonly channels = new ChannelTable();
  private readonly subscribers = new Set<Subscriber>();
  private readonly touched = new Set<Channel>();
  private timers: NodeJS.Timeout[] = [];
  private unsubscribe: (() => void)[] = [];
  private accepting = true;
  readonly counters: StreamCounters = newCounters();

  private readonly feed: FeedSource;
  private readonly now: () => Date;
  private readonly closing: Closing;
  private readonly fanOut: FanOut;
  private readonly subscriptions: Subscriptions;
  private readonly revocation: Revocation;
  private readonly liveness: Liveness;
  readonly settings: StreamSettings;

  constructor(options: {
    /** The views of the feed and its revision history (feed-source.ts). */
    feed: FeedSource;
    /** The instance's notification to itself (liveness.ts). */
    heartbeat: Heartbeat;
    /** The keys as they are now, and their changes (lib/keys/cache.ts). */
    keys: StreamKeys;
    /** The console sessions' revocations (lib/accounts/sessions.ts). */
    sessions: SessionDirectory;
    now: () => Date;
    settings: StreamSettings;
    /** The problem body of a stream's last `error` message, as the API answers that code. */
    problem: StreamProblem;
  }) {
    this.feed = options.feed;
    this.now = options.now;
    this.settings = options.settings;
    const viewFreshness = (view: ViewName) => this.freshness(view, this.viewMoment(view));
    this.closing = new Closing({
      subscribers: this.subscribers,
      channels: this.channels,
      counters: this.counters,
      problem: options.problem,
      freshness: viewFreshness,
    });
    const close = (subscriber: Subscriber, endConnection: boolean) => this.closing.close(subscriber, endConnection);
    const endWithError = this.closing.endWithError.bind(this.closing);
    this.fanOut = new FanOut(this.channels, this.settings, this.counters, {
      close,
      caughtUp: (subscriber) => this.subscriptions.caughtUp(subscriber),
    });
    this.liveness = new Liveness(options.heartbeat, this.settings, this.subscribers, {
      freshness: viewFreshness,
      flush: () => this.flush(),
      recovered: () => void this.feed.advance(),
    });
    this.subscriptions = new Subscriptions({
      feed: this.feed,
      channels: this.channels,
      fanOut: this.fanOut,
      subscribers: this.subscribers,
      settings: this.settings,
      counters: this.counters,
      freshness: (view, asOf) => this.freshness(view, asOf),
      viewMoment: (view) => this.viewMoment(view),
      staleMessage: (view) => this.liveness.staleMessage(view),
      close,
      endWithError,
    });
    this.revocation = new Revocation({
      subscribers: this.subscribers,
      keys: options.keys,
      sessions: options.sessions,
      now: this.now,
      end: endWithError,
      reconnect: (subscriber) => this.reconnect(subscriber),
    });
  }

  async start(): Promise<void> {
    for (const view of ["present", "delayed"] as const) {
      this.unsubscribe.push(
        this.feed.follow(view, {
          revision: (revision, document, statusBefore) => this.onRevision(view, revision, document, statusBefore),
          applied: () => this.onApplied(),
          reset: () => this.resyncView(view, "bus_reconnected"),
        }),
      );
    }
    // A key directory that heard of a change, or lost the bus (notifications in between are gone),
    // says so; a revocation among them must end its streams. (The views replay the revisions.)
    this.unsubscribe.push(this.revocation.follow(), await this.liveness.start());
    this.timers.push(setInterval(() => this.ping(), this.settings.pingSeconds * 1000));
    for (const timer of this.timers) timer.unref();
  }

  /** How many streams are open, and on how many channels. */
  get open(): { streams: number; channels: number } {
    return { streams: this.subscribers.size, channels: this.channels.size };
  }

  /** Subscribers per channel kind and view, for metrics. */
  subscribersByView(): Map<string, number> {
    return this.channels.subscribersByView();
  }

  get stale(): boolean {
    return this.liveness.stale;
  }

  /** Refuses new streams from now on (the instance is stopping). */
  get acceptingStreams(): boolean {
    return this.accepting;
  }

  openEventStream(request: StreamRequest, event: { id: string; sport: string }): void {
    this.subscriptions.open(request, { kind: "event", eventId: event.id, sport: event.sport });
  }

  openBoardStream(request: StreamRequest, filter: BoardFilter): void {
    this.subscriptions.open(request, { kind: "board", filter });
  }

  /** Writes every channel's gathered messages to its clients, one write per client. */
  flush(): void {
    this.fanOut.flush();
  }

  /**
   * Ends every stream with a short `retry:`, so each client reconnects at once, to another
   * instance behind the load balancer, with its last id: nothing is missed.
   */
  shutdown(): void {
    this.accepting = false;
    this.flush();
    const retry = sseRetry(SHUTDOWN_RETRY_MS);
    for (const subscriber of [...this.subscribers]) this.reconnect(subscriber, retry);
    this.stop();
  }

  /** Closes a stream with a short `retry:`, so that its client opens it again at once. */
  private reconnect(subscriber: Subscriber, retry = sseRetry(SHUTDOWN_RETRY_MS)): void {
    if (subscriber.state === "closed") return;
    if (subscriber.state !== "behind") subscriber.sink.write(retry);
    this.closing.close(subscriber, true);
  }

  stop(): void {
    this.fanOut.stop();
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    this.unsubscribe = [];
  }

  // --- the views' revisions ----------------------------------------------------------------------

  private onRevision(view: ViewName, revision: Revision, document: EventDocument, statusBefore: string | undefined) {
    const eventChannel = this.channels.eventChannel(view, revision.eventId);
    const boards = this.channels.boardChannels(view);
    if (!eventChannel && boards.size === 0) return;
    const fresh = this.freshness(view, revision.recordedAt);
    if (eventChannel) {
      this.fanOut.enqueue(eventChannel, encodeMessages(eventStreamMessages(revision, revision.eventId, fresh)));
      this.touched.add(eventChannel);
    }
    const board = new BoardRevision(revision, document, statusBefore, fresh);
    for (const channel of boards) {
      if (channel.kind === "board") this.fanOut.enqueue(channel, board.messages(channel.filter));
    }
  }

  /** After a run of revisions: an event's stream whose event is now over says `end`, then closes. */
  private onApplied(): void {
    for (const channel of this.touched) {
      if (channel.kind !== "event" || channel.ending) continue;
      const document = this.feed.mirror(channel.view).get(channel.eventId);
      if (document && TERMINAL.includes(document.event.status)) {
        const end = endMessage(document, this.freshness(channel.view, document.event.updated_at));
        this.fanOut.enqueue(channel, encodeMessages([end]));
        channel.ending = true;
      }
    }
    this.touched.clear();
  }

  /** Every client of a view starts again from a snapshot, told why. */
  private resyncView(view: ViewName, reason: ResyncReason): void {
    for (const subscriber of [...this.subscribers]) {
      if (subscriber.view === view) this.subscriptions.resync(subscriber, reason);
    }
  }

  /** Streams whose key or session expired end; the others that are quiet hear a `: ping`. */
  private ping(): void {
    const at = this.now();
    for (const subscriber of [...this.subscribers]) {
      if (hasExpired(subscriber.principal, at))
        this.closing.endWithError(subscriber, expiredEnding(subscriber.principal));
    }
    this.liveness.ping();
  }

  private viewMoment(view: ViewName): Date {
    const at = this.now();
    return view === "present" ? at : new Date(at.getTime() - this.feed.delaySeconds * 1000);
  }

  private freshness(view: ViewName, asOf: Date | string): Freshness {
    const sandbox = view === "delayed";
    return freshness(sandbox, sandbox ? this.feed.delaySeconds : 0, new Date(asOf));
  }
}
