import { describe, expect, it } from "vitest";
import { SPORTS } from "../db/schema/index.ts";
import type { FeedUpdate } from "../feed/schemas.ts";
import { eventsFated, runToEnd } from "../../testing/sim-events.ts";
import { LADDER } from "./ladder.ts";
import { twoWay, overUnder, oneWinner } from "./model.ts";
import { PREMATCH_TYPES, prematchQuotes } from "./prematch.ts";

// Pre-match markets: open from the announcement, moving with the market and the lineups, and the
// same markets carrying on in play from the last pre-match price.

type MarketDraft = NonNullable<FeedUpdate["markets"]>[number];
const sides = { home: "Home", away: "Away" };
const step = (price: number) => LADDER.indexOf(price);

/** The markets by id after the updates, folded as the ingest folds them. */
function marketsAfter(updates: FeedUpdate[], into = new Map<string, MarketDraft>()): Map<string, MarketDraft> {
  for (const update of updates) for (const market of update.markets ?? []) into.set(market.id, market);
  return into;
}
const priceOf = (market: MarketDraft | undefined, key: string) =>
  market?.outcomes.find((o) => o.id.endsWith(`:${key}`))?.price;

describe("pre-match quotes", () => {
  it("are the model's kickoff quotes of the pre-match types, leaning with the market's error", () => {
    const kickoff = [
      oneWinner("match_winner", "match_winner", "Result", [
        { key: "home", name: "Home", probability: 0.45 },
        { key: "draw", name: "Draw", probability: 0.27 },
        { key: "away", name: "Away", probability: 0.28 },
      ]),
      overUnder("total", "Total", 2.5, 0.52),
      oneWinner("next_goal:1", "next_goal", "Next goal", [
        { key: "home", name: "Home", probability: 0.5 },
        { key: "away", name: "Away", probability: 0.5 },
      ]),
    ];
    const none = prematchQuotes(kickoff, { side: 0, total: 0 });
    expect(none.map((q) => q.key)).toEqual(["match_winner", "total"]);
    expect(none[0]!.outcomes.map((o) => o.probability)).toEqual([0.45, 0.27, 0.28]);
    const leaning = prematchQuotes(kickoff, { side: 0.3, total: -0.2 });
    const [home, draw, away] = leaning[0]!.outcomes.map((o) => o.probability);
    expect(home).toBeGreaterThan(0.45);
    expect(away).toBeLessThan(0.28);
    expect(home! + draw! + away!).toBeCloseTo(1, 12);
    // A two-way market moves by the whole error in log-odds.
    const over = leaning[1]!.outcomes[0]!.probability;
    expect(Math.log(over / (1 - over)) - Math.log(0.52 / 0.48)).toBeCloseTo(-0.2, 10);
    const winner = prematchQuotes([twoWay("match_winner", "match_winner", "W", sides, 0.6)], { side: 0.1, total: 0 });
    expect(winner[0]!.outcomes[0]!.probability).toBeGreaterThan(0.6);
  });
});

describe.each(SPORTS)("a simulated %s event before kickoff", (sport) => {
  const events = eventsFated(sport, "normal", 4);

  it("is announced with its pre-match markets open, on the ladder, the result and the main total among them", () => {
    for (const event of events) {
      const first = event.advanceTo(-5 * 3600_000)[0]!;
      expect(first.event?.status).toBe("upcoming");
      const markets = first.markets ?? [];
      expect(markets.map((m) => m.type)).toEqual(expect.arrayContaining(["match_winner", "total"]));
      for (const market of markets) {
        expect(PREMATCH_TYPES).toContain(market.type);
        expect(market.status).toBe("open");
        for (const outcome of market.outcomes) {
          expect(outcome.status).toBe("active");
          expect(step(outcome.price)).toBeGreaterThanOrEqual(0);
        }
      }
    }
  });

  it("opens in play from the last pre-match price: the same markets, each price equal or one ladder step away", () => {
    for (const event of events) {
      const before = marketsAfter(event.advanceTo(-1000));
      const prematch = [...before.values()];
      expect(prematch.every((m) => m.status === "open")).toBe(true);
      const kickoff = event.advanceTo(0);
      expect(kickoff.some((u) => u.event?.status === "live")).toBe(true);
      const after = marketsAfter(kickoff, new Map(before));
      // In-play only markets (the first goal's, the first set's) open at kickoff beside them.
      expect(after.size).toBeGreaterThanOrEqual(before.size);
      for (const market of prematch) {
        const now = after.get(market.id)!;
        for (const [i, outcome] of market.outcomes.entries()) {
          const distance = Math.abs(step(now.outcomes[i]!.price) - step(outcome.price));
          expect(distance, `${market.id} ${outcome.price} → ${now.outcomes[i]!.price}`).toBeLessThanOrEqual(1);
        }
      }
    }
  });
});

describe("pre-match prices over the hours before kickoff", () => {
  const runs = ["soccer", "basketball", "american-football", "ice-hockey"].flatMap((sport) =>
    eventsFated(sport as (typeof SPORTS)[number], "normal", 5).map((event) => ({ event, updates: runToEnd(event) })),
  );

  it("move with the market, jump when the lineups are published, and settle on the model's price by kickoff", () => {
    let lineupMoves = 0;
    let drifting = 0;
    for (const { event, updates } of runs) {
      const winnerId = `${event.plan.id}:match_winner`;
      const prices: { home: number; lineups: boolean }[] = [];
      let live = false;
      for (const update of updates) {
        if (update.event?.status === "live") live = true;
        if (live) break;
        const winner = update.markets?.find((m) => m.id === winnerId);
        if (winner) prices.push({ home: priceOf(winner, "home")!, lineups: update.lineups !== undefined });
      }
      const lineupsAt = prices.findIndex((p) => p.lineups);
      if (lineupsAt > 0 && prices[lineupsAt]!.home !== prices[lineupsAt - 1]!.home) lineupMoves++;
      // Moves before the lineups are the market's drift.
      if (prices.slice(1, lineupsAt === -1 ? undefined : lineupsAt).length > 0) drifting++;
    }
    expect(lineupMoves).toBeGreaterThanOrEqual(runs.length / 2);
    expect(drifting).toBeGreaterThanOrEqual(runs.length / 2);
  });

  it("leave no market at a pre-match price once the game has been played: each is settled by the game", () => {
    for (const { event, updates } of runs) {
      const markets = marketsAfter(updates);
      const prematch = [...markets.values()].filter((m) => PREMATCH_TYPES.includes(m.type));
      expect(prematch.length).toBeGreaterThan(0);
      for (const market of prematch) {
        expect(market.status, market.id).toBe("settled");
        // Settled by the result, not voided as an orphan of the pre-match book.
        expect(market.outcomes.some((o) => o.status === "won") || event.fate !== "normal", market.id).toBe(true);
      }
    }
  });
});

describe("pre-match markets of an event that does not start as planned", () => {
  it("are suspended while it is postponed and open again when it is rescheduled", () => {
    for (const event of eventsFated("soccer", "postponed", 2)) {
      const statuses: string[] = [];
      let status = "upcoming";
      for (const update of runToEnd(event)) {
        status = update.event?.status ?? status;
        if (status === "live") break;
        const winner = update.markets?.find((m) => m.type === "match_winner");
        if (winner) statuses.push(`${status}:${winner.status}`);
      }
      expect(statuses).toContain("postponed:suspended");
      expect(statuses.at(-1)).toBe("upcoming:open");
      expect(statuses.filter((s) => s.startsWith("postponed")).every((s) => s === "postponed:suspended")).toBe(true);
    }
  });

  it("are void when it is cancelled before kickoff", () => {
    for (const event of eventsFated("basketball", "cancelled", 2)) {
      const markets = [...marketsAfter(runToEnd(event)).values()];
      expect(markets.length).toBeGreaterThan(0);
      for (const market of markets) {
        expect(market.status).toBe("settled");
        expect(market.outcomes.every((o) => o.status === "void")).toBe(true);
      }
    }
  });
});
