import { describe, expect, it } from "vitest";
import type { Market } from "../../db/schema/index.ts";
import type { MarketRevision } from "../../feed/history.ts";
import { marketPoints } from "./market-points.ts";

// A market's chart from its event's markets revisions: a first value, then one point per change.

const T0 = Date.parse("2026-11-25T12:00:00.000Z");
const at = (seconds: number) => new Date(T0 + seconds * 1000);

function market(price: number, updatedAt: Date, status: Market["status"] = "open"): Market {
  return {
    id: "e:total",
    type: "total",
    name: "Total",
    line: 2.5,
    status,
    outcomes: [
      { id: "e:total:over", name: "Over", price, status: status === "open" ? "active" : "suspended" },
      { id: "e:total:under", name: "Under", price: 1.9, status: status === "open" ? "active" : "suspended" },
    ],
    updated_at: updatedAt.toISOString(),
  };
}

/** A markets revision recorded at `seconds`, holding the market as given (changed then or earlier). */
const row = (revision: number, seconds: number, held: Market | null): MarketRevision => ({
  revision,
  recordedAt: at(seconds),
  market: held,
});

const point = (revision: number, seconds: number, price: number, status = "open") => ({
  at: at(seconds).toISOString(),
  revision,
  status,
  line: 2.5,
  outcomes: [
    { id: "e:total:over", price, status: status === "open" ? "active" : "suspended" },
    { id: "e:total:under", price: 1.9, status: status === "open" ? "active" : "suspended" },
  ],
});

describe("a market's points", () => {
  it("start with the market as it was at `from`, then one per revision that changed it", () => {
    const rows = [
      row(10, 5, market(2.0, at(5))), // the newest at or before from (T0+20)
      row(12, 30, market(2.0, at(5))), // another market of the event changed
      row(15, 40, market(2.2, at(40))),
      row(18, 50, market(2.2, at(40), "suspended")), // held as it was: not this market's change
      row(21, 60, market(2.4, at(60), "suspended")),
    ];
    expect(marketPoints(rows, at(20))).toEqual([
      point(10, 20, 2.0),
      point(15, 40, 2.2),
      point(21, 60, 2.4, "suspended"),
    ]);
  });

  it("start at the oldest state held without `from`, and at the market's creation when it came later", () => {
    expect(marketPoints([row(3, 2, market(1.8, at(1))), row(7, 9, market(1.7, at(9)))], null)).toEqual([
      point(3, 2, 1.8),
      point(7, 9, 1.7),
    ]);
    // The event's markets before this one existed hold no point; from is before its creation.
    expect(marketPoints([row(3, 2, null), row(7, 9, market(1.7, at(9)))], at(5))).toEqual([point(7, 9, 1.7)]);
    expect(marketPoints([], at(5))).toEqual([]);
  });

  it("count a change once when two lines of one batch (one time) each made a revision", () => {
    const rows = [row(4, 10, market(2.0, at(10))), row(5, 10, market(2.0, at(10))), row(6, 10, market(2.1, at(10)))];
    expect(marketPoints(rows, null)).toEqual([point(4, 10, 2.0), point(6, 10, 2.1)]);
  });
});
