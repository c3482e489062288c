import { describe, expect, it } from "vitest";
import { pricesWithMargin } from "./ladder.ts";
import type { MarketQuote } from "./model.ts";
import { seededRandom } from "./random.ts";
import { basketball } from "./sports/basketball.ts";
import { soccer, type SoccerState } from "./sports/soccer.ts";

// The simulator's prices as the game's clock runs with nothing happening: they must only move the
// way the clock says, and a decided game's losing side must be quoted long.

const sides = { home: "Home", away: "Away" };
const priced = (quotes: MarketQuote[], key: string, margin: number) => {
  const quote = quotes.find((q) => q.key === key)!;
  return pricesWithMargin(
    quote.outcomes.map((o) => o.probability),
    margin,
  );
};

/** Home, draw and away prices of a soccer match at `goals`, every minute of the second half. */
function secondHalf(goals: [number, number]): { minute: number; prices: number[] }[] {
  const state: SoccerState = soccer.create(seededRandom("clock"), 0);
  const out = [];
  for (let minute = 46; minute * 60 < 45 * 60 + 45 * 60 + state.added[1]; minute++) {
    Object.assign(state, { phase: "2nd half", seconds: (minute - 45) * 60, goals });
    out.push({ minute, prices: priced(soccer.quotes(state, sides), "match_winner", 0.07) });
  }
  return out;
}

describe("soccer home/draw/away as the clock runs", () => {
  it("with a two-goal lead: the leader shortens, the draw and the trailing side lengthen, to hundreds at the end", () => {
    const minutes = secondHalf([2, 0]);
    for (let i = 1; i < minutes.length; i++) {
      const [before, now] = [minutes[i - 1]!.prices, minutes[i]!.prices];
      const at = `minute ${minutes[i]!.minute}: ${before.join(" / ")} → ${now.join(" / ")}`;
      expect(now[0], at).toBeLessThanOrEqual(before[0]!);
      expect(now[1], at).toBeGreaterThanOrEqual(before[1]!);
      expect(now[2], at).toBeGreaterThanOrEqual(before[2]!);
    }
    const [home, draw, away] = minutes.at(-1)!.prices;
    expect(home).toBeLessThanOrEqual(1.01);
    expect(draw).toBeGreaterThanOrEqual(100);
    expect(away).toBeGreaterThanOrEqual(500);
    // Strictly longer over the half, not held at a cap.
    expect(away).toBeGreaterThan(minutes[0]!.prices[2]! * 5);
  });

  it("level: the draw shortens and both sides lengthen", () => {
    const minutes = secondHalf([1, 1]);
    for (let i = 1; i < minutes.length; i++) {
      const [before, now] = [minutes[i - 1]!.prices, minutes[i]!.prices];
      expect(now[1]).toBeLessThanOrEqual(before[1]!);
      expect(now[0]).toBeGreaterThanOrEqual(before[0]!);
      expect(now[2]).toBeGreaterThanOrEqual(before[2]!);
    }
    const [home, draw, away] = minutes.at(-1)!.prices;
    expect(draw).toBeLessThanOrEqual(1.1);
    expect(Math.min(home!, away!)).toBeGreaterThanOrEqual(20);
  });
});

describe("a basketball winner market late in a decided game", () => {
  it("quotes the side 20 points down with a minute left in the hundreds", () => {
    const state = basketball.create(seededRandom("late"), 0);
    Object.assign(state, { period: 4, clock: 60, points: [110, 90] });
    const [leader, trailer] = priced(basketball.quotes(state, sides), "match_winner", 0.05);
    expect(leader).toBeLessThanOrEqual(1.01);
    expect(trailer).toBeGreaterThanOrEqual(100);
  });
});
