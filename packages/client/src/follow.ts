import { ProblemError, problemOf } from "./errors.ts";
import { reopenDecision, sleep, type RetryPolicy, type StreamClose, type StreamState } from "./retry.ts";
import { createSseParser } from "./sse.ts";
import type { Problem } from "./types.ts";

// Following a stream: open it with fetch, read its messages, and after any close without `end`
// open it again with the last id received, so that the consumer sees every change once, in order.

export type FollowOptions = {
  /** Resume after this id: a message's `id` kept from an earlier run. */
  lastEventId?: string;
  /** Stops following when aborted: the loop ends and the connection is released. */
  signal?: AbortSignal;
};

/** How one connection of the stream is opened, resuming after `lastEventId`. */
export type StreamRequest = (lastEventId: string | undefined) => { url: string; headers: Record<string, string> };

export type StreamContext = {
  fetch: typeof fetch;
  policy: RetryPolicy;
  request: StreamRequest;
  /** Called with every answer, for its rate-limit headers. */
  answered(response: Response): void;
  random?: () => number;
};

// Until the service says otherwise with `retry:` (it does as a stream opens).
const DEFAULT_RETRY_MS = 2_000;
// The service pings a quiet stream at least every 15 s: silence this long means a dead connection.
const IDLE_TIMEOUT_MS = 45_000;

type Message = { event: string; id?: string; data: unknown; resync?: string; conflated?: true };

/** What the consumer is handed: the message as sent, with a resync's reason and conflation on top. */
function messageOf(event: string, id: string | undefined, data: Record<string, unknown>): Message {
  const message: Message = { event, data };
  if (id !== undefined) message.id = id;
  if (event === "snapshot" && data.resync === true) message.resync = String(data.reason);
  if ((event === "event" || event === "markets") && data.conflated === true) message.conflated = true;
  return message;
}

/**
 * The stream's messages, across as many connections as it takes. Completes on `end`, on 204 (the
 * event is over) and when `signal` aborts; throws the ProblemError of an `error` message or of a
 * refusal (401, 403, 404; 429 beyond the retry policy). Network failures, 5xx answers and closes
 * without `end` (an `error` saying `unavailable` too) are followed by a reconnection with the last
 * id, after the service's `retry:`, with backoff and jitter (reopenDecision).
 */
export async function* followStream<M>(context: StreamContext, options: FollowOptions = {}): AsyncGenerator<M, void> {
  if (options.signal?.aborted) return;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const state: StreamState = { retryMs: DEFAULT_RETRY_MS, failures: 0, refusals: 0 };
  let lastId = options.lastEventId;
  try {
    while (!stop.signal.aborted) {
      const connection = new AbortController();
      const release = () => connection.abort();
      stop.signal.addEventListener("abort", release, { once: true });
      let idle: ReturnType<typeof setTimeout> | undefined;
      let close: StreamClose = { type: "network" };
      let refusal: ProblemError | undefined;
      try {
        const { url, headers } = context.request(lastId);
        const response = await context
          .fetch(url, {
            headers: { accept: "text/event-stream", ...headers },
            signal: connection.signal,
            cache: "no-store",
          })
          .catch(() => null);
        if (stop.signal.aborted) return;
        if (response) {
          context.answered(response);
          if (response.status === 204) return; // the event is over: nothing to follow
          if (!response.ok || !response.body) {
            refusal = await problemOf(response);
            close = { type: "refused", status: refusal.status, retryAfter: refusal.retryAfter };
            state.refusals = refusal.status === 429 ? state.refusals + 1 : 0;
          } else {
            state.refusals = 0;
            close = { type: "closed", received: false };
            const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
            const parser = createSseParser();
            const watch = () => {
              clearTimeout(idle);
              idle = setTimeout(release, IDLE_TIMEOUT_MS);
            };
            watch();
            for (;;) {
              const chunk = await reader.read().catch(() => null); // broke, went quiet, or stopped
              if (!chunk || chunk.done) break;
              watch();
              for (const item of parser.feed(chunk.value)) {
                if (item.type === "retry") {
                  state.retryMs = item.ms;
                  continue;
                }
                const { event, id, data } = item.message;
                if (id !== undefined) lastId = id;
                close.received = true;
                state.failures = 0;
                const parsed = JSON.parse(data) as Record<string, unknown>;
                if (event === "error") {
                  const problem = new ProblemError(Number(parsed.status), parsed as Partial<Problem>, null);
                  if (problem.code === "unavailable") continue; // then closed: open again with the last id
                  throw problem;
                }
                clearTimeout(idle); // a consumer that takes its time is not a silent connection
                yield messageOf(event, id, parsed) as M;
                if (event === "end" || stop.signal.aborted) return;
                watch();
              }
            }
          }
        }
      } finally {
        clearTimeout(idle);
        stop.signal.removeEventListener("abort", release);
        connection.abort(); // the connection is given back, whatever happened
      }
      if (stop.signal.aborted) return;
      if (!(close.type === "closed" && close.received)) state.failures++;
      const decision = reopenDecision(close, state, context.policy, context.random);
      if (!decision.retry) throw refusal;
      try {
        await sleep(decision.delayMs, stop.signal);
      } catch {
        return; // stopped while waiting
      }
    }
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    stop.abort();
  }
}
