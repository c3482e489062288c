// When to try again, and how long to wait first: pure functions of what happened, so that the
// policy is tested without a clock or a server. `random` is Math.random in use.

export type RetryOptions = {
  /** Retries of one REST call after its first attempt (default 2). */
  maxRetries?: number;
  /** The longest wait before a retry or a stream's reconnection (default 30 s). */
  maxDelayMs?: number;
};

export type RetryPolicy = Required<RetryOptions>;

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 2, maxDelayMs: 30_000 };

export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  return { ...DEFAULT_RETRY, ...options };
}

/** What a REST attempt ended in: an answer's status with its `Retry-After`, or no answer at all. */
export type Outcome = { status: number; retryAfter?: number } | { network: true };

export type Decision = { retry: true; delayMs: number } | { retry: false };

// The first wait when the service gave none, doubled on each retry.
const BACKOFF_BASE_MS = 500;
// Spreads the retries of clients refused in the same second over the next.
const RETRY_AFTER_JITTER_MS = 250;

const RETRIED_STATUSES = new Set([429, 502, 503, 504]);

/**
 * Whether attempt number `attempt` (0 for the first) is followed by another. 429 and 503 wait the
 * service's `Retry-After`; a wait longer than `maxDelayMs` (`quota_exceeded` waits until the next
 * month) is not waited for: the error is thrown at once. Without `Retry-After`, and when no answer
 * came (the call is a read, so trying it again is safe), the wait doubles from half a second.
 */
export function retryDecision(outcome: Outcome, attempt: number, policy: RetryPolicy, random = Math.random): Decision {
  if (attempt >= policy.maxRetries) return { retry: false };
  if ("status" in outcome && !RETRIED_STATUSES.has(outcome.status)) return { retry: false };
  if ("status" in outcome && outcome.retryAfter !== undefined) {
    const waitMs = outcome.retryAfter * 1000;
    if (waitMs > policy.maxDelayMs) return { retry: false };
    return { retry: true, delayMs: Math.min(policy.maxDelayMs, waitMs + random() * RETRY_AFTER_JITTER_MS) };
  }
  return { retry: true, delayMs: backoff(BACKOFF_BASE_MS, attempt, policy.maxDelayMs, random) };
}

/** How a stream's connection ended, when it did not end the stream. */
export type StreamClose =
  /** It was answered 200 and later closed; `received`: it carried a message. */
  | { type: "closed"; received: boolean }
  /** It was never answered: refused, reset, unreachable. */
  | { type: "network" }
  /** It was refused with an error answer. */
  | { type: "refused"; status: number; retryAfter?: number };

/** What a follower counts across connections: each starts at 0 and is reset by success. */
export type StreamState = {
  /** The service's `retry:` (milliseconds). */
  retryMs: number;
  /** Connections in a row that carried no message. */
  failures: number;
  /** 429 answers in a row. */
  refusals: number;
};

/**
 * Whether a stream is opened again after `close`, and after how long. A close after messages waits
 * the service's `retry:`; each failure since doubles it, up to `maxDelayMs`; up to half as long
 * again at random, so that the clients of a stopped instance do not all come back in one moment.
 * A 429 waits its `Retry-After`, at most `maxRetries` times in a row and never beyond `maxDelayMs`.
 * 5xx answers are failures like a refused connection; other refusals (401, 403, 404) are final.
 */
export function reopenDecision(
  close: StreamClose,
  state: StreamState,
  policy: RetryPolicy,
  random = Math.random,
): Decision {
  if (close.type === "refused" && close.status === 429 && close.retryAfter !== undefined) {
    const waitMs = close.retryAfter * 1000;
    if (state.refusals > policy.maxRetries || waitMs > policy.maxDelayMs) return { retry: false };
    return { retry: true, delayMs: Math.min(policy.maxDelayMs, waitMs + random() * RETRY_AFTER_JITTER_MS) };
  }
  if (close.type === "refused" && close.status < 500) return { retry: false };
  const failures = close.type === "closed" && close.received ? 0 : state.failures;
  return { retry: true, delayMs: backoff(state.retryMs, failures, policy.maxDelayMs, random) };
}

function backoff(baseMs: number, doublings: number, maxDelayMs: number, random: () => number): number {
  const base = Math.min(maxDelayMs, baseMs * 2 ** Math.min(doublings, 30));
  return Math.min(maxDelayMs, base * (1 + random() / 2));
}

/** Resolves after `ms`, or rejects with the signal's reason once it is aborted. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
