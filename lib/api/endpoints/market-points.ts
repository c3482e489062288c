import type { z } from "zod";
import type { MarketRevision } from "../../feed/history.ts";
import { changedMarkets } from "../../streams/messages.ts";
import type { MarketHistory } from "./schemas.ts";

export type PricePoint = z.infer<typeof MarketHistory>["points"][number];

/**
 * A market's history from its markets revisions, oldest first: the state the first one holds (as
 * it was at `from`, when given), then a point for each revision that changed the market, as the
 * streams judge a change (`changedMarkets`), so the points are what the streams carried.
 */
export function marketPoints(rows: readonly MarketRevision[], from: Date | null): PricePoint[] {
  const points: PricePoint[] = [];
  for (const { revision, recordedAt, market } of rows) {
    if (!market) continue;
    const first = points.length === 0;
    if (
      !first &&
      changedMarkets({ revision, eventId: "", kind: "markets", recordedAt, state: [market] }).length === 0
    ) {
      continue;
    }
    const point: PricePoint = {
      at: (first && from && recordedAt <= from ? from : recordedAt).toISOString(),
      revision,
      status: market.status,
      line: market.line,
      outcomes: market.outcomes.map(({ id, price, status }) => ({ id, price, status })),
    };
    // Two lines of one batch are two revisions of one time: the second holds the first's change again.
    const last = points.at(-1);
    if (last && last.at === point.at && sameState(last, point)) continue;
    points.push(point);
  }
  return points;
}

function sameState(a: PricePoint, b: PricePoint): boolean {
  const state = ({ status, line, outcomes }: PricePoint) => JSON.stringify({ status, line, outcomes });
  return state(a) === state(b);
}
