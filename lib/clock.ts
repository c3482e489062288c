// Time comes from here only, so tests can move it (month rollover, key expiry, rate windows)
// without waiting. Production code never sets it.
let offsetMs = 0;

export function now(): Date {
  return new Date(Date.now() + offsetMs);
}

export function setClockOffset(ms: number): void {
  offsetMs = ms;
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * 86_400_000);
}

/** `YYYY-MM-DD` of the UTC day of `date`. */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}
