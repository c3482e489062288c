// The status page's figures, pure: latencies gathered a minute at a time in fixed buckets (so the
// minutes of every instance add up), a minute's verdict per component, and availability and
// percentiles over a window of minutes. The I/O is in recorder.ts and service.ts.

/** Upper bounds (ms) of the latency buckets: about 12 % apart from 0.1 ms to a minute. */
export const BUCKET_BOUNDS: readonly number[] = (() => {
  const bounds: number[] = [];
  for (let bound = 0.1; bound < 60_000; bound *= 1.12) bounds.push(Math.round(bound * 1000) / 1000);
  bounds.push(60_000);
  return bounds;
})();

/** Counts per bucket of BUCKET_BOUNDS, the last one for everything above a minute. */
export type Histogram = number[];

export const emptyHistogram = (): Histogram => new Array<number>(BUCKET_BOUNDS.length + 1).fill(0);

export function observe(histogram: Histogram, ms: number): void {
  let low = 0;
  let high = BUCKET_BOUNDS.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (BUCKET_BOUNDS[mid]! >= ms) high = mid;
    else low = mid + 1;
  }
  histogram[low] = (histogram[low] ?? 0) + 1;
}

export function merge(histograms: readonly Histogram[]): Histogram {
  const total = emptyHistogram();
  for (const histogram of histograms) histogram.forEach((count, i) => (total[i] = (total[i] ?? 0) + count));
  return total;
}

/** The bucket bound at or under which `p` % of the observations fall; null without any. */
export function percentile(histogram: Histogram, p: number): number | null {
  const count = histogram.reduce((sum, n) => sum + n, 0);
  if (count === 0) return null;
  const rank = Math.ceil((p / 100) * count);
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i]!;
    if (seen >= rank) return BUCKET_BOUNDS[i] ?? Infinity;
  }
  return null;
}

export const COMPONENTS = ["api", "streams", "console"] as const;
export type Component = (typeof COMPONENTS)[number] | `feed:${string}`;

/** What one instance recorded of one minute. */
export type MinuteRecord = {
  minute: Date;
  instance: string;
  /** Readiness held at every check of the minute. */
  ready: boolean;
  /** Per sport with live events: the feed's newest change was recent enough all minute. */
  feeds: Record<string, boolean>;
  rest: Histogram;
  streamLag: Histogram;
};

/**
 * Each component's verdict for the minutes recorded: a minute is good when readiness held and, for
 * a sport's feed, the feed was fresh, on every instance that recorded it.
 */
export function minuteVerdicts(records: readonly MinuteRecord[]): Map<number, Map<Component, boolean>> {
  const byMinute = new Map<number, Map<Component, boolean>>();
  for (const record of records) {
    const key = record.minute.getTime();
    const verdicts = byMinute.get(key) ?? new Map<Component, boolean>();
    for (const component of COMPONENTS) verdicts.set(component, (verdicts.get(component) ?? true) && record.ready);
    for (const [sport, fresh] of Object.entries(record.feeds)) {
      const component: Component = `feed:${sport}`;
      verdicts.set(component, (verdicts.get(component) ?? true) && record.ready && fresh);
    }
    byMinute.set(key, verdicts);
  }
  return byMinute;
}

export type Availability = { percent: number | null; minutes: number; bad: number };

/** Per component, the share of good minutes among those recorded after `since`. */
export function availability(
  verdicts: Map<number, Map<Component, boolean>>,
  since: Date,
): Map<Component, Availability> {
  const tally = new Map<Component, { minutes: number; bad: number }>();
  for (const [minute, components] of verdicts) {
    if (minute < since.getTime()) continue;
    for (const [component, good] of components) {
      const counts = tally.get(component) ?? { minutes: 0, bad: 0 };
      counts.minutes++;
      if (!good) counts.bad++;
      tally.set(component, counts);
    }
  }
  return new Map(
    [...tally].map(([component, { minutes, bad }]) => [
      component,
      { minutes, bad, percent: minutes ? Math.round(((minutes - bad) / minutes) * 100_000) / 1000 : null },
    ]),
  );
}
