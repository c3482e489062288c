import type { UsageMonth } from "@/lib/console/usage";

// The usage chart's rows: the month's days up to today as counted, and the days still to come with
// no value, so that the chart's axis shows the whole month and its lines end today instead of
// falling to zero in the future.

export type ChartDay = { day: string; label: string } & Record<string, number | string | null>;

/** `today` is the UTC day (YYYY-MM-DD) the page was read on; a past month has no day to come. */
export function chartDays(usage: Pick<UsageMonth, "days">, today: string): ChartDay[] {
  return usage.days.map((row) => {
    const label = String(Number(row.day.slice(8)));
    if (row.day <= today) return { ...row, label };
    const empty: ChartDay = { day: row.day, label };
    for (const key of Object.keys(row)) if (key !== "day") empty[key] = null;
    return empty;
  });
}
