import type { ApiKeyRecord } from "../keys/lookup.ts";

/** The two limits of every key, named as in the RateLimit headers and `violated-policies`. */
export type Policy = "second" | "month";

// The IETF draft's month window is nominal (30 days); the reset time `t` is the real one.
const MONTH_WINDOW_SECONDS = 2_592_000;

/** The first moment of the next calendar month, UTC. */
export function nextMonthStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

/** `YYYY-MM-01` of the month of `at`, UTC: the key of a month's count. */
export function monthOf(at: Date): string {
  return `${at.toISOString().slice(0, 7)}-01`;
}

export function secondsUntilNextMonth(at: Date): number {
  return Math.max(1, Math.ceil((nextMonthStart(at).getTime() - at.getTime()) / 1000));
}

/**
 * `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers-10) for a key, given
 * what is left of each window.
 */
export function rateLimitHeaders(
  key: ApiKeyRecord,
  at: Date,
  remaining: { second: number; month: number },
): Record<string, string> {
  const secondReset = Math.max(1, Math.ceil((1000 - (at.getTime() % 1000)) / 1000));
  return {
    "ratelimit-policy": `"second";q=${key.requestsPerSecond};w=1, "month";q=${key.monthlyQuota};w=${MONTH_WINDOW_SECONDS}`,
    ratelimit: `"second";r=${Math.max(0, remaining.second)};t=${secondReset}, "month";r=${Math.max(0, remaining.month)};t=${secondsUntilNextMonth(at)}`,
  };
}
