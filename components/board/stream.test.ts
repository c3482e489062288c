import { afterEach, describe, expect, it, vi } from "vitest";
import { BoardStreamMessage } from "@/lib/api/endpoints/stream-schemas";
import type { BoardMessage } from "./board-store.ts";
import { openStream, type ConnectionState } from "./stream.ts";

const freshness = { sandbox: false, delay_seconds: 0, as_of: "2026-11-23T12:00:00.000Z" };
const market = {
  id: "a-mw",
  type: "match_winner",
  name: "Match winner",
  line: null,
  status: "open",
  outcomes: [
    { id: "o1", name: "One", price: 1.8, status: "active" },
    { id: "o2", name: "Two", price: 2.1, status: "active" },
  ],
  updated_at: "2026-11-23T12:00:00.000Z",
} as const;

/** One connection's body, then the end of it (the server's retry: long enough not to come back). */
function serve(body: string) {
  vi.stubGlobal("fetch", async () => {
    const bytes = new TextEncoder().encode(`retry: 60000\n\n${body}`);
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream" } });
  });
}

const sse = (event: string, id: number | null, data: unknown) =>
  `event: ${event}\n${id === null ? "" : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`;

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("openStream", () => {
  it("hands on each message as its stream's schema reads it, and skips one the schema refuses", async () => {
    serve(
      sse("markets", 7, { event_id: "a", markets: [market], ...freshness }) +
        sse("markets", 8, { event_id: "a", markets: [{ ...market, outcomes: [] }], ...freshness }) +
        sse("lineups", 9, { lineups: { event_id: "a", home: [], away: [], sandbox: false }, ...freshness }) +
        sse("stale", null, { stale: true, ...freshness }),
    );
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const received: BoardMessage[] = [];
    const states: ConnectionState[] = [];
    const connection = openStream("/api/v1/odds/stream", BoardStreamMessage, {
      message: (message) => received.push(message),
      state: (state) => states.push(state),
      activity: () => {},
    });
    await vi.waitFor(() => expect(states).toContain("reconnecting"));
    connection.close();
    // A market without outcomes is not one the API describes; the board stream has no lineups.
    expect(received).toEqual([
      { event: "markets", id: 7, data: { event_id: "a", markets: [market], ...freshness } },
      { event: "stale", id: null, data: { stale: true, ...freshness } },
    ]);
    expect(warn).toHaveBeenCalledTimes(2);
  });

  it("ends for good on an error the stream cannot recover from", async () => {
    const problem = {
      type: "/docs/errors#key_revoked",
      title: "Key revoked",
      status: 401,
      detail: "This key was revoked.",
      code: "key_revoked",
      request_id: "r1",
      ...freshness,
    };
    serve(sse("error", null, problem));
    const ended: { code: string; detail: string }[] = [];
    const received: BoardMessage[] = [];
    openStream("/api/v1/odds/stream", BoardStreamMessage, {
      message: (message) => received.push(message),
      state: () => {},
      activity: () => {},
      ended: (reason) => ended.push(reason),
    });
    await vi.waitFor(() => expect(ended).toEqual([{ code: "key_revoked", detail: "This key was revoked." }]));
    expect(received).toEqual([]);
  });
});
