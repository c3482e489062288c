import { afterEach, describe, expect, it, vi } from "vitest";
import { StreamEnding } from "./errors.ts";
import {
  eventState,
  FakeFeed,
  FakeKeys,
  FakeSessions,
  FakeSink,
  keyRecord,
  streamRequest,
} from "../../testing/stream-fakes.ts";
import { StreamHub } from "./hub.ts";

// The hub over a feed, keys and connections made up in memory: each subscriber's way from opening
// to live (snapshot, replay, resyncs), falling behind, the end of an event, and revocations.

const settings = { pingSeconds: 60, flushMs: 0, bufferBytes: 4_096, staleSeconds: 60, sessionStreams: 4 };
const market = (price: number, at: string) => [
  {
    id: "m1",
    type: "match_winner",
    name: "Result",
    line: null,
    status: "open",
    outcomes: [{ id: "o1", name: "Home", price, status: "active" }],
    updated_at: at,
  },
];

let hubs: StreamHub[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const hub of hubs) hub.stop();
  hubs = [];
});

async function setUp(now = () => new Date()) {
  const feed = new FakeFeed();
  const keys = new FakeKeys();
  const sessions = new FakeSessions();
  keys.byHash.set("hash_1", keyRecord());
  const hub = new StreamHub({
    feed,
    keys,
    sessions,
    heartbeat: { send: () => Promise.resolve(), onHeard: () => Promise.resolve(() => {}) },
    now,
    settings,
    problem: (ending: StreamEnding, requestId: string) => ({
      type: `/docs/errors#${ending.code}`,
      title: ending.code,
      status: 401,
      detail: ending.message,
      code: ending.code,
      request_id: requestId,
    }),
  });
  hubs.push(hub);
  await hub.start();
  feed.publish("e1", "event", eventState("e1"));
  return { feed, keys, sessions, hub };
}

/** A connection that keeps each chunk written to it as it was given. */
class BytesSink extends FakeSink {
  readonly chunks: Buffer[] = [];
  override write(chunk: Buffer): void {
    this.chunks.push(chunk);
    super.write(chunk);
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("a subscriber's way from opening to live", () => {
  it("gives a new client retry, then a snapshot as of the present revision, then each change", async () => {
    const { feed, hub } = await setUp();
    const sink = new FakeSink();
    hub.openEventStream(streamRequest(sink), { id: "e1", sport: "soccer" });
    expect(sink.messages[0]).toEqual({ retry: 2_000 });
    expect(sink.messages[1]).toMatchObject({ event: "snapshot", id: 1, data: { event: { id: "e1" } } });
    const changed = feed.publish("e1", "event", { ...eventState("e1"), score: { home: 1, away: 0 } });
    hub.flush();
    expect(sink.messages.at(-1)).toMatchObject({ event: "event", id: changed.revision });
    expect(hub.open).toEqual({ streams: 1, channels: 1 });
  });

  it("replays every change a resuming client missed, in order, with no snapshot", async () => {
    const { feed, hub } = await setUp();
    const second = feed.publish("e1", "event", { ...eventState("e1"), score: { home: 1, away: 0 } });
    const third = feed.publish("e1", "event", { ...eventState("e1"), score: { home: 2, away: 0 } });
    const sink = new FakeSink();
    hub.openEventStream(streamRequest(sink, {}, "1"), { id: "e1", sport: "soccer" });
    await settle();
    expect(sink.events).toEqual(["event", "event"]);
    expect(sink.messages.flatMap((m) => (m.id ? [m.id] : []))).toEqual([second.revision, third.revision]);
    const fourth = feed.publish("e1", "event", { ...eventState("e1"), score: { home: 3, away: 0 } });
    hub.flush();
    expect(sink.messages.at(-1)).toMatchObject({ event: "event", id: fourth.revision });
  });

  it("replays a client that missed several pages of history every change, on both kinds of stream", async () => {
    const { feed, hub } = await setUp();
    // Three pages and a bit: a replay that stopped after its first page would lose the rest.
    const missed = Array.from({ length: 3_200 }, (_, goals) =>
      feed.publish("e1", "event", { ...eventState("e1"), score: { home: goals + 1, away: 0 } }),
    ).map((r) => r.revision);
    const event = new FakeSink();
    const board = new FakeSink();
    hub.openEventStream(streamRequest(event, {}, "1"), { id: "e1", sport: "soccer" });
    hub.openBoardStream(streamRequest(board, {}, "1"), { sports: ["soccer"], type: null });
    for (const sink of [event, board]) {
      await vi.waitFor(() => expect(sink.messages.filter((m) => m.id).length).toBe(missed.length), 10_000);
      expect(sink.messages.flatMap((m) => (m.id ? [m.id] : []))).toEqual(missed);
      expect(sink.events).not.toContain("snapshot");
    }
    expect(board.messages.at(-1)).toMatchObject({ data: { event: { score: { home: 3_200 } } } });
  });

  it("says resync and why when the id is not one it can place, or older than the history kept", async () => {
    const { feed, hub } = await setUp();
    const unknown = new FakeSink();
    hub.openEventStream(streamRequest(unknown, {}, "not-a-revision"), { id: "e1", sport: "soccer" });
    await settle();
    expect(unknown.messages[1]).toMatchObject({ event: "snapshot", data: { resync: true, reason: "unknown_id" } });

    feed.publish("e1", "event", eventState("e1"));
    feed.retainedAfter = 1;
    const old = new FakeSink();
    hub.openEventStream(streamRequest(old, {}, "0"), { id: "e1", sport: "soccer" });
    await settle();
    expect(old.messages.at(-1)).toMatchObject({
      event: "snapshot",
      data: { resync: true, reason: "retention_exceeded" },
    });
    expect(hub.counters.resyncs).toMatchObject({ unknown_id: 1, retention_exceeded: 1 });
  });

  it("sends a board snapshot once serialised to clients that open at the same revision", async () => {
    const { hub } = await setUp();
    const sinks = [new FakeSink(), new FakeSink()];
    for (const sink of sinks) hub.openBoardStream(streamRequest(sink), { sports: ["soccer"], type: null });
    const [first, second] = sinks.map((sink) => sink.messages[1]);
    expect(first).toMatchObject({ event: "snapshot", data: { events: [{ id: "e1" }] } });
    expect(second).toEqual(first);
    expect(hub.open).toEqual({ streams: 2, channels: 1 });
  });

  it("writes boards of other sport sets the same bytes for a change of an event they all show", async () => {
    // One moment for the change and its markets' updated_at, as the ingest stamps them.
    vi.useFakeTimers({ toFake: ["Date"] });
    const { feed, hub } = await setUp();
    const [soccer, soccerAndTennis, tennis, totals] = [
      new BytesSink(),
      new BytesSink(),
      new BytesSink(),
      new BytesSink(),
    ];
    hub.openBoardStream(streamRequest(soccer), { sports: ["soccer"], type: null });
    hub.openBoardStream(streamRequest(soccerAndTennis), { sports: ["tennis", "soccer"], type: null });
    hub.openBoardStream(streamRequest(tennis), { sports: ["tennis"], type: null });
    hub.openBoardStream(streamRequest(totals), { sports: ["soccer"], type: "totals" });
    expect(hub.open).toEqual({ streams: 4, channels: 4 });
    const changed = feed.publish("e1", "markets", market(2.2, new Date().toISOString()));
    hub.flush();
    for (const sink of [soccer, soccerAndTennis]) expect(sink.messages.at(-1)).toMatchObject({ id: changed.revision });
    expect(soccerAndTennis.chunks.at(-1)).toBe(soccer.chunks.at(-1));
    expect(tennis.messages.at(-1)).toMatchObject({ event: "snapshot" });
    // No market of the type asked for changed: the totals board hears nothing.
    expect(totals.messages.at(-1)).toMatchObject({ event: "snapshot" });
  });

  it("writes nothing to a client past its buffer, then a slow_client snapshot once it drains", async () => {
    const { feed, hub } = await setUp();
    const sink = new FakeSink();
    hub.openEventStream(streamRequest(sink), { id: "e1", sport: "soccer" });
    sink.pending = settings.bufferBytes + 1;
    const written = sink.messages.length;
    feed.publish("e1", "markets", market(1.9, new Date().toISOString()));
    hub.flush();
    feed.publish("e1", "markets", market(2.1, new Date().toISOString()));
    hub.flush();
    expect(sink.messages.length).toBe(written);
    expect(hub.counters.dropped).toBe(2);
    sink.drain();
    expect(sink.messages.at(-1)).toMatchObject({ event: "snapshot", data: { reason: "slow_client" } });
  });

  it("starts every client of a view again when the view does, saying bus_reconnected", async () => {
    const { feed, hub } = await setUp();
    const sink = new FakeSink();
    hub.openEventStream(streamRequest(sink), { id: "e1", sport: "soccer" });
    feed.reset("present");
    expect(sink.messages.at(-1)).toMatchObject({
      event: "snapshot",
      data: { resync: true, reason: "bus_reconnected" },
    });
  });

  it("sends end when the event is over, closes the stream and gives its place back", async () => {
    const { feed, hub } = await setUp();
    const sink = new FakeSink();
    const request = streamRequest(sink);
    hub.openEventStream(request, { id: "e1", sport: "soccer" });
    feed.publish("e1", "event", eventState("e1", "finished"));
    hub.flush();
    expect(sink.messages.at(-1)).toMatchObject({ event: "end", retry: 3_600_000, data: { status: "finished" } });
    expect(sink.ended).toBe(true);
    expect(request.slot.released).toBe(1);
    expect(hub.open).toEqual({ streams: 0, channels: 0 });
  });

  it("forgets a client that hangs up, and its channel with it", async () => {
    const { hub } = await setUp();
    const sink = new FakeSink();
    const request = streamRequest(sink);
    hub.openEventStream(request, { id: "e1", sport: "soccer" });
    sink.hangUp();
    expect(sink.ended).toBe(false);
    expect(request.slot.released).toBe(1);
    expect(hub.open).toEqual({ streams: 0, channels: 0 });
  });

  it("ends every stream with a short retry on shutdown and opens no more", async () => {
    const { hub } = await setUp();
    const sink = new FakeSink();
    hub.openBoardStream(streamRequest(sink), { sports: ["soccer"], type: null });
    hub.shutdown();
    expect(sink.messages.at(-1)).toEqual({ retry: 250 });
    expect(sink.ended).toBe(true);
    expect(hub.acceptingStreams).toBe(false);
  });
});

describe("revocation, fed by the key directory's changes", () => {
  it("ends the streams of a revoked key with its problem, and no other key's", async () => {
    const { keys, hub } = await setUp();
    keys.byHash.set("hash_2", keyRecord({ id: "key_2" }));
    const revoked = new FakeSink();
    const other = new FakeSink();
    hub.openBoardStream(streamRequest(revoked), { sports: ["soccer"], type: null });
    hub.openBoardStream(streamRequest(other, { key: keyRecord({ id: "key_2" }), keyHash: "hash_2" }), {
      sports: ["soccer"],
      type: null,
    });
    keys.byHash.set("hash_1", keyRecord({ revokedAt: new Date("2026-11-25T12:00:00Z") }));
    keys.change({ keyId: "key_1" });
    await settle();
    expect(revoked.messages.at(-1)).toMatchObject({
      event: "error",
      data: { code: "key_revoked", request_id: "req_1", sandbox: false, delay_seconds: 0 },
    });
    expect(revoked.ended).toBe(true);
    expect(other.ended).toBe(false);
  });

  it("ends a stream whose plan no longer covers its sport, and keeps one it still covers", async () => {
    const { keys, hub } = await setUp();
    const tennis = new FakeSink();
    const soccer = new FakeSink();
    hub.openEventStream(streamRequest(soccer), { id: "e1", sport: "soccer" });
    hub.openBoardStream(streamRequest(tennis), { sports: ["tennis"], type: null });
    keys.byHash.set("hash_1", keyRecord({ sports: ["soccer"] }));
    keys.change({ orgId: "org_1" });
    await settle();
    expect(tennis.messages.at(-1)).toMatchObject({ event: "error", data: { code: "sport_not_covered" } });
    expect(soccer.ended).toBe(false);
  });

  it("leaves console sessions' streams to the sessions' own revocations", async () => {
    const { keys, hub } = await setUp();
    const sink = new FakeSink();
    hub.openBoardStream(streamRequest(sink, { key: keyRecord({ id: "member:u1" }), keyHash: null, session: true }), {
      sports: ["soccer"],
      type: null,
    });
    keys.change(null);
    await settle();
    expect(sink.ended).toBe(false);
  });
});

describe("expiry", () => {
  afterEach(() => vi.useRealTimers());

  it("ends a key's stream with key_expired, and a session's with session_expired, at the first ping after", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    let at = new Date("2026-11-25T12:00:00Z");
    const { hub } = await setUp(() => at);
    const expiresAt = new Date(at.getTime() + 90_000);
    const [key, session, lasting] = [new FakeSink(), new FakeSink(), new FakeSink()];
    hub.openEventStream(streamRequest(key, { key: keyRecord({ expiresAt }) }), { id: "e1", sport: "soccer" });
    hub.openEventStream(streamRequest(session, { key: keyRecord({ expiresAt }), keyHash: null, session: true }), {
      id: "e1",
      sport: "soccer",
    });
    hub.openEventStream(streamRequest(lasting), { id: "e1", sport: "soccer" });

    at = new Date(at.getTime() + 60_000);
    vi.advanceTimersByTime(60_000);
    expect([key.ended, session.ended]).toEqual([false, false]);

    at = new Date(at.getTime() + 60_000);
    vi.advanceTimersByTime(60_000);
    expect(key.messages.at(-1)).toMatchObject({ event: "error", data: { code: "key_expired" } });
    expect(session.messages.at(-1)).toMatchObject({ event: "error", data: { code: "session_expired" } });
    expect([key.ended, session.ended, lasting.ended]).toEqual([true, true, false]);
    expect(hub.open.streams).toBe(1);
  });
});

describe("revocation of console sessions", () => {
  const member = (userId: string) => ({ key: keyRecord({ id: `member:${userId}` }), keyHash: null, session: true });
  const board = { sports: ["soccer" as const], type: null };

  it("ends the revoked member's streams with session_expired, and no one else's", async () => {
    const { sessions, hub } = await setUp();
    const revoked = new FakeSink();
    const otherMember = new FakeSink();
    const key = new FakeSink();
    hub.openBoardStream(streamRequest(revoked, member("u1")), board);
    hub.openEventStream(streamRequest(otherMember, member("u2")), { id: "e1", sport: "soccer" });
    hub.openBoardStream(streamRequest(key), board);
    sessions.revoke({ userId: "u1" });
    expect(revoked.messages.at(-1)).toMatchObject({
      event: "error",
      data: { code: "session_expired", request_id: "req_1", sandbox: false },
    });
    expect(revoked.ended).toBe(true);
    expect(otherMember.ended).toBe(false);
    expect(key.ended).toBe(false);
  });

  it("closes every session's stream with a short retry when revocations may have been missed", async () => {
    const { sessions, hub } = await setUp();
    const session = new FakeSink();
    const key = new FakeSink();
    hub.openBoardStream(streamRequest(session, member("u1")), board);
    hub.openBoardStream(streamRequest(key), board);
    sessions.revoke(null);
    expect(session.messages.at(-1)).toEqual({ retry: 250 });
    expect(session.ended).toBe(true);
    expect(key.ended).toBe(false);
  });
});
