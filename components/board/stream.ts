import "./zod-jitless";
import { createParser } from "eventsource-parser";
import type { z } from "zod";
import { Problem } from "@/lib/api/endpoints/schemas";
import { holdLiveView, liveViewClosed, refusedPause } from "./live-views";

// One Server-Sent Events stream of /api/v1, kept open for as long as the page wants it. It is read
// with fetch rather than EventSource because the board needs what EventSource hides: the `: ping`
// comments (silence longer than the ping interval means the data may be stale), and the problem
// of a refused stream (429, 503 with Retry-After, an expired session). After a dropped connection
// it reconnects with Last-Event-ID after the server's `retry:` pause, then after growing, jittered
// pauses while it keeps failing, so the client gets every change it missed, in order. Refused for
// holding too many streams, it says so and waits for one of this browser's others to close, asking
// the server again only rarely meanwhile (the place may be freed elsewhere).

/**
 * What the stores read of every message, whichever stream it comes from (lib/api/endpoints/stream-schemas.ts
 * has each stream's messages): how fresh it is, whether a snapshot is a resync, and a last error.
 */
export type StreamMessage = {
  event: string;
  id: number | null;
  data: { sandbox: boolean; delay_seconds: number; resync?: true; stale?: boolean; code?: string; detail?: string };
};

export type ConnectionState = "connecting" | "live" | "reconnecting" | "ended";

export type StreamHandlers<M extends StreamMessage> = {
  message(message: M): void;
  state(state: ConnectionState): void;
  /** Anything arrived, a ping too: the stream is alive. */
  activity(at: number): void;
  /** The service ended the stream for good (an expired session, a revoked key). */
  ended?(problem: { code: string; detail: string }): void;
  /** The service refused to open the stream for now (429), or, with null, opened it again. */
  refused?(refusal: Refusal | null): void;
};

/** A 429's problem: `policies` says which limit, `streams` for too many streams open at once. */
export type Refusal = { code: string; detail: string; policies: string[] };

// Problems after which opening the stream again cannot help.
const FINAL_CODES = [
  "session_expired",
  "key_revoked",
  "key_expired",
  "sport_not_covered",
  "not_found",
  "missing_api_key",
];
const FIRST_PAUSE_MS = 500;
const LONGEST_PAUSE_MS = 15_000;
// A stream that closes frees its place on the server a moment after the browser lets go of it.
const FREED_PLACE_GRACE_MS = 500;

export type StreamConnection = { close(): void };

/** What one connection came to: the pause before the next, and whether it waits for a place. */
type Outcome = { pause: number | null; full?: boolean } | null;

/** Opens the stream at `path`, whose messages `schema` reads; a message it cannot read is skipped. */
export function openStream<M extends StreamMessage>(
  path: string,
  schema: z.ZodType<M>,
  handlers: StreamHandlers<M>,
): StreamConnection {
  const abort = new AbortController();
  let lastId: string | null = null;
  let retryMs = 2_000;
  let failures = 0;
  let refusals = 0;
  let ended = false;

  const end = (problem: { code: string; detail: string }) => {
    ended = true;
    abort.abort();
    handlers.state("ended");
    handlers.ended?.(problem);
  };

  const parser = createParser({
    onRetry: (ms) => (retryMs = ms),
    onComment: () => handlers.activity(Date.now()),
    onEvent: (sse) => {
      handlers.activity(Date.now());
      if (sse.id) lastId = sse.id;
      const event = sse.event ?? "message";
      const read = schema.safeParse({ event, id: sse.id ? Number(sse.id) : null, data: parseJson(sse.data) });
      if (!read.success) {
        console.warn(`Skipped a "${event}" message of ${path} that is not as the API describes it`, read.error);
        return;
      }
      const message = read.data;
      if (message.event === "error" && message.data.code && FINAL_CODES.includes(message.data.code)) {
        return end({ code: message.data.code, detail: message.data.detail ?? "" });
      }
      failures = 0;
      handlers.message(message);
      // The event is over and its stream closes: there is nothing more to follow.
      if (event === "end") {
        ended = true;
        abort.abort();
        handlers.state("ended");
      }
    },
  });

  /** Reads one connection to its end; the pause before the next one, or null to stop. */
  const readOnce = async (): Promise<Outcome> => {
    const headers: Record<string, string> = { accept: "text/event-stream" };
    if (lastId !== null) headers["last-event-id"] = lastId;
    let response: Response;
    try {
      response = await fetch(path, { headers, cache: "no-store", signal: abort.signal });
    } catch {
      return null;
    }
    // 204: the event was over before the stream opened, so there is nothing to follow.
    if (response.status === 204) {
      ended = true;
      handlers.state("ended");
      return null;
    }
    if (!response.ok || !response.body) {
      const body: unknown = await response.json().catch(() => null);
      const read = Problem.safeParse(body);
      const problem = read.success ? read.data : null;
      if (problem && FINAL_CODES.includes(problem.code)) {
        end(problem);
        return null;
      }
      const header = Number(response.headers.get("retry-after"));
      const retryAfter = Number.isFinite(header) && header > 0 ? header : null;
      if (response.status === 429 && problem) {
        const policies = problem["violated-policies"] ?? [];
        handlers.refused?.({ code: problem.code, detail: problem.detail, policies });
        if (policies.includes("streams")) return { pause: refusedPause(retryAfter, refusals++), full: true };
      }
      return { pause: retryAfter === null ? null : retryAfter * 1_000 };
    }
    refusals = 0;
    handlers.refused?.(null);
    handlers.state("live");
    const release = holdLiveView();
    parser.reset();
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
    } catch {
      // The connection dropped: reconnect below.
    } finally {
      release();
    }
    return { pause: retryMs };
  };

  /** Waits `ms`, or less once closed; over the stream limit, only until another stream here closes. */
  const wait = (ms: number, full: boolean) =>
    new Promise<void>((resolve) => {
      const stop = new AbortController();
      const done = () => {
        clearTimeout(timer);
        stop.abort();
        abort.signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      abort.signal.addEventListener("abort", done, { once: true });
      if (full) {
        void liveViewClosed(stop.signal).then(() => {
          if (!stop.signal.aborted) setTimeout(done, FREED_PLACE_GRACE_MS);
        });
      }
    });

  void (async () => {
    handlers.state("connecting");
    while (!ended && !abort.signal.aborted) {
      const outcome = await readOnce();
      if (ended || abort.signal.aborted) return;
      handlers.state("reconnecting");
      // A clean end (the server's retry) first; a failure waits longer each time it repeats.
      const backoff = Math.min(LONGEST_PAUSE_MS, FIRST_PAUSE_MS * 2 ** failures++);
      await wait(outcome?.pause ?? backoff / 2 + Math.random() * (backoff / 2), outcome?.full === true);
    }
  })();

  return { close: () => abort.abort() };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // no schema reads it: the message is skipped
  }
}
