import { describe, expect, it } from "vitest";
import { moveSport, readSportOrder, sportOrder, sportsByActivity } from "./sport-order.ts";
import type { SportCode } from "./sports.ts";

const KNOWN: SportCode[] = ["soccer", "basketball", "tennis", "american-football", "ice-hockey", "baseball", "cs2"];
const at = (seconds: number) => new Date(Date.UTC(2026, 10, 28, 17, 0, seconds)).toISOString();
const row = (sport: SportCode, ...moved: number[]) => ({
  event: { sport },
  markets: moved.map((second) => ({ updated_at: at(second) })),
});

describe("the board's sports, by what is happening", () => {
  it("puts the sports whose prices moved most in the last minute first, not the feed's order", () => {
    // Long games started earlier and lead the feed's order; their prices have not moved for minutes.
    const rows = [
      row("american-football", 0, 5),
      row("tennis", 10),
      row("soccer", 170, 175, 178),
      row("soccer", 160, 179),
      row("basketball", 150, 176, 179, 180),
    ];
    expect(sportsByActivity(rows, KNOWN)).toEqual(["soccer", "basketball", "tennis", "american-football"]);
  });

  it("breaks a tie by the latest move, then by the feed's own order", () => {
    expect(sportsByActivity([row("tennis", 50), row("baseball", 59)], KNOWN)).toEqual(["baseball", "tennis"]);
    expect(sportsByActivity([row("cs2", 50), row("tennis", 50)], KNOWN)).toEqual(["tennis", "cs2"]);
  });

  it("keeps the viewer's own order first, and the sports it does not name after it by activity", () => {
    expect(sportOrder(["tennis", "soccer"], ["soccer", "basketball", "tennis"])).toEqual([
      "tennis",
      "soccer",
      "basketball",
    ]);
    expect(sportOrder(null, ["soccer", "tennis"])).toEqual(["soccer", "tennis"]);
    // A sport of the viewer's order with nothing in play now takes no place.
    expect(sportOrder(["cs2", "tennis"], ["soccer", "tennis"])).toEqual(["tennis", "soccer"]);
  });

  it("moves a sport one place, and stays put at either end", () => {
    expect(moveSport(["soccer", "tennis", "cs2"], "tennis", -1)).toEqual(["tennis", "soccer", "cs2"]);
    expect(moveSport(["soccer", "tennis"], "soccer", -1)).toEqual(["soccer", "tennis"]);
    expect(moveSport(["soccer", "tennis"], "tennis", 1)).toEqual(["soccer", "tennis"]);
  });

  it("reads a stored order, dropping what is not a sport", () => {
    expect(readSportOrder("tennis,darts,soccer", KNOWN)).toEqual(["tennis", "soccer"]);
    expect(readSportOrder("", KNOWN)).toBeNull();
  });
});
