// Time comes from here only, so tests can move it (month rollover, key expiry, rate windows)
// without waiting. Production code never sets it.
import { processCell } from "./slot.ts";

// One offset for the custom server's and Next's copies of lib/ (lib/slot.ts).
const offset = processCell("clock", () => ({ ms: 0 }));

// Next replaces the global Date when it loads, so that a prerender sees the clock read: each call
// then asks two async-local stores. server.ts keeps the platform's Date here before it loads Next,
// and the request path reads that; otherwise (Next's own copy of lib/, tests' fake timers) the
// global Date is read at each call.
let platformDate: DateConstructor | null = null;

/** Reads the clock from `date` from now on, whatever later replaces the global Date; null for the global one. */
export function keepPlatformClock(date: DateConstructor | null): void {
  platformDate = date;
}

export function now(): Date {
  const date = platformDate ?? Date;
  return new date(date.now() + offset.ms);
}

/** Milliseconds since the epoch as the system tells them, never moved by the tests' offset: deadlines, log lines. */
export function wallClockMs(): number {
  return (platformDate ?? Date).now();
}

export function setClockOffset(ms: number): void {
  offset.ms = ms;
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * 86_400_000);
}

const twoDigits = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/**
 * `YYYY-MM-DD` of the UTC day of `date` (years 1000 to 9999). From its parts, not `toISOString()`:
 * a production key's licence is judged by it on every request, and this is a fifth of the cost.
 */
export function utcDay(date: Date): string {
  return `${date.getUTCFullYear()}-${twoDigits(date.getUTCMonth() + 1)}-${twoDigits(date.getUTCDate())}`;
}
