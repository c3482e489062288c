import { describe, expect, it } from "vitest";
import { SPORTS, type Sport } from "../db/schema/index.ts";
import type { FeedUpdate } from "../feed/schemas.ts";
import { eventsFated, runToEnd, simPlan } from "../../testing/sim-events.ts";
import { handicap, overUnder, twoWay, type MarketQuote } from "./model.ts";
import { seededRandom } from "./random.ts";
import { decidedResults, lineResults, resultsAtEnd } from "./settlement.ts";
import { SimulatedEvent } from "./simulated-event.ts";
import { americanFootball } from "./sports/american-football.ts";
import { iceHockey } from "./sports/ice-hockey.ts";
import { pointsQuotes } from "./sports/points.ts";
import { soccer } from "./sports/soccer.ts";

type MarketDraft = NonNullable<FeedUpdate["markets"]>[number];
const sides = { home: "Home", away: "Away" };
const statusOf = (market: MarketDraft | MarketQuote | undefined, key: string) =>
  market && "status" in market
    ? market.outcomes.find((o) => o.id.endsWith(`:${key}`))?.status
    : (market?.outcomes.find((o) => o.key === key)?.result ?? "open");
const quoteOf = (quotes: MarketQuote[], key: string) => {
  const quote = quotes.find((q) => q.key === key);
  if (!quote) throw new Error(`no ${key} market among ${quotes.map((q) => q.key).join(", ")}`);
  return quote;
};

/** Each update with the markets as they stand after it, by key (the id without the event's). */
function* folded(event: SimulatedEvent, updates: FeedUpdate[]) {
  const markets = new Map<string, MarketDraft>();
  let score = { home: 0, away: 0 };
  let status = "upcoming";
  let stats: NonNullable<FeedUpdate["event"]>["stats"] = [];
  for (const update of updates) {
    for (const market of update.markets ?? []) markets.set(market.id.slice(event.plan.id.length + 1), market);
    const before = score;
    score = update.event?.score ?? score;
    status = update.event?.status ?? status;
    stats = update.event?.stats ?? stats;
    yield { update, markets, before, score, status, stats };
  }
}

describe("the results of a decided two-sided line", () => {
  it("give the first side when positive, the second when negative, and void both on a tie or a push", () => {
    expect(lineResults(2)).toEqual(["won", "lost"]);
    expect(lineResults(-0.5)).toEqual(["lost", "won"]);
    expect(lineResults(0)).toEqual(["void", "void"]);
    expect(decidedResults(twoWay("w", "match_winner", "Winner", sides, 0.5))).toBeNull();
    expect(resultsAtEnd(twoWay("w", "match_winner", "Winner", sides, 0.5))).toEqual(["void", "void"]);
    expect(resultsAtEnd(twoWay("w", "match_winner", "Winner", sides, 0.5, -3))).toEqual(["lost", "won"]);
  });

  it("settle a handicap with its line and a total against its line", () => {
    const results = (quote: MarketQuote) => decidedResults(quote);
    expect(results(handicap("h", "Handicap", sides, -1.5, 0.4, 1))).toEqual(["lost", "won"]);
    expect(results(handicap("h", "Handicap", sides, -1.5, 0.4, 2))).toEqual(["won", "lost"]);
    expect(results(handicap("h", "Handicap", sides, -3, 0.4, 3))).toEqual(["void", "void"]);
    expect(results(overUnder("t", "Total", 45, 0.5, 45))).toEqual(["void", "void"]);
    expect(results(overUnder("t", "Total", 2.5, 0.5, 3))).toEqual(["won", "lost"]);
  });
});

describe("a two-way market on a tie", () => {
  const base = {
    sides,
    expected: [0, 0] as [number, number],
    sdMargin: 10,
    sdTotal: 10,
    handicapLine: -3,
    totalLine: 40,
    totalName: "Total points",
    tieHome: 0.5,
  };

  it("returns both stakes when a game ends level (American football after a scoreless overtime)", () => {
    const state = americanFootball.create(seededRandom("tie"), 0);
    Object.assign(state, { over: true, points: [20, 20] });
    const winner = quoteOf(americanFootball.quotes(state, sides), "match_winner");
    expect(decidedResults(winner)).toEqual(["void", "void"]);
    const [, handicapQuote, total] = pointsQuotes({ ...base, score: [23, 20], over: true });
    expect(decidedResults(handicapQuote!)).toEqual(["void", "void"]);
    expect(decidedResults(total!)).toEqual(["won", "lost"]);
  });

  it("settles on the winner when it is not level", () => {
    const [winner] = pointsQuotes({ ...base, score: [20, 21], over: true });
    expect(decidedResults(winner!)).toEqual(["lost", "won"]);
  });
});

describe("nothing settles before the final whistle", () => {
  it("leaves a soccer result open one second from the end, however big the lead, and settles it at full time", () => {
    const state = soccer.create(seededRandom("late"), 0);
    Object.assign(state, { phase: "2nd half", seconds: 45 * 60 + state.added[1] - 1, goals: [5, 0] });
    const late = soccer.quotes(state, sides);
    for (const key of ["match_winner", "handicap", "both_teams_to_score"])
      expect(decidedResults(quoteOf(late, key)), key).toBeNull();
    // An over is decided by the goal that passes the line.
    expect(decidedResults(quoteOf(late, "total"))).toEqual(["won", "lost"]);
    state.phase = "Full time";
    const final = soccer.quotes(state, sides);
    expect(decidedResults(quoteOf(final, "match_winner"))).toEqual(["won", "lost", "lost"]);
    expect(decidedResults(quoteOf(final, "handicap"))).toEqual(["won", "lost"]);
    expect(decidedResults(quoteOf(final, "both_teams_to_score"))).toEqual(["lost", "won"]);
  });

  it.each(SPORTS)("settles no %s winner or handicap market while the event is in play", (sport) => {
    let finals = 0;
    for (const seed of ["a", "b", "c"]) {
      const event = new SimulatedEvent(simPlan(sport, `end-${seed}`));
      for (const { update, status } of folded(event, runToEnd(event))) {
        for (const market of update.markets ?? []) {
          if (market.type !== "match_winner" && market.type !== "handicap") continue;
          expect(market.status === "settled", `${market.id} at ${status}`).toBe(
            status === "finished" || status === "cancelled",
          );
          if (status === "finished" && market.type === "match_winner") finals++;
        }
      }
    }
    expect(finals).toBeGreaterThan(0);
  });
});

describe("goal by goal", () => {
  it("settles a goal's next-goal market for its scorer and opens the next, in the model", () => {
    const state = iceHockey.create(seededRandom("goals"), 0);
    Object.assign(state, { goals: [1, 1], scorers: [1, 0] });
    const quotes = iceHockey.quotes(state, sides);
    expect(decidedResults(quoteOf(quotes, "next_goal:1"))).toEqual(["lost", "lost", "won"]);
    expect(decidedResults(quoteOf(quotes, "next_goal:2"))).toEqual(["won", "lost", "lost"]);
    expect(decidedResults(quoteOf(quotes, "next_goal:3"))).toBeNull();
    expect(quotes.some((q) => q.key === "next_goal:4")).toBe(false);
    state.phase = "Final";
    expect(decidedResults(quoteOf(iceHockey.quotes(state, sides), "next_goal:3"))).toEqual(["lost", "won", "lost"]);
  });

  it.each(["soccer", "ice-hockey"] as Sport[])(
    "%s: each goal settles its own market, won by the scorer, and the next goal's market opens",
    (sport) => {
      let single = 0;
      for (const seed of ["a", "b", "c", "d"]) {
        const event = new SimulatedEvent(simPlan(sport, `goals-${seed}`));
        for (const { update, markets, before, score, status } of folded(event, runToEnd(event))) {
          if (status === "upcoming" || status === "cancelled") continue;
          const goals = score.home + score.away;
          for (let k = 1; k <= goals; k++) expect(markets.get(`next_goal:${k}`)?.status, `goal ${k}`).toBe("settled");
          const next = markets.get(`next_goal:${goals + 1}`);
          expect(next?.status === "settled").toBe(status === "finished");
          if (status === "finished" && event.fate === "normal") expect(statusOf(next, "none")).toBe("won");
          expect(markets.has(`next_goal:${goals + 2}`)).toBe(false);
          if (goals === before.home + before.away + 1) {
            const scorer = score.home > before.home ? "home" : "away";
            const settled = update.markets?.find((m) => m.id.endsWith(`:next_goal:${goals}`));
            expect(statusOf(settled, scorer)).toBe("won");
            expect(settled?.outcomes.filter((o) => o.status === "lost")).toHaveLength(2);
            single++;
          }
        }
      }
      expect(single).toBeGreaterThan(5);
    },
  );

  it("cs2: each round settles its own market, won by the round's winner, and each map its map market", () => {
    let rounds = 0;
    for (const seed of ["a", "b"]) {
      const event = new SimulatedEvent(simPlan("cs2", `rounds-${seed}`));
      let previous: number[] = [];
      for (const { update, markets, stats, status } of folded(event, runToEnd(event))) {
        const maps = stats.filter((s) => /^Map \d+ rounds$/.test(s.label));
        maps.forEach((map, i) => {
          const played = map.home + map.away;
          for (let r = 1; r <= played; r++) expect(markets.get(`next_round:${i + 1}:${r}`)?.status).toBe("settled");
          const low = Math.min(map.home, map.away);
          const target = low < 12 ? 13 : 16 + 3 * Math.floor((low - 12) / 3);
          const won = Math.max(map.home, map.away) >= target;
          expect(markets.get(`map_winner:${i + 1}`)?.status === "settled", `map ${i + 1}`).toBe(
            won || status === "cancelled",
          );
          if (won)
            expect(statusOf(markets.get(`map_winner:${i + 1}`), map.home > map.away ? "home" : "away")).toBe("won");
          if (status === "live" && !won)
            expect(markets.get(`next_round:${i + 1}:${played + 1}`)?.status).not.toBe("settled");
          const before = previous[2 * i] !== undefined ? [previous[2 * i]!, previous[2 * i + 1]!] : [0, 0];
          if (played === before[0]! + before[1]! + 1) {
            const settled = update.markets?.find((m) => m.id.endsWith(`:next_round:${i + 1}:${played}`));
            expect(statusOf(settled, map.home > before[0]! ? "home" : "away")).toBe("won");
            rounds++;
          }
        });
        previous = maps.flatMap((m) => [m.home, m.away]);
      }
    }
    expect(rounds).toBeGreaterThan(20);
  });
});

it("tennis: each set settles its own market, won by the set's winner, while the next set's is open", () => {
  let sets = 0;
  for (const seed of ["a", "b"]) {
    const event = new SimulatedEvent(simPlan("tennis", `sets-${seed}`));
    for (const { markets, stats, status } of folded(event, runToEnd(event))) {
      const played = stats.filter((s) => /^Set \d+ games$/.test(s.label));
      played.forEach((games, i) => {
        const [mine, theirs] = [Math.max(games.home, games.away), Math.min(games.home, games.away)];
        const won = (mine >= 6 && mine - theirs >= 2) || mine === 7;
        const market = markets.get(`set_winner:${i + 1}`);
        expect(market?.status === "settled", `set ${i + 1}`).toBe(won || status === "cancelled");
        if (won) {
          expect(statusOf(market, games.home > games.away ? "home" : "away")).toBe("won");
          sets++;
        }
      });
    }
  }
  expect(sets).toBeGreaterThan(4);
});

describe.each(SPORTS)("an abandoned %s event", (sport) => {
  it("voids every market still open and leaves what the game had decided as it was", () => {
    for (const event of eventsFated(sport, "abandoned", 2)) {
      const settledInPlay = new Map<string, string>();
      let final: Map<string, MarketDraft> = new Map();
      for (const { update, markets, status } of folded(event, runToEnd(event))) {
        if (status === "live")
          for (const market of update.markets ?? [])
            if (market.status === "settled") settledInPlay.set(market.id, JSON.stringify(market.outcomes));
        final = markets;
      }
      expect(final.size).toBeGreaterThan(0);
      for (const market of final.values()) {
        expect(market.status, market.id).toBe("settled");
        const kept = settledInPlay.get(market.id);
        if (kept) expect(JSON.stringify(market.outcomes)).toBe(kept);
        else
          expect(
            market.outcomes.map((o) => o.status),
            market.id,
          ).toEqual(market.outcomes.map(() => "void"));
      }
      expect(final.get("match_winner")?.outcomes.every((o) => o.status === "void")).toBe(true);
    }
  });
});

describe.each(SPORTS)("a played-out %s event", (sport) => {
  it("settles every market once, each with one winner or void on a tie", () => {
    for (const seed of ["a", "b", "c"]) {
      const event = new SimulatedEvent(simPlan(sport, `once-${seed}`));
      const updates = runToEnd(event);
      const settled = new Set<string>();
      const last = new Map<string, MarketDraft>();
      for (const market of updates.flatMap((u) => u.markets ?? [])) {
        expect(settled.has(market.id), `${market.id} sent again after it settled`).toBe(false);
        if (market.status === "settled") settled.add(market.id);
        last.set(market.id, market);
      }
      if (event.fate !== "normal") continue;
      for (const market of last.values()) {
        expect(market.status, market.id).toBe("settled");
        const statuses = market.outcomes.map((o) => o.status);
        if (statuses.includes("void"))
          expect(
            statuses.every((s) => s === "void"),
            market.id,
          ).toBe(true);
        else
          expect(
            statuses.filter((s) => s === "won"),
            market.id,
          ).toHaveLength(1);
      }
    }
  });
});
