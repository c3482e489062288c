import { describe, expect, it } from "vitest";
import {
  anyPriceDrawn,
  appendPoints,
  chartSeries,
  LIVE_POINTS,
  MarketHistoryAnswer,
  mergePoints,
  pointOf,
  pointsSince,
  priceDomain,
  priceRange,
  priceScale,
  type MarketPoint,
} from "./price-series.ts";
import type { Market } from "./stream-store.ts";

const time = (second: number) => new Date(Date.UTC(2026, 10, 25, 15, 0, second)).toISOString();
const ms = (second: number) => Date.parse(time(second));

const market = (prices: number[], second: number, status: Market["status"] = "open"): Market => ({
  id: "m1",
  type: "match_winner",
  name: "Match winner",
  line: null,
  status,
  outcomes: prices.map((price, i) => ({
    id: `o${i}`,
    name: ["Home", "Draw", "Away"][i]!,
    price,
    status: status === "open" ? "active" : "suspended",
  })),
  updated_at: time(second),
});
const point = (prices: number[], second: number, revision: number, status: Market["status"] = "open") =>
  pointOf(market(prices, second, status), revision);

describe("MarketHistoryAnswer", () => {
  it("reads the history endpoint's answer as the contract describes it", () => {
    const answer = {
      data: {
        event_id: "e1",
        market_id: "m1",
        points: [
          {
            at: time(1),
            revision: 7,
            status: "open",
            line: null,
            outcomes: [
              { id: "o0", price: 2.1, status: "active" },
              { id: "o1", price: 3.4, status: "active" },
            ],
          },
        ],
      },
      meta: { sandbox: false, delay_seconds: 0, requests_used: 3, requests_quota: 20_000, revision: 9 },
    };
    expect(MarketHistoryAnswer.parse(answer).data.points[0]).toEqual(answer.data.points[0]);
    expect(MarketHistoryAnswer.safeParse({ ...answer, data: { ...answer.data, points: [{ at: "x" }] } }).success).toBe(
      false,
    );
  });
});

describe("appendPoints: live changes extend the lines", () => {
  it("appends each changed market's state at the message's revision", () => {
    const first = appendPoints({}, 10, [market([2.1, 3.4, 3.2], 1)]);
    const second = appendPoints(first, 11, [market([2.4, 3.4, 2.9], 2)]);
    expect(second.m1!.map((p) => [p.revision, p.outcomes[0]!.price])).toEqual([
      [10, 2.1],
      [11, 2.4],
    ]);
    expect(first.m1).toHaveLength(1);
  });

  it("adds nothing for a market whose state did not change, or for a revision already seen", () => {
    const movement = appendPoints({}, 10, [market([2.1, 3.4, 3.2], 1)]);
    expect(appendPoints(movement, 12, [market([2.1, 3.4, 3.2], 1)])).toBe(movement);
    expect(appendPoints(movement, 9, [market([2.5, 3.4, 3.2], 1)])).toBe(movement);
    // A suspension is a change of state, though no price moved.
    expect(appendPoints(movement, 13, [market([2.1, 3.4, 3.2], 3, "suspended")]).m1).toHaveLength(2);
  });

  it("keeps at most LIVE_POINTS per market, dropping the oldest", () => {
    let movement = {};
    for (let i = 0; i < LIVE_POINTS + 5; i++)
      movement = appendPoints(movement, i + 1, [market([2 + i / 1000, 3, 4], 1)]);
    const line = (movement as Record<string, MarketPoint[]>).m1!;
    expect(line).toHaveLength(LIVE_POINTS);
    expect(line[0]!.revision).toBe(6);
    expect(line.at(-1)!.revision).toBe(LIVE_POINTS + 5);
  });
});

describe("mergePoints: the history read once, then the stream's", () => {
  const history = [point([2.1, 3.4, 3.2], 1, 10), point([2.2, 3.4, 3.1], 5, 14)];

  it("adds only what the stream carried after the history's last revision", () => {
    const live = [point([2.2, 3.4, 3.1], 5, 14), point([2.4, 3.3, 2.9], 8, 17)];
    expect(mergePoints(history, live).map((p) => p.revision)).toEqual([10, 14, 17]);
  });

  it("skips a stream state equal to the last one (a snapshot of an unchanged market)", () => {
    const live = [point([2.2, 3.4, 3.1], 5, 20)];
    expect(mergePoints(history, live).map((p) => p.revision)).toEqual([10, 14]);
  });

  it("is the stream's alone before the history is read, and the history alone without live changes", () => {
    const live = [point([2.4, 3.3, 2.9], 8, 17)];
    expect(mergePoints(undefined, live)).toEqual(live);
    expect(mergePoints(history, undefined)).toBe(history);
    expect(mergePoints(undefined, undefined)).toEqual([]);
  });
});

describe("chartSeries: points to a step chart's rows", () => {
  const points = [
    point([2.1, 3.4, 3.2], 1, 10),
    point([2.4, 3.4, 2.9], 20, 11),
    point([2.4, 3.4, 2.9], 30, 12, "suspended"),
    point([1.9, 3.6, 4.2], 40, 13),
  ];

  it("starts with the state at `from`, draws each change, and carries the last state to `until`", () => {
    const { rows, outcomes } = chartSeries(points, ms(10), ms(60));
    expect(outcomes).toEqual(["o0", "o1", "o2"]);
    expect(rows.map((row) => [row.at, row.values.o0])).toEqual([
      [ms(10), 2.1],
      [ms(20), 2.4],
      // The price held until the suspension, then the gap.
      [ms(30), 2.4],
      [ms(30), null],
      [ms(40), 1.9],
      [ms(60), 1.9],
    ]);
  });

  it("draws the last price before a gap up to it: a next-goal market open, moved, then settled", () => {
    const nextGoal = [
      point([1.78, 9, 2.1], 1, 20),
      point([1.91, 9, 1.98], 15, 21),
      point([1.91, 9, 1.98], 30, 22, "settled"),
    ];
    const { rows } = chartSeries(nextGoal, ms(0), ms(60));
    // A step is drawn from a row with a price to the next row with one: each price has its stretch.
    const stretches = rows.flatMap((row, i) =>
      i > 0 && rows[i - 1]!.values.o0 != null && row.values.o0 != null ? [[rows[i - 1]!.values.o0, row.at]] : [],
    );
    expect(stretches).toEqual([
      [1.78, ms(15)],
      [1.91, ms(30)],
    ]);
    expect(anyPriceDrawn(rows)).toBe(true);
    expect(anyPriceDrawn(chartSeries([point([1.9, 9, 2], 5, 1, "settled")], ms(0), ms(60)).rows)).toBe(false);
  });

  it("leaves a gap while the market is suspended, for every outcome", () => {
    const { rows } = chartSeries(points, ms(0), ms(40));
    expect(rows.findLast((row) => row.at === ms(30))!.values).toEqual({ o0: null, o1: null, o2: null });
  });

  it("spans the prices drawn with a margin, a flat line included", () => {
    // 1.9 to 4.2, a tenth of that beyond each, out to the next twentieth.
    expect(priceDomain(chartSeries(points, ms(0), ms(60)).rows)).toEqual([1.65, 4.45]);
    const [flatLow, flatHigh] = priceDomain(chartSeries([point([1.9, 1.9], 1, 1)], ms(0), ms(60)).rows);
    expect([flatLow, flatHigh].map((n) => n.toFixed(2))).toEqual(["1.85", "1.95"]);
    expect(priceDomain(chartSeries([point([1.02, 8], 1, 1)], ms(0), ms(60)).rows)[0]).toBe(1);
    expect(priceDomain([])).toEqual([1, 2]);
  });

  it("reads prices on a logarithmic scale once they span a factor of four, linear below", () => {
    expect(priceScale([1.65, 4.45])).toBe("linear");
    expect(priceScale([1, 4])).toBe("log");
    expect(priceScale(priceDomain(chartSeries([point([1.01, 450], 1, 1)], ms(0), ms(60)).rows))).toBe("log");
  });

  it("draws nothing for a market without points", () => {
    expect(chartSeries([], ms(0), ms(60))).toEqual({ rows: [], outcomes: [] });
  });
});

describe("what the text alternative says", () => {
  const points = [point([2.1, 3.4, 3.2], 1, 10), point([2.4, 3.4, 2.9], 20, 11), point([1.9, 3.6, 4.2], 40, 13)];

  it("lists the state at `from` and every change after it", () => {
    expect(pointsSince(points, ms(25)).map((p) => p.revision)).toEqual([11, 13]);
    expect(pointsSince(points, ms(0))).toBe(points);
  });

  it("gives each outcome's first and last price", () => {
    expect(priceRange(points, "o0")).toEqual({ first: 2.1, last: 1.9 });
    expect(priceRange(points, "o9")).toBeNull();
  });

  it("gives only prices that were on offer, as the chart draws them", () => {
    const settled = [point([1.78, 3.4, 3.2], 1, 10), point([1.91, 3.4, 3.2], 20, 11, "settled")];
    expect(priceRange(settled, "o0")).toEqual({ first: 1.78, last: 1.78 });
    expect(priceRange([point([1.9, 3.4, 3.2], 1, 10, "suspended")], "o0")).toBeNull();
  });
});
