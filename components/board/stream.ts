import { createParser } from "eventsource-parser";

// One Server-Sent Events stream of /api/v1, kept open for as long as the page wants it. It is read
// with fetch rather than EventSource because the board needs what EventSource hides: the `: ping`
// comments (silence longer than the ping interval means the data may be stale), and the problem
// of a refused stream (429, 503 with Retry-After, an expired session). After a dropped connection
// it reconnects with Last-Event-ID after the server's `retry:` pause, then after growing, jittered
// pauses while it keeps failing, so the client gets every change it missed, in order.

export type StreamMessage = { event: string; id: number | null; data: Record<string, unknown> };

export type ConnectionState = "connecting" | "live" | "reconnecting" | "ended";

export type StreamHandlers = {
  message(message: StreamMessage): void;
  state(state: ConnectionState): void;
  /** Anything arrived, a ping too: the stream is alive. */
  activity(at: number): void;
  /** The service ended the stream for good (an expired session, a revoked key). */
  ended?(problem: { code: string; detail: string }): void;
};

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

export type StreamConnection = { close(): void };

type Problem = { code: string; detail: string };

export function openStream(path: string, handlers: StreamHandlers): StreamConnection {
  const abort = new AbortController();
  let lastId: string | null = null;
  let retryMs = 2_000;
  let failures = 0;
  let ended = false;

  const end = (problem: Problem) => {
    ended = true;
    abort.abort();
    handlers.state("ended");
    handlers.ended?.(problem);
  };

  const parser = createParser({
    onRetry: (ms) => (retryMs = ms),
    onComment: () => handlers.activity(Date.now()),
    onEvent: (message) => {
      handlers.activity(Date.now());
      if (message.id) lastId = message.id;
      const data = JSON.parse(message.data) as Record<string, unknown>;
      const event = message.event ?? "message";
      if (event === "error" && FINAL_CODES.includes(String(data.code))) {
        return end({ code: String(data.code), detail: String(data.detail ?? "") });
      }
      failures = 0;
      handlers.message({ event, id: message.id ? Number(message.id) : null, data });
      // The event is over and its stream closes: there is nothing more to follow.
      if (event === "end") {
        ended = true;
        abort.abort();
        handlers.state("ended");
      }
    },
  });

  /** Reads one connection to its end; the pause before the next one, or null to stop. */
  const readOnce = async (): Promise<number | null> => {
    const headers: Record<string, string> = { accept: "text/event-stream" };
    if (lastId !== null) headers["last-event-id"] = lastId;
    let response: Response;
    try {
      response = await fetch(path, { headers, cache: "no-store", signal: abort.signal });
    } catch {
      return null;
    }
    if (!response.ok || !response.body) {
      const problem = (await response.json().catch(() => null)) as Problem | null;
      if (problem && FINAL_CODES.includes(problem.code)) {
        end(problem);
        return null;
      }
      const retryAfter = Number(response.headers.get("retry-after"));
      return Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1_000 : null;
    }
    handlers.state("live");
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
    }
    return retryMs;
  };

  void (async () => {
    handlers.state("connecting");
    while (!ended && !abort.signal.aborted) {
      const pause = await readOnce();
      if (ended || abort.signal.aborted) return;
      handlers.state("reconnecting");
      // A clean end (the server's retry) first; a failure waits longer each time it repeats.
      const backoff = Math.min(LONGEST_PAUSE_MS, FIRST_PAUSE_MS * 2 ** failures++);
      const wait = pause ?? backoff / 2 + Math.random() * (backoff / 2);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();

  return { close: () => abort.abort() };
}
