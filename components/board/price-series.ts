import type { z } from "zod";
import { envelope, MarketHistory } from "@/lib/api/endpoints/schemas";
import type { Market } from "./stream-store";

// A market's line movement: its states over time, oldest first, as the history endpoint gives them
// and as the event's stream extends them, and the series a chart and its table draw from them.

/** Each market's points received from the stream, by market id. */
export type Movement = Readonly<Record<string, readonly MarketPoint[]>>;

// GET /api/v1/events/{id}/markets/{market_id}/history: the API's own schema.
export const MarketHistoryAnswer = envelope(MarketHistory);

/** The market's state after one change: `revision` is the feed revision that made it. */
export type MarketPoint = z.infer<typeof MarketHistoryAnswer>["data"]["points"][number];

/** Points kept per market from the stream: hours of a busy market, and a bound on a page left open. */
export const LIVE_POINTS = 2_000;

export function pointOf(market: Market, revision: number): MarketPoint {
  return {
    at: market.updated_at,
    revision,
    status: market.status,
    line: market.line,
    outcomes: market.outcomes.map(({ id, price, status }) => ({ id, price, status })),
  };
}

function sameState(a: MarketPoint, b: MarketPoint): boolean {
  return (
    a.status === b.status &&
    a.line === b.line &&
    a.outcomes.length === b.outcomes.length &&
    a.outcomes.every(
      (o, i) => o.id === b.outcomes[i]!.id && o.price === b.outcomes[i]!.price && o.status === b.outcomes[i]!.status,
    )
  );
}

/**
 * The stream's markets at `revision` appended to their lines. A market whose state did not change (a
 * snapshot, a conflated message) adds nothing; the same object comes back when nothing was added.
 */
export function appendPoints(movement: Movement, revision: number, markets: readonly Market[]): Movement {
  let next: Record<string, readonly MarketPoint[]> | null = null;
  for (const market of markets) {
    const line = (next ?? movement)[market.id] ?? [];
    const point = pointOf(market, revision);
    const last = line.at(-1);
    if (last && (last.revision >= revision || sameState(last, point))) continue;
    next ??= { ...movement };
    next[market.id] = line.length >= LIVE_POINTS ? [...line.slice(1 - LIVE_POINTS), point] : [...line, point];
  }
  return next ?? movement;
}

/** The history read once, then what the stream added after its last revision. */
export function mergePoints(
  history: readonly MarketPoint[] | undefined,
  live: readonly MarketPoint[] | undefined,
): readonly MarketPoint[] {
  if (!live || live.length === 0) return history ?? [];
  const merged = [...(history ?? [])];
  const through = merged.at(-1)?.revision ?? -1;
  for (const point of live) {
    const last = merged.at(-1);
    if (point.revision <= through || (last && sameState(last, point))) continue;
    merged.push(point);
  }
  return merged;
}

/** One moment of a chart: each outcome's price by outcome id, null while it cannot be backed. */
export type ChartRow = { at: number; values: Record<string, number | null> };

function rowOf(at: number, point: MarketPoint): ChartRow {
  const values: Record<string, number | null> = {};
  for (const outcome of point.outcomes) {
    values[outcome.id] = point.status === "open" && outcome.status === "active" ? outcome.price : null;
  }
  return { at, values };
}

/**
 * The rows a step chart draws from `from` to `until` (ms): the state at `from` first (the last point
 * at or before it), then each change, then the last state carried to `until`. A suspended market or
 * outcome is a gap. A step is drawn to the next row only when that row has a value too, so a price
 * that a gap follows (a suspension, a settlement: every next-goal market ends so) gets a row of its
 * own where the gap begins, or its last stretch would not be drawn at all. `outcomes` lists every
 * outcome id in the order first seen.
 */
export function chartSeries(
  points: readonly MarketPoint[],
  from: number,
  until: number,
): { rows: ChartRow[]; outcomes: string[] } {
  const changes: ChartRow[] = [];
  const outcomes = new Set<string>();
  let before: MarketPoint | undefined;
  for (const point of points) {
    for (const outcome of point.outcomes) outcomes.add(outcome.id);
    const at = Date.parse(point.at);
    if (at <= from) before = point;
    else changes.push(rowOf(at, point));
  }
  if (before) changes.unshift(rowOf(from, before));
  const last = points.at(-1);
  const lastAt = changes.at(-1)?.at;
  if (last && lastAt !== undefined && until > lastAt) changes.push(rowOf(until, last));
  const rows: ChartRow[] = [];
  for (const row of changes) {
    const previous = rows.at(-1);
    if (previous && Object.entries(previous.values).some(([id, price]) => price !== null && row.values[id] == null)) {
      rows.push({ at: row.at, values: previous.values });
    }
    rows.push(row);
  }
  return { rows, outcomes: [...outcomes] };
}

/** Whether the rows draw any price at all (a market suspended or settled all the while draws none). */
export function anyPriceDrawn(rows: readonly ChartRow[]): boolean {
  return rows.some((row) => Object.values(row.values).some((price) => price !== null));
}

/** The prices' span with a margin above and below, so that a flat line is not drawn on the axis. */
export function priceDomain(rows: readonly ChartRow[]): [number, number] {
  let low = Infinity;
  let high = -Infinity;
  for (const row of rows) {
    for (const price of Object.values(row.values)) {
      if (price === null) continue;
      low = Math.min(low, price);
      high = Math.max(high, price);
    }
  }
  if (low > high) return [1, 2];
  const margin = Math.max((high - low) * 0.1, 0.05);
  // Ends on a twentieth, for round ticks (the tolerance for 1.85 * 20 not being 37); a decimal price is
  // above 1, so the axis need not go below it.
  const down = (value: number) => Math.floor(value * 20 + 1e-9) / 20;
  const up = (value: number) => Math.ceil(value * 20 - 1e-9) / 20;
  return [Math.max(1, down(low - margin)), up(high + margin)];
}

/**
 * A scale the prices can be read on: linear for a market's usual moves, logarithmic once its
 * prices span a factor of four or more (a beaten side quoted in the hundreds beside a favourite
 * at 1.01 would flatten every other line).
 */
export function priceScale([low, high]: readonly [number, number]): "linear" | "log" {
  return high / low >= 4 ? "log" : "linear";
}

/** The points a reader is told of: the state at `from`, then every change after it. */
export function pointsSince(points: readonly MarketPoint[], from: number): readonly MarketPoint[] {
  let first = 0;
  for (let i = 0; i < points.length; i++) if (Date.parse(points[i]!.at) <= from) first = i;
  return first === 0 ? points : points.slice(first);
}

/**
 * An outcome's first and last price offered within the points, as the chart draws them (null: never
 * offered there; a suspended or settled state's price was not on offer).
 */
export function priceRange(points: readonly MarketPoint[], outcomeId: string): { first: number; last: number } | null {
  let first: number | null = null;
  let last: number | null = null;
  for (const point of points) {
    const outcome = point.outcomes.find((o) => o.id === outcomeId);
    if (!outcome || point.status !== "open" || outcome.status !== "active") continue;
    first ??= outcome.price;
    last = outcome.price;
  }
  return first === null || last === null ? null : { first, last };
}

/**
 * The markets as their histories end: each market's last point (status, line, each outcome's price
 * and status) over the market as it was last seen whole; a market without a history stays as it was.
 * An event over before the page opened shows its markets so, settled.
 */
export function marketsAsTheyEnded(
  markets: readonly Market[],
  points: Readonly<Record<string, readonly MarketPoint[]>>,
): Market[] {
  return markets.map((market) => {
    const last = points[market.id]?.at(-1);
    if (!last) return market;
    const outcomes = market.outcomes.map((outcome) => {
      const ended = last.outcomes.find((o) => o.id === outcome.id);
      return ended ? { ...outcome, price: ended.price, status: ended.status } : outcome;
    });
    return { ...market, status: last.status, line: last.line, outcomes, updated_at: last.at };
  });
}
