import { EventSourcePolyfill } from "event-source-polyfill";
import { EventSource, type FetchLike } from "eventsource";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { FEED_TOKEN, ingest } from "../../testing/feed.ts";
import { organisationWithKeys } from "../../testing/organisations.ts";
import { startServer, type RunningServer } from "../../testing/processes.ts";
import { openSse, type SseClient } from "../../testing/sse.ts";
import { tcpProxy } from "../../testing/tcp-proxy.ts";

// The streams with the EventSource clients key holders use, where those clients' own behaviour
// decides what a stream costs: `eventsource` (the WHATWG EventSource for Node) after an event
// ends, and `event-source-polyfill` (EventSource with headers, in browsers) when it resumes. And
// what a resuming client that stops reading may hold on the server.

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

let sequence = 10;
const next = () => ++sequence;

const market = (eventId: string, type: string, price: number, status = "open") => ({
  id: `${eventId}:${type}`,
  type,
  name: type,
  line: null,
  status,
  outcomes: [
    { id: `${eventId}:${type}:a`, name: "A", price, status: status === "open" ? "active" : "suspended" },
    { id: `${eventId}:${type}:b`, name: "B", price: 2.2, status: status === "open" ? "active" : "suspended" },
  ],
});

const live = (id: string) => ({
  event_id: id,
  sequence: next(),
  event: {
    sport: "soccer",
    competition: "soccer cup",
    home: `${id} home`,
    away: `${id} away`,
    status: "live",
    feed: "official",
    kickoff: new Date(Date.now() - 30 * MINUTE_MS).toISOString(),
  },
  markets: [market(id, "match_winner", 1.8)],
});
const score = (id: string, home: number) => ({ event_id: id, sequence: next(), event: { score: { home, away: 0 } } });
const finish = (id: string) => ({
  event_id: id,
  sequence: next(),
  event: { status: "finished" },
  markets: [market(id, "match_winner", 1.8, "settled")],
});

// Thirty markets with long names: each revision's `markets` message is about 7 KB.
const wideMarkets = (id: string, round: number) =>
  Array.from({ length: 30 }, (_, i) => ({
    ...market(id, "match_winner", 1.5 + (round % 300) / 1000),
    id: `${id}:mw-${i}`,
    name: `Winner ${i} ${"x".repeat(100)}`,
  }));
const wideRevisions = (id: string, count: number, from: number) =>
  Array.from({ length: count }, (_, i) => ({ event_id: id, sequence: next(), markets: wideMarkets(id, from + i) }));

/** The `eventsource` package's fetch, sending the key and recording every request it makes. */
function recordingFetch(key: string) {
  const requests: string[] = [];
  const statuses: number[] = [];
  const fetchLike: FetchLike = (url, init) => {
    requests.push(String(url));
    return fetch(url, { ...init, headers: { ...init.headers, authorization: `Bearer ${key}` } }).then((response) => {
      statuses.push(response.status);
      return response;
    });
  };
  return { requests, statuses, fetch: fetchLike };
}

/** Resolves with the next event of this type the source dispatches. */
const nextEvent = <T extends Event>(source: EventTarget, type: string) =>
  new Promise<T>((resolve) => source.addEventListener(type, (event) => resolve(event as T), { once: true }));

/**
 * Resolves with the source's next `error`, with the test's clock replaced in the same turn: an
 * EventSource dispatches `error` just before it arms its reconnect timer, so that timer is the fake
 * clock's, and the test can move the client's time on by an hour without waiting for it.
 */
const nextErrorOnFakeClock = (source: EventTarget) =>
  new Promise<Event>((resolve) =>
    source.addEventListener(
      "error",
      (event) => {
        vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
        resolve(event);
      },
      { once: true },
    ),
  );

const monthLeft = (headers: Headers | SseClient["headers"]) =>
  Number(
    /"month";r=(\d+)/.exec(String(headers instanceof Headers ? headers.get("ratelimit") : headers["ratelimit"]))![1],
  );

describeEachBackend("stream clients on $name", (backend) => {
  const database = useTestDatabase(backend);
  let server: RunningServer;
  let key: string;
  const clients: SseClient[] = [];
  const sources: { close(): void }[] = [];

  beforeAll(async () => {
    const env = database().env;
    key = (await organisationWithKeys(env, "clients-org", { plan: "starter", sandboxSport: "soccer" })).production.key;
    server = await startServer({ ...env, FEED_TOKEN, STREAM_PING_SECONDS: "3", STREAM_BUFFER_BYTES: "65536" });
    await ingest(server.url, [live("c-ends"), live("c-over"), live("c-resume"), live("c-slow"), live("c-stall")]);
  });

  afterAll(async () => {
    vi.useRealTimers();
    for (const client of clients) client.close();
    for (const source of sources) source.close();
    await server?.stop();
  });

  const open = async (path: string, headers: Record<string, string> = {}, paused = false) => {
    const client = await openSse(`${server.url}${path}`, {
      headers: { authorization: `Bearer ${key}`, ...headers },
      paused,
    });
    clients.push(client);
    return client;
  };

  it("eventsource: after `end` the client waits an hour, not a minute, and is then told 204 and stops", async () => {
    const recorded = recordingFetch(key);
    const source = new EventSource(`${server.url}/api/v1/events/c-ends/stream`, { fetch: recorded.fetch });
    sources.push(source);
    await nextEvent(source, "snapshot");
    const ended = nextEvent<MessageEvent>(source, "end");
    const closedByServer = nextErrorOnFakeClock(source);
    await ingest(server.url, [finish("c-ends")]);
    expect(JSON.parse((await ended).data as string)).toMatchObject({ event_id: "c-ends", status: "finished" });
    try {
      await closedByServer;
      expect(source.readyState).toBe(EventSource.CONNECTING);
      vi.advanceTimersByTime(MINUTE_MS);
      expect(recorded.requests).toHaveLength(1);
      vi.advanceTimersByTime(HOUR_MS - MINUTE_MS);
      expect(recorded.requests).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
    const refused = await nextEvent<Event & { code?: number }>(source, "error");
    expect(refused.code).toBe(204);
    expect(recorded.statuses).toEqual([200, 204]);
    expect(source.readyState).toBe(EventSource.CLOSED);
  });

  it("eventsource: a finished event's stream answers 204, counted once, and the client makes no other request", async () => {
    await ingest(server.url, [finish("c-over")]);
    const before = await fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    const recorded = recordingFetch(key);
    const source = new EventSource(`${server.url}/api/v1/events/c-over/stream`, { fetch: recorded.fetch });
    sources.push(source);
    const refused = (await nextErrorOnFakeClock(source)) as Event & { code?: number };
    try {
      expect(refused.code).toBe(204);
      expect(source.readyState).toBe(EventSource.CLOSED);
      expect(vi.getTimerCount()).toBe(0);
      vi.advanceTimersByTime(HOUR_MS);
      expect(recorded.requests).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
    const after = await fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    // The stream's 204 and the second /me: two requests counted since the first /me.
    expect(monthLeft(before.headers) - monthLeft(after.headers)).toBe(2);
  });

  it("event-source-polyfill: resumes with its `lastEventId` query parameter after the connection drops", async () => {
    const proxy = await tcpProxy({ host: "127.0.0.1", port: Number(new URL(server.url).port) });
    try {
      const seen: { type: string; id: string; data: Record<string, unknown> }[] = [];
      const source = new EventSourcePolyfill(`http://127.0.0.1:${proxy.port}/api/v1/events/c-resume/stream`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      sources.push(source);
      let arrived: () => void = () => {};
      for (const type of ["snapshot", "event", "markets"]) {
        source.addEventListener(type, (event) => {
          const message = event as MessageEvent<string>;
          seen.push({ type, id: message.lastEventId, data: JSON.parse(message.data) as Record<string, unknown> });
          arrived();
        });
      }
      const until = (predicate: () => boolean) =>
        new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`not seen: ${JSON.stringify(seen)}`)), 15_000);
          arrived = () => {
            if (!predicate()) return;
            clearTimeout(timer);
            resolve();
          };
          arrived();
        });
      await until(() => seen.some((m) => m.type === "snapshot"));
      // Dropped while a goal is scored: the polyfill reconnects with ?lastEventId=<snapshot's id>.
      await proxy.cut();
      await ingest(server.url, [score("c-resume", 1)]);
      await proxy.restore();
      await until(() => seen.some((m) => m.type === "event"));
      expect(seen.map((m) => m.type)).toEqual(["snapshot", "event"]);
      expect(Number(seen[1]!.id)).toBeGreaterThan(Number(seen[0]!.id));
      expect(source.readyState).toBe(EventSourcePolyfill.OPEN);
      source.close();
    } finally {
      await proxy.close();
    }
  });

  it("takes `lastEventId` as `last_event_id`, prefers it to `last_event_id`, and the header to both", async () => {
    const first = await open("/api/v1/events/c-resume/stream");
    const snapshot = await first.waitFor((m) => m.event === "snapshot");
    first.close();
    await ingest(server.url, [score("c-resume", 2)]);
    const scored = (m: { event: string; data: Record<string, unknown> }) =>
      m.event === "event" && (m.data.event as { score: { home: number } }).score.home === 2;
    for (const [query, headers] of [
      [`lastEventId=${snapshot.id}`, {}],
      [`lastEventId=${snapshot.id}&last_event_id=not-an-id`, {}],
      ["lastEventId=not-an-id&last_event_id=not-an-id", { "last-event-id": String(snapshot.id) }],
    ] as const) {
      const resumed = await open(`/api/v1/events/c-resume/stream?${query}`, headers);
      expect(resumed.status).toBe(200);
      await resumed.waitFor(scored);
      expect(resumed.messages.map((m) => m.event)).toEqual(["event"]);
      resumed.close();
    }
    const unplaced = await open("/api/v1/events/c-resume/stream?lastEventId=not-an-id");
    expect((await unplaced.waitFor((m) => m.event === "snapshot")).data).toMatchObject({ reason: "unknown_id" });
    unplaced.close();
  });

  it("ends the replay of a client that stops reading while live changes pile up: a slow_client resync", async () => {
    const first = await open("/api/v1/events/c-slow/stream");
    const snapshot = await first.waitFor((m) => m.event === "snapshot");
    first.close();
    // Far more history than the connection's buffer (64 KB here) and the kernel's socket buffers.
    const missed = 1_200;
    await ingest(server.url, wideRevisions("c-slow", missed, 0));
    const resumed = await open("/api/v1/events/c-slow/stream", { "last-event-id": String(snapshot.id) }, true);
    // Its replay waits for it to read; meanwhile more than the buffer of live changes arrive.
    const last = await ingest(server.url, wideRevisions("c-slow", 20, missed));
    resumed.resume();
    const resync = await resumed.waitFor((m) => m.event === "snapshot", 30_000);
    expect(resync.data).toMatchObject({ resync: true, reason: "slow_client" });
    expect(resync.id).toBeGreaterThanOrEqual(last);
    // Not the rest of a history it could no longer use.
    const replayed = resumed.messages.indexOf(resync);
    expect(replayed).toBeLessThan(missed);
    await ingest(server.url, [score("c-slow", 1)]);
    await resumed.waitFor((m) => m.event === "event");
    resumed.close();
  });

  it("lets go of a resuming client that reads nothing for four ping intervals", async () => {
    const first = await open("/api/v1/events/c-stall/stream");
    const snapshot = await first.waitFor((m) => m.event === "snapshot");
    first.close();
    await ingest(server.url, wideRevisions("c-stall", 1_200, 0));
    const stalled = await stalledConnection(server.url, "/api/v1/events/c-stall/stream", {
      authorization: `Bearer ${key}`,
      "last-event-id": String(snapshot.id),
    });
    // No live changes meanwhile: past the buffer they would end the replay in a slow_client resync
    // before it stalls, and a client that fell behind live is not let go.
    // A client that reads nothing cannot see its connection reset: the server's log says it.
    const closedBy = () =>
      server
        .output()
        .split("\n")
        .find((line) => line.includes(stalled.requestId) && line.includes('"msg":"stream closed"'));
    for (const deadline = Date.now() + 60_000; !closedBy();) {
      if (Date.now() > deadline) throw new Error("the stalled stream is still open");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(JSON.parse(closedBy()!)).toMatchObject({ ended_by: "service" });
    stalled.socket.resume();
    await new Promise((resolve) => stalled.socket.once("close", resolve));
  });
});

/**
 * A stream request on a raw socket that stops reading once the response's head has come. A socket
 * that has read almost nothing keeps the kernel's receive buffer at its initial size; an HTTP
 * client reading on would let the kernel grow it to tens of megabytes and take a whole replay.
 */
function stalledConnection(base: string, path: string, headers: Record<string, string>) {
  const { hostname, port } = new URL(base);
  return new Promise<{ socket: Socket; requestId: string }>((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      const lines = Object.entries({ host: `${hostname}:${port}`, accept: "text/event-stream", ...headers });
      socket.write(`GET ${path} HTTP/1.1\r\n${lines.map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`);
    });
    let head = "";
    const onData = (chunk: Buffer) => {
      head += chunk.toString("latin1");
      const requestId = /x-request-id: *(\S+)/i.exec(head)?.[1];
      if (!head.includes("\r\n\r\n") || !requestId) return;
      socket.pause();
      socket.off("data", onData);
      resolve({ socket, requestId });
    };
    socket.on("data", onData);
    socket.on("error", reject);
  });
}
