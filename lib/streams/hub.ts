import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Database } from "../db/index.ts";
import type { ChangeBus } from "../feed/bus.ts";
import { revisionsAfter, snapshotThrough, type Revision } from "../feed/history.ts";
import { FeedMirror, type EventDocument } from "../feed/mirror.ts";
import type { FeedViews, ViewName } from "../feed/views.ts";
import { KEY_CHANNEL } from "../keys/cache.ts";
import { findKeyByHash, type ApiKeyRecord } from "../keys/lookup.ts";
import type { StreamSlot } from "../metering/index.ts";
import {
  boardCatchUp,
  boardMessages,
  boardSnapshot,
  endMessage,
  eventSnapshot,
  eventStreamMessages,
  freshness,
  TERMINAL,
  type BoardFilter,
  type Freshness,
  type ResyncReason,
  type StreamMessage,
} from "./messages.ts";
import { StreamEnding, type StreamEndingCode, type StreamProblem } from "./errors.ts";
import type { StreamSink } from "./sink.ts";
import { drainOrStall, holdDuringReplay, overflowed } from "./replay-guard.ts";
import { SSE_PING, sseMessage, sseRetry } from "./sse.ts";
import { keyLicenceRefusal } from "../licences.ts";
import { logger } from "../log/index.ts";

export type StreamSettings = {
  /** Seconds between `: ping` comments on a quiet stream. */
  pingSeconds: number;
  /** Messages are gathered for this long and written to each client in one write. */
  flushMs: number;
  /** Unsent bytes a connection may hold before its client counts as slow. */
  bufferBytes: number;
  /** How long without hearing the change bus before streams say `stale`. */
  staleSeconds: number;
  /** Concurrent streams of one signed-in console member, per instance. */
  sessionStreams: number;
};

/** Who a stream is for: a key, or a signed-in console member (then `keyHash` is null). */
export type StreamPrincipal = { key: ApiKeyRecord; keyHash: string | null; session: boolean };

export type StreamRequest = {
  principal: StreamPrincipal;
  view: ViewName;
  /** The SSE id the client last received (Last-Event-ID, or `last_event_id`), as sent. */
  lastEventId: string | undefined;
  requestId: string;
  slot: StreamSlot;
  sink: StreamSink;
};

/** One chunk of a tick's messages for one channel, with the revision of its last message. */
type Chunk = { bytes: Buffer; lastId: number | undefined; ends: boolean };

type ChannelSpec = { kind: "event"; eventId: string; sport: string } | { kind: "board"; filter: BoardFilter };

/**
 * The subscribers who are sent the same bytes: one event's stream, or one board (sports, market
 * type), in one view (the present, or the sandbox's delayed view). A message is serialised once per
 * channel, however many subscribers it has.
 */
type Channel = ChannelSpec & {
  id: string;
  view: ViewName;
  subscribers: Set<Subscriber>;
  pending: Buffer[];
  pendingLastId: number | undefined;
  /** The event finished: the channel sends `end` with its next flush and closes. */
  ending: boolean;
  /** A board's last snapshot per resync reason ("" for none), for clients that open meanwhile. */
  snapshots: Map<string, { revision: number; madeAt: number; bytes: Buffer }>;
};

type SubscriberState = "replaying" | "live" | "behind" | "closed";

type Subscriber = StreamRequest & {
  channel: Channel;
  state: SubscriberState;
  /** The last revision this client was sent: every later message has a higher id. */
  lastId: number;
  /** Live chunks held while a replay from the history is being written. */
  held: Chunk[];
  heldBytes: number;
  openedAt: number;
  messages: number;
};

/** What the hub has counted since it started (for metrics and the benchmark). */
export type StreamCounters = {
  opened: number;
  closed: number;
  messages: number;
  conflated: number;
  /** Writes not made to a client that had fallen behind (it is sent the latest state instead). */
  dropped: number;
  resyncs: Record<ResyncReason, number>;
};

const RETRY_MS = 2_000;
const SHUTDOWN_RETRY_MS = 250;
const HEARTBEAT_CHANNEL = "stream_heartbeat";
const HEARTBEAT_MS = 1_000;
const REPLAY_PAGE = 1_000;
// A resuming client from another instance may be a moment ahead of this one's view.
const AHEAD_WAIT_MS = 2_000;
// How long a board's serialised snapshot is given to clients that open at the same revision.
const SNAPSHOT_REUSE_MS = 1_000;

/**
 * Every stream of one instance. It follows the two views of the feed revision by revision (one
 * subscription to the change bus per instance, through FeedViews, never one per client), turns
 * each revision into the messages of each channel it concerns, and writes each channel's messages
 * of a flush tick to each of its clients in one write. A client that cannot keep up is never
 * waited for: its connection's buffer is bounded, and once it drains it is sent the latest state
 * (a board) or a fresh snapshot (one event) instead of the backlog, always saying so.
 */
export class StreamHub {
  private readonly channels = new Map<string, Channel>();
  private readonly eventChannels: Record<ViewName, Map<string, Channel>> = { present: new Map(), delayed: new Map() };
  private readonly boardChannels: Record<ViewName, Set<Channel>> = { present: new Set(), delayed: new Set() };
  private readonly touched = new Set<Channel>();
  private readonly subscribers = new Set<Subscriber>();
  private flushTimer: NodeJS.Timeout | undefined;
  private lastFlushAt = -Infinity;
  private timers: NodeJS.Timeout[] = [];
  private unsubscribe: (() => void)[] = [];
  private readonly instance = randomBytes(6).toString("hex");
  private lastHeard = Date.now();
  private heartbeatInFlight = false;
  private staleSince: Date | null = null;
  private accepting = true;
  readonly counters: StreamCounters = {
    opened: 0,
    closed: 0,
    messages: 0,
    conflated: 0,
    dropped: 0,
    resyncs: { retention_exceeded: 0, unknown_id: 0, slow_client: 0, bus_reconnected: 0 },
  };

  private readonly db: Database;
  private readonly views: FeedViews;
  private readonly bus: ChangeBus;
  private readonly now: () => Date;
  private readonly problem: StreamProblem;
  readonly settings: StreamSettings;

  constructor(options: {
    db: Database;
    views: FeedViews;
    bus: ChangeBus;
    now: () => Date;
    settings: StreamSettings;
    /** The problem body of a stream's last `error` message, as the API answers that code. */
    problem: StreamProblem;
  }) {
    this.problem = options.problem;
    this.db = options.db;
    this.views = options.views;
    this.bus = options.bus;
    this.now = options.now;
    this.settings = options.settings;
  }

  async start(): Promise<void> {
    for (const view of ["present", "delayed"] as const) {
      this.unsubscribe.push(
        this.views.follow(view, {
          revision: (revision, document, statusBefore) => this.onRevision(view, revision, document, statusBefore),
          applied: () => this.onApplied(),
          reset: () => this.resyncView(view, "bus_reconnected"),
        }),
      );
    }
    this.unsubscribe.push(
      await this.bus.subscribe(KEY_CHANNEL, (payload) => {
        let change: { keyId?: string; orgId?: string } = {};
        try {
          change = JSON.parse(payload) as typeof change;
        } catch {
          // an unreadable notice: check every stream's key
        }
        void this.recheckKeys((key) =>
          change.keyId ? key.id === change.keyId : change.orgId ? key.orgId === change.orgId : true,
        );
      }),
      await this.bus.subscribe(HEARTBEAT_CHANNEL, (payload) => {
        if (payload === this.instance) this.heard();
      }),
      // Notifications sent while the bus was away are lost: a revocation among them must still end
      // its streams. (The views replay the revisions themselves.)
      this.bus.onResync(() => void this.recheckKeys(() => true)),
    );
    this.timers.push(
      setInterval(() => this.ping(), this.settings.pingSeconds * 1000),
      setInterval(() => this.heartbeat(), HEARTBEAT_MS),
    );
    for (const timer of this.timers) timer.unref();
  }

  /** How many streams are open, and on how many channels. */
  get open(): { streams: number; channels: number } {
    return { streams: this.subscribers.size, channels: this.channels.size };
  }

  /** Subscribers per channel kind and view, for metrics. */
  subscribersByView(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const channel of this.channels.values()) {
      const name = `${channel.view === "present" ? "production" : "sandbox"}:${channel.kind}`;
      counts.set(name, (counts.get(name) ?? 0) + channel.subscribers.size);
    }
    return counts;
  }

  get stale(): boolean {
    return this.staleSince !== null;
  }

  /** Refuses new streams from now on (the instance is stopping). */
  get acceptingStreams(): boolean {
    return this.accepting;
  }

  openEventStream(request: StreamRequest, event: { id: string; sport: string }): void {
    this.open_(request, { kind: "event", eventId: event.id, sport: event.sport });
  }

  openBoardStream(request: StreamRequest, filter: BoardFilter): void {
    this.open_(request, { kind: "board", filter });
  }

  /**
   * Ends every stream with a short `retry:`, so each client reconnects at once, to another
   * instance behind the load balancer, with its last id: nothing is missed.
   */
  shutdown(): void {
    this.accepting = false;
    this.flush();
    const retry = sseRetry(SHUTDOWN_RETRY_MS);
    for (const subscriber of [...this.subscribers]) {
      if (subscriber.state !== "behind") subscriber.sink.write(retry);
      this.close(subscriber, true);
    }
    this.stop();
  }

  stop(): void {
    clearTimeout(this.flushTimer);
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    this.unsubscribe = [];
  }

  // --- opening ---------------------------------------------------------------------------------

  private open_(request: StreamRequest, spec: ChannelSpec): void {
    const channel = this.channelFor(request.view, spec);
    const subscriber: Subscriber = {
      ...request,
      channel,
      state: "replaying",
      lastId: 0,
      held: [],
      heldBytes: 0,
      openedAt: Date.now(),
      messages: 0,
    };
    this.subscribers.add(subscriber);
    this.counters.opened++;
    request.sink.onClose(() => this.close(subscriber, false));
    request.sink.write(sseRetry(RETRY_MS));
    void this.begin(subscriber).catch((error: unknown) => {
      logger().error({ err: error, request_id: request.requestId }, "A stream could not start");
      this.endWithError(
        subscriber,
        new StreamEnding("unavailable", "The stream could not read the feed's history; reconnect with your last id."),
      );
    });
  }

  /** A snapshot for a new client; for a resuming one, every change it missed, or a resync. */
  private async begin(subscriber: Subscriber): Promise<void> {
    const { lastEventId } = subscriber;
    if (lastEventId === undefined) return this.attach(subscriber, null);
    const after = /^\d{1,15}$/.test(lastEventId) ? Number(lastEventId) : NaN;
    const mirror = this.views.mirror(subscriber.view);
    if (Number.isNaN(after)) return this.attach(subscriber, "unknown_id");
    if (after > mirror.revision) {
      const deadline = Date.now() + AHEAD_WAIT_MS;
      if (subscriber.view === "present") await this.views.reach(after, AHEAD_WAIT_MS);
      while (after > mirror.revision && Date.now() < deadline && subscriber.state !== "closed") {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      if (subscriber.state === "closed") return;
      if (after > mirror.revision) return this.attach(subscriber, "unknown_id");
    }
    // Live messages from here on are held while the history up to here is written.
    this.flushChannel(subscriber.channel);
    subscriber.channel.subscribers.add(subscriber);
    const through = mirror.revision;
    subscriber.lastId = after;
    const complete = await this.replay(subscriber, after, through);
    if (subscriber.state === "closed") return;
    if (!complete) return this.attach(subscriber, "retention_exceeded");
    if (overflowed(subscriber, this.settings.bufferBytes)) return this.attach(subscriber, "slow_client");
    for (const chunk of subscriber.held) this.write(subscriber, chunk);
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
    const { channel } = subscriber;
    const fresh = (revision: Revision) => this.freshness(subscriber.view, revision.recordedAt);
    // A board's messages depend on each event's state before the revision: start from the feed as
    // it was at `after` and move it on revision by revision.
    let board: FeedMirror | null = null;
    if (channel.kind === "board") {
      board = new FeedMirror();
      board.reset(after, new Date(0), await snapshotThrough(this.db, after));
    }
    for (let from = after; from < through;) {
      const { revisions, complete } = await revisionsAfter(this.db, from, {
        eventIds: channel.kind === "event" ? [channel.eventId] : undefined,
        through,
        limit: REPLAY_PAGE,
      });
      if (!complete) return false;
      if (subscriber.state === "closed") return true;
      for (const revision of revisions) {
        let messages: StreamMessage[];
        if (channel.kind === "event") {
          messages = eventStreamMessages(revision, channel.eventId, fresh(revision));
        } else {
          const statusBefore = board!.get(revision.eventId)?.event.status;
          board!.apply(revision);
          const document = board!.get(revision.eventId);
          messages = document ? boardMessages(channel.filter, revision, document, statusBefore, fresh(revision)) : [];
        }
        for (const message of messages) {
          subscriber.sink.write(sseMessage(message.event, message.data, message.id));
          subscriber.lastId = message.id ?? subscriber.lastId;
          subscriber.messages++;
        }
        if (subscriber.sink.pending > this.settings.bufferBytes) await this.drained(subscriber);
        if (isClosed(subscriber) || overflowed(subscriber, this.settings.bufferBytes)) return true;
      }
      if (revisions.length < REPLAY_PAGE) break;
      from = revisions.at(-1)!.revision;
    }
    return true;
  }

  /** Waits for the client to take its replay so far; one that stalls is let go, to resume later. */
  private async drained(subscriber: Subscriber): Promise<void> {
    if (subscriber.state === "closed") return;
    if ((await drainOrStall(subscriber.sink, this.settings.pingSeconds)) !== "stalled") return;
    this.close(subscriber, true);
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
    const { channel, view } = subscriber;
    this.flushChannel(channel);
    const mirror = this.views.mirror(view);
    const fresh = this.freshness(view, this.viewMoment(view));
    let messages: StreamMessage[];
    if (catchUp && channel.kind === "board") {
      messages = boardCatchUp(mirror, channel.filter, subscriber.lastId, fresh);
      this.counters.conflated += messages.length;
    } else if (channel.kind === "board") {
      if (resync) this.counters.resyncs[resync]++;
      return this.sendBoardSnapshot(subscriber, resync);
    } else {
      if (resync) this.counters.resyncs[resync]++;
      const document = mirror.get(channel.eventId);
      // The event existed when the stream opened; a view that started again may lack it.
      if (!document) {
        return this.endWithError(
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
    const mirror = this.views.mirror(view);
    const now = Date.now();
    const reason = resync ?? "";
    let cached = channel.snapshots.get(reason);
    if (!cached || cached.revision !== mirror.revision || now - cached.madeAt > SNAPSHOT_REUSE_MS) {
      const fresh = this.freshness(view, this.viewMoment(view));
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
    if (this.staleSince) subscriber.sink.write(this.staleMessage(view));
    if (channel.kind === "event") {
      const document = this.views.mirror(view).get(channel.eventId);
      if (document && TERMINAL.includes(document.event.status)) {
        const end = endMessage(document, this.freshness(view, this.viewMoment(view)));
        subscriber.sink.write(sseMessage(end.event, end.data, undefined, end.retry));
        this.close(subscriber, true);
      }
    }
  }

  // --- live delivery ---------------------------------------------------------------------------

  private onRevision(view: ViewName, revision: Revision, document: EventDocument, statusBefore: string | undefined) {
    const eventChannel = this.eventChannels[view].get(revision.eventId);
    const boards = this.boardChannels[view];
    if (!eventChannel && boards.size === 0) return;
    const fresh = this.freshness(view, revision.recordedAt);
    if (eventChannel) {
      this.enqueue(eventChannel, eventStreamMessages(revision, revision.eventId, fresh));
      this.touched.add(eventChannel);
    }
    for (const channel of boards) {
      if (channel.kind !== "board") continue;
      this.enqueue(channel, boardMessages(channel.filter, revision, document, statusBefore, fresh));
    }
  }

  /** After a run of revisions: an event's stream whose event is now over says `end`, then closes. */
  private onApplied(): void {
    for (const channel of this.touched) {
      if (channel.kind !== "event" || channel.ending) continue;
      const document = this.views.mirror(channel.view).get(channel.eventId);
      if (document && TERMINAL.includes(document.event.status)) {
        this.enqueue(channel, [endMessage(document, this.freshness(channel.view, document.event.updated_at))]);
        channel.ending = true;
      }
    }
    this.touched.clear();
  }

  private enqueue(channel: Channel, messages: StreamMessage[]): void {
    if (messages.length === 0) return;
    for (const message of messages) {
      channel.pending.push(sseMessage(message.event, message.data, message.id, message.retry));
      if (message.id !== undefined) channel.pendingLastId = message.id;
    }
    // A change after a quiet spell goes out at once (what arrived in the same turn goes with it);
    // under a steady flow, writes are at least a flush tick apart, each carrying what gathered.
    if (this.flushTimer === undefined) {
      const wait = Math.max(0, this.lastFlushAt + this.settings.flushMs - performance.now());
      this.flushTimer = setTimeout(() => this.flush(), wait);
    }
  }

  /** Writes every channel's gathered messages to its clients, one write per client. */
  flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.lastFlushAt = performance.now();
    for (const channel of this.channels.values()) this.flushChannel(channel);
  }

  private flushChannel(channel: Channel): void {
    if (channel.pending.length === 0) return;
    const chunk: Chunk = {
      bytes: channel.pending.length === 1 ? channel.pending[0]! : Buffer.concat(channel.pending),
      lastId: channel.pendingLastId,
      ends: channel.ending,
    };
    channel.pending = [];
    channel.pendingLastId = undefined;
    for (const subscriber of [...channel.subscribers]) this.deliver(subscriber, chunk);
  }

  private deliver(subscriber: Subscriber, chunk: Chunk): void {
    switch (subscriber.state) {
      case "replaying":
        return holdDuringReplay(subscriber, chunk, this.settings.bufferBytes);
      case "live":
        if (subscriber.sink.pending > this.settings.bufferBytes && !chunk.ends) {
          this.counters.dropped++;
          return this.fallBehind(subscriber);
        }
        return this.write(subscriber, chunk);
      case "behind":
        if (chunk.ends) this.close(subscriber, true);
        else this.counters.dropped++;
        return;
      default:
        return;
    }
  }

  private write(subscriber: Subscriber, chunk: Chunk): void {
    subscriber.sink.write(chunk.bytes);
    if (chunk.lastId !== undefined) subscriber.lastId = chunk.lastId;
    subscriber.messages++;
    this.counters.messages++;
    if (chunk.ends) this.close(subscriber, true);
  }

  /**
   * The client is not taking what it is sent. Nothing more is written until its connection has
   * drained; then it gets the latest state instead of everything it missed.
   */
  private fallBehind(subscriber: Subscriber): void {
    subscriber.state = "behind";
    subscriber.sink.onDrain(() => {
      if (subscriber.state !== "behind") return;
      if (subscriber.channel.kind === "board") this.attach(subscriber, null, true);
      else this.attach(subscriber, "slow_client");
    });
  }

  /** Every client of a view starts again from a snapshot, told why. */
  private resyncView(view: ViewName, reason: ResyncReason): void {
    for (const subscriber of [...this.subscribers]) {
      if (subscriber.view !== view || subscriber.state === "closed") continue;
      if (subscriber.state === "replaying") continue; // its replay ends in a snapshot or the live feed
      if (subscriber.state === "behind") continue; // it gets the latest state once it drains
      this.attach(subscriber, reason);
    }
  }

  // --- liveness, keys, closing -----------------------------------------------------------------

  private ping(): void {
    const at = this.now();
    for (const subscriber of [...this.subscribers]) {
      const { key } = subscriber.principal;
      if (key.expiresAt && key.expiresAt <= at) {
        this.endWithError(subscriber, expiredError(subscriber.principal));
        continue;
      }
      if (subscriber.state === "live" && subscriber.sink.pending <= this.settings.bufferBytes) {
        subscriber.sink.write(SSE_PING);
      }
    }
  }

  /**
   * The instance sends itself a notification every second over the database; not hearing it for
   * `staleSeconds` means it cannot hear the feed either (database down or hung), and every
   * stream is told. When it is heard again, they are told that too, and the views read what was
   * missed from the history, so the changes arrive in order with nothing left out.
   */
  private heartbeat(): void {
    if (!this.heartbeatInFlight) {
      this.heartbeatInFlight = true;
      this.db
        .execute(sql`select pg_notify(${HEARTBEAT_CHANNEL}, ${this.instance})`)
        .catch(() => {})
        .finally(() => (this.heartbeatInFlight = false));
    }
    if (!this.staleSince && Date.now() - this.lastHeard > this.settings.staleSeconds * 1000) {
      this.staleSince = new Date(this.lastHeard);
      this.broadcastStale();
    }
  }

  private heard(): void {
    this.lastHeard = Date.now();
    if (!this.staleSince) return;
    this.staleSince = null;
    this.broadcastStale();
    void this.views.advance();
  }

  private broadcastStale(): void {
    this.flush();
    const messages = { present: this.staleMessage("present"), delayed: this.staleMessage("delayed") };
    for (const subscriber of this.subscribers) {
      if (subscriber.state === "live") subscriber.sink.write(messages[subscriber.view]);
    }
  }

  private staleMessage(view: ViewName): Buffer {
    const data = {
      stale: this.staleSince !== null,
      ...(this.staleSince ? { since: this.staleSince.toISOString() } : {}),
      ...this.freshness(view, this.viewMoment(view)),
    };
    return sseMessage("stale", data);
  }

  /** Streams of keys that changed: a revoked or expired key's streams end, saying why. */
  private async recheckKeys(concerns: (key: ApiKeyRecord) => boolean): Promise<void> {
    const byHash = new Map<string, Subscriber[]>();
    for (const subscriber of this.subscribers) {
      const { keyHash, key } = subscriber.principal;
      if (keyHash === null || !concerns(key)) continue;
      byHash.set(keyHash, [...(byHash.get(keyHash) ?? []), subscriber]);
    }
    for (const [hash, subscribers] of byHash) {
      let current: ApiKeyRecord | null;
      try {
        current = await findKeyByHash(this.db, hash);
      } catch {
        continue; // the database is away; the bus's resync checks again once it is back
      }
      for (const subscriber of subscribers) {
        const refusal = refusalOf(current, subscriber, this.now());
        if (refusal) this.endWithError(subscriber, refusal);
        else if (current) subscriber.principal = { ...subscriber.principal, key: current };
      }
    }
  }

  /** The stream's last message: the problem that ends it, as the API would answer it. */
  private endWithError(subscriber: Subscriber, error: StreamEnding): void {
    if (subscriber.state === "closed") return;
    const fresh = this.freshness(subscriber.view, this.viewMoment(subscriber.view));
    if (subscriber.state !== "behind") {
      subscriber.sink.write(sseMessage("error", { ...this.problem(error, subscriber.requestId), ...fresh }));
    }
    this.close(subscriber, true);
  }

  private close(subscriber: Subscriber, endConnection: boolean): void {
    if (subscriber.state === "closed") return;
    subscriber.state = "closed";
    subscriber.held = [];
    this.subscribers.delete(subscriber);
    this.counters.closed++;
    subscriber.slot.release();
    const { channel, principal } = subscriber;
    logger().info(
      {
        request_id: subscriber.requestId,
        ...(principal.session ? { session: true } : { key_id: principal.key.id }),
        stream: channel.kind,
        view: subscriber.view,
        duration_ms: Date.now() - subscriber.openedAt,
        messages: subscriber.messages,
        ended_by: endConnection ? "service" : "client",
      },
      "stream closed",
    );
    channel.subscribers.delete(subscriber);
    if (channel.subscribers.size === 0) this.dropChannel(channel);
    if (endConnection) subscriber.sink.end();
  }

  // --- channels ----------------------------------------------------------------------------------

  private channelFor(view: ViewName, spec: ChannelSpec): Channel {
    const id =
      spec.kind === "event"
        ? `${view}|event|${spec.eventId}`
        : `${view}|board|${[...spec.filter.sports].sort().join(",")}|${spec.filter.type ?? ""}`;
    let channel = this.channels.get(id);
    if (!channel) {
      channel = {
        ...spec,
        id,
        view,
        subscribers: new Set(),
        pending: [],
        pendingLastId: undefined,
        ending: false,
        snapshots: new Map(),
      };
      this.channels.set(id, channel);
      if (channel.kind === "event") this.eventChannels[view].set(channel.eventId, channel);
      else this.boardChannels[view].add(channel);
    }
    return channel;
  }

  private dropChannel(channel: Channel): void {
    if (this.channels.get(channel.id) !== channel) return;
    this.channels.delete(channel.id);
    if (channel.kind === "event") this.eventChannels[channel.view].delete(channel.eventId);
    else this.boardChannels[channel.view].delete(channel);
  }

  private viewMoment(view: ViewName): Date {
    const at = this.now();
    return view === "present" ? at : new Date(at.getTime() - this.views.delaySeconds * 1000);
  }

  private freshness(view: ViewName, asOf: Date | string): Freshness {
    const sandbox = view === "delayed";
    return freshness(sandbox, sandbox ? this.views.delaySeconds : 0, new Date(asOf));
  }
}

// A function, so that TypeScript does not keep a state it narrowed before an await.
const isClosed = (subscriber: Subscriber) => subscriber.state === "closed";

function expiredError(principal: StreamPrincipal): StreamEnding {
  return principal.session
    ? new StreamEnding("session_expired", "The console session ended; sign in again to follow the feed.")
    : new StreamEnding("key_expired", `This sandbox key expired at ${principal.key.expiresAt!.toISOString()}.`);
}

/** Why a stream may not go on with its key as it is now, or null when it may. */
function refusalOf(key: ApiKeyRecord | null, subscriber: Subscriber, at: Date): StreamEnding | null {
  const code = (c: StreamEndingCode, message: string) => new StreamEnding(c, message);
  if (!key) return code("invalid_api_key", "The stream's key no longer exists.");
  if (key.revokedAt) return code("key_revoked", `This key was revoked on ${key.revokedAt.toISOString()}.`);
  if (key.expiresAt && key.expiresAt <= at) return expiredError({ ...subscriber.principal, key });
  const { channel } = subscriber;
  const sports: readonly string[] = channel.kind === "board" ? channel.filter.sports : [channel.sport];
  const uncovered = sports.find((sport) => !(key.sports as string[]).includes(sport));
  if (uncovered) return code("sport_not_covered", `The key's plan no longer covers ${uncovered}.`);
  const licence = keyLicenceRefusal(key, at);
  if (licence !== null) return code("licence_inactive", licence);
  return null;
}
