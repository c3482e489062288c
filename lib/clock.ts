// Time comes from here only, so tests can move it (month rollover, key expiry, rate windows)
// without waiting. Production code never sets it.
import { processCell } from "./slot.ts";

// One offset for the custom server's and Next's copies of lib/ (lib/slot.ts).
const offset = processCell("clock", () => ({ ms: 0 }));

export function now(): Date {
  return new Date(Date.now() + offset.ms);
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
