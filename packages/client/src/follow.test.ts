import { describe, expect, it, vi } from "vitest";
import { createClient } from "./client.ts";
import { ProblemError } from "./errors.ts";
import type { EventStreamMessage } from "./types.ts";

// Following a stream against a fake fetch: each request is answered by a script of the test's,
// whose stream stays open until the script closes it or the client lets it go. Waits are kept
// short with maxDelayMs; the real service is followed in tests/integration/client.test.ts.

const KEY = "svc_sk_testtesttesttesttesttesttesttest";
const SSE = { "content-type": "text/event-stream" };

type Connection = {
  url: string;
  headers: Headers;
  signal: AbortSignal;
  send(text: string): void;
  close(): void;
};

/** A fetch whose each request is handed to `answer`, which returns a Response or opens a stream. */
function scriptedFetch(answer: (connection: Connection, index: number) => Response | "stream" | Error) {
  const connections: Connection[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
    const signal = init!.signal!;
    const encoder = new TextEncoder();
    const connection: Connection = {
      url: String(input),
      headers: new Headers(init?.headers),
      signal,
      send: (text) => controller.enqueue(encoder.encode(text)),
      close: () => controller.close(),
    };
    signal.addEventListener("abort", () => controller.error(signal.reason));
    connections.push(connection);
    const result = answer(connection, connections.length - 1);
    if (result instanceof Error) throw result;
    return result === "stream" ? new Response(body, { headers: SSE }) : result;
  });
  return { fetch: fetch as unknown as typeof globalThis.fetch, connections };
}

const frame = (event: string, data: unknown, id?: number) =>
  `${id === undefined ? "" : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const FRESH = { sandbox: false, delay_seconds: 0, as_of: "2026-11-26T10:00:00.000Z" };
const snapshot = (id: number, extra = {}) => frame("snapshot", { event: { id: "e1" }, ...FRESH, ...extra }, id);
const markets = (id: number, extra = {}) => frame("markets", { event_id: "e1", markets: [], ...FRESH, ...extra }, id);
const problem = (status: number, code: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ status, code, title: code, detail: code, request_id: "req_1", type: "x" }), {
    status,
    headers: { "content-type": "application/problem+json", ...headers },
  });

const client = (fetch: typeof globalThis.fetch, credentials: { key: string } | { token: string } = { key: KEY }) =>
  createClient(credentials, { baseUrl: "http://api.test", fetch, retry: { maxDelayMs: 5 } });

/** Takes `count` messages from the iterator. */
async function take<T>(iterator: AsyncIterator<T>, count: number): Promise<T[]> {
  const taken: T[] = [];
  while (taken.length < count) {
    const next = await iterator.next();
    if (next.done) break;
    taken.push(next.value);
  }
  return taken;
}

describe("following a stream", () => {
  it("opens it with the key, reads typed messages, and resumes after any close with Last-Event-ID", async () => {
    const { fetch, connections } = scriptedFetch((connection, index) => {
      if (index === 0) {
        connection.send(`retry: 1\n\n${snapshot(5)}${markets(6)}`);
        setTimeout(() => connection.close(), 0); // a close without `end`: a restart
      }
      if (index === 1) return new TypeError("connection refused"); // still down
      if (index === 2) return problem(503, "unavailable", { "retry-after": "1" });
      if (index === 3) connection.send(markets(7));
      return "stream";
    });
    const stream = client(fetch).follow("e1");
    const messages = await take(stream, 3);
    expect(messages.map((m) => [m.event, m.id])).toEqual([
      ["snapshot", "5"],
      ["markets", "6"],
      ["markets", "7"],
    ]);
    expect(connections[0]!.url).toBe("http://api.test/api/v1/events/e1/stream");
    expect(connections[0]!.headers.get("authorization")).toBe(`Bearer ${KEY}`);
    expect(connections[0]!.headers.get("accept")).toBe("text/event-stream");
    expect(connections.map((c) => c.headers.get("last-event-id"))).toEqual([null, "6", "6", "6"]);
    await stream.return();
    expect(connections[3]!.signal.aborted).toBe(true);
  });

  it("surfaces a resync's reason and conflation on the message, and passes stale on", async () => {
    const { fetch } = scriptedFetch((connection) => {
      connection.send(
        snapshot(9, { resync: true, reason: "retention_exceeded" }) +
          markets(10, { conflated: true }) +
          frame("stale", { stale: true, ...FRESH }),
      );
      return "stream";
    });
    const stream = client(fetch).follow("e1");
    const [resync, conflated, stale] = await take(stream, 3);
    expect(resync).toMatchObject({ event: "snapshot", resync: "retention_exceeded", data: { resync: true } });
    expect(conflated).toMatchObject({ event: "markets", conflated: true });
    expect(stale).toEqual({ event: "stale", data: { stale: true, ...FRESH } });
    await stream.return();
  });

  it("completes on `end` and on 204, without another request", async () => {
    const ending = scriptedFetch((connection) => {
      connection.send(snapshot(1) + frame("end", { event_id: "e1", status: "finished", ...FRESH }));
      return "stream";
    });
    const events: EventStreamMessage["event"][] = [];
    for await (const message of client(ending.fetch).follow("e1")) events.push(message.event);
    expect(events).toEqual(["snapshot", "end"]);
    expect(ending.fetch).toHaveBeenCalledTimes(1);
    expect(ending.connections[0]!.signal.aborted).toBe(true);

    const over = scriptedFetch(() => new Response(null, { status: 204 }));
    for await (const message of client(over.fetch).follow("e1")) events.push(message.event);
    expect(over.fetch).toHaveBeenCalledTimes(1);
  });

  it("throws the problem of an `error` message and of a 401, and does not reconnect", async () => {
    const revoked = scriptedFetch((connection) => {
      connection.send(
        snapshot(1) + frame("error", { status: 401, code: "key_revoked", title: "t", detail: "d", ...FRESH }),
      );
      return "stream";
    });
    const stream = client(revoked.fetch).follow("e1");
    await expect(take(stream, 2)).rejects.toSatisfy((e) => e instanceof ProblemError && e.code === "key_revoked");
    expect(revoked.fetch).toHaveBeenCalledTimes(1);
    expect(revoked.connections[0]!.signal.aborted).toBe(true);

    const refused = scriptedFetch(() => problem(401, "key_revoked"));
    await expect(take(client(refused.fetch).followBoard(), 1)).rejects.toMatchObject({
      status: 401,
      code: "key_revoked",
    });
    expect(refused.fetch).toHaveBeenCalledTimes(1);
  });

  it("reconnects after an `error` saying unavailable, and waits out a 429 a few times before giving up", async () => {
    const { fetch, connections } = scriptedFetch((connection, index) => {
      if (index === 0) {
        connection.send(
          snapshot(3) + frame("error", { status: 503, code: "unavailable", title: "t", detail: "d", ...FRESH }),
        );
        setTimeout(() => connection.close(), 0);
      }
      if (index >= 1) return problem(429, "rate_limited", { "retry-after": "0" });
      return "stream";
    });
    const stream = client(fetch).follow("e1");
    await expect(take(stream, 5)).rejects.toMatchObject({ code: "rate_limited" });
    expect(connections.map((c) => c.headers.get("last-event-id"))).toEqual([null, "3", "3", "3"]);
  });

  it("with a token, sends it and the resume id in the query, and no Authorization", async () => {
    const { fetch, connections } = scriptedFetch((connection, index) => {
      connection.send(index === 0 ? snapshot(4) : markets(5));
      if (index === 0) setTimeout(() => connection.close(), 0);
      return "stream";
    });
    const stream = client(fetch, { token: "svc_st_abc" }).followBoard({ sport: "soccer" });
    expect((await take(stream, 2)).map((m) => m.id)).toEqual(["4", "5"]);
    expect(connections.map((c) => c.url)).toEqual([
      "http://api.test/api/v1/odds/stream?sport=soccer&token=svc_st_abc",
      "http://api.test/api/v1/odds/stream?sport=soccer&token=svc_st_abc&last_event_id=4",
    ]);
    expect(connections.every((c) => !c.headers.has("authorization") && !c.headers.has("last-event-id"))).toBe(true);
    await stream.return();
  });

  it("takes a connection silent for 45 s (no message, no ping) for dead and opens it again with the last id", async () => {
    vi.useFakeTimers();
    try {
      const { fetch, connections } = scriptedFetch((connection, index) => {
        connection.send(index === 0 ? snapshot(8) : markets(9));
        return "stream";
      });
      const stream = client(fetch).follow("e1");
      expect((await stream.next()).value).toMatchObject({ id: "8" });
      // A consumer that holds a message for a minute does not make its connection silent.
      await vi.advanceTimersByTimeAsync(60_000);
      expect(connections[0]!.signal.aborted).toBe(false);
      const next = stream.next();
      await vi.advanceTimersByTimeAsync(44_000);
      expect(connections).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1_100);
      expect((await next).value).toMatchObject({ id: "9" });
      expect(connections[0]!.signal.aborted).toBe(true);
      expect(connections[1]!.headers.get("last-event-id")).toBe("8");
      await stream.return();
    } finally {
      vi.useRealTimers();
    }
  });

  it("lets the connection go when the consumer breaks out of its loop, or aborts its signal", async () => {
    const { fetch, connections } = scriptedFetch((connection) => {
      connection.send(snapshot(1) + markets(2));
      return "stream";
    });
    for await (const message of client(fetch).follow("e1")) if (message.event === "snapshot") break;
    expect(connections[0]!.signal.aborted).toBe(true);

    const controller = new AbortController();
    const seen: string[] = [];
    for await (const message of client(fetch).follow("e1", { signal: controller.signal, lastEventId: "0" })) {
      seen.push(message.event);
      controller.abort();
    }
    expect(seen).toEqual(["snapshot"]);
    expect(connections[1]!.headers.get("last-event-id")).toBe("0");
    expect(connections[1]!.signal.aborted).toBe(true);
    expect(fetch).toHaveBeenCalledTimes(2);
  });
});
