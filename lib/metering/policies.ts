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

/** Whole seconds from `time` (epoch ms) until `end` (epoch ms), at least 1: a `Retry-After`. */
export function secondsUntil(time: number, end: number): number {
  return Math.max(1, Math.ceil((end - time) / 1000));
}

/** `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers-10) of a key's plan. */
export function rateLimitPolicy(key: Pick<ApiKeyRecord, "requestsPerSecond" | "monthlyQuota">): string {
  return `"second";q=${key.requestsPerSecond};w=1, "month";q=${key.monthlyQuota};w=${MONTH_WINDOW_SECONDS}`;
}

/**
 * `RateLimit` at `time` (epoch ms): what is left of each window and the seconds until each resets,
 * the month's at `monthEnd` (epoch ms).
 */
export function rateLimit(time: number, monthEnd: number, remaining: { second: number; month: number }): string {
  const secondReset = Math.max(1, Math.ceil((1000 - (time % 1000)) / 1000));
  return `"second";r=${Math.max(0, remaining.second)};t=${secondReset}, "month";r=${Math.max(0, remaining.month)};t=${secondsUntil(time, monthEnd)}`;
}
