import type { MarketType, Sport, Stat } from "../db/schema/index.ts";
import type { Random } from "./random.ts";
import { lineResults, type Result } from "./settlement.ts";
import type { Incident } from "./suspensions.ts";

/** What an event shows at one moment, in the sport's own terms. */
export type GameView = {
  score: { home: number; away: number };
  clock: string;
  period: string;
  stats: Stat[];
};

/** `result` is set, on every outcome of a market at once, when the game has decided the market. */
export type OutcomeQuote = { key: string; name: string; probability: number; result?: Result };

/**
 * A market as the model sees it: fair probabilities, and results once the game decides it. What
 * moves on during a game (the next goal, the set, the map, the round) is a market per goal, set,
 * map or round, its number in the key: each settles when its own goal or round is decided, and the
 * next one opens.
 */
export type MarketQuote = {
  key: string;
  type: MarketType;
  name: string;
  line: number | null;
  outcomes: OutcomeQuote[];
};

export type Sides = { home: string; away: string };

/**
 * One sport's game: a state advanced one simulated second at a time with the event's own seeded
 * generator, so a replay from kickoff always reaches the same state.
 */
export type SportModel<State> = {
  sport: Sport;
  /** Typical simulated seconds from kickoff to the end, for the schedule. */
  typicalDuration: number;
  /**
   * `edge` > 0 favours the home side; about N(0, 1) across events. `competition` is the event's
   * competition, for the sports whose format depends on it (tennis's Grand Slams).
   */
  create(rng: Random, edge: number, competition?: string): State;
  /**
   * One simulated second of play or break. Returns what in it books suspend their markets for (a
   * score, a penalty, a review: suspensions.ts), most often nothing.
   */
  step(state: State, rng: Random): readonly Incident[];
  isOver(state: State): boolean;
  /** True while the game stands still (breaks): suspensions are not started then. */
  inBreak(state: State): boolean;
  view(state: State): GameView;
  quotes(state: State, sides: Sides): MarketQuote[];
};

/** `mm:ss` counting up from 0 (minutes may pass 90). */
export function clockUp(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
}

/** `mm:ss` left in a period. */
export function clockDown(secondsLeft: number): string {
  return clockUp(Math.ceil(Math.max(0, secondsLeft)));
}

/** Period labels of the quarter sports: Q1 to Q4, then OT, OT2, …; in a break, what just ended. */
export function quarterPeriod(period: number, inBreak: boolean, over: boolean): string {
  const name = (p: number) => (p <= 4 ? `Q${p}` : p === 5 ? "OT" : `OT${p - 4}`);
  if (over) return "Final";
  if (!inBreak) return name(period);
  const finished = period - 1;
  if (finished === 2) return "Halftime";
  if (finished === 4) return "End of regulation";
  return `End of ${name(finished)}`;
}

export function stat(label: string, home: number, away: number): Stat {
  return { label, home, away };
}

export function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${suffix}`;
}

/** The outcomes, with the results of `decidedBy` (see lineResults) when it is given. */
function twoSided(outcomes: [OutcomeQuote, OutcomeQuote], decidedBy: number | undefined): OutcomeQuote[] {
  if (decidedBy === undefined) return outcomes;
  const results = lineResults(decidedBy);
  return outcomes.map((o, i) => ({ ...o, result: results[i] }));
}

/** Home against away; `decidedMargin` (home minus away) once the game has decided it. */
export function twoWay(
  key: string,
  type: MarketType,
  name: string,
  sides: Sides,
  pHome: number,
  decidedMargin?: number,
): MarketQuote {
  return {
    key,
    type,
    name,
    line: null,
    outcomes: twoSided(
      [
        { key: "home", name: sides.home, probability: pHome },
        { key: "away", name: sides.away, probability: 1 - pHome },
      ],
      decidedMargin,
    ),
  };
}

/** Over or under `line`; `decidedTotal` once the game has decided it (passed, or at the end). */
export function overUnder(key: string, name: string, line: number, pOver: number, decidedTotal?: number): MarketQuote {
  return {
    key,
    type: "total",
    name,
    line,
    outcomes: twoSided(
      [
        { key: "over", name: `Over ${line}`, probability: pOver },
        { key: "under", name: `Under ${line}`, probability: 1 - pOver },
      ],
      decidedTotal === undefined ? undefined : decidedTotal - line,
    ),
  };
}

/** Home side given `line` (e.g. -1.5): home "covers" when its margin + line > 0. */
export function handicap(
  key: string,
  name: string,
  sides: Sides,
  line: number,
  pHomeCovers: number,
  decidedMargin?: number,
): MarketQuote {
  const signed = (x: number) => (x > 0 ? `+${x}` : `${x}`);
  return {
    key,
    type: "handicap",
    name,
    line,
    outcomes: twoSided(
      [
        { key: "home", name: `${sides.home} ${signed(line)}`, probability: pHomeCovers },
        { key: "away", name: `${sides.away} ${signed(-line)}`, probability: 1 - pHomeCovers },
      ],
      decidedMargin === undefined ? undefined : decidedMargin + line,
    ),
  };
}

/** A market with one winner among its outcomes (a result, a next goal): `winner` once decided. */
export function oneWinner(
  key: string,
  type: MarketType,
  name: string,
  outcomes: OutcomeQuote[],
  winner?: string,
): MarketQuote {
  return {
    key,
    type,
    name,
    line: null,
    outcomes:
      winner === undefined ? outcomes : outcomes.map((o) => ({ ...o, result: o.key === winner ? "won" : "lost" })),
  };
}

/**
 * The chance that the first side wins each later unit of a race: one figure, or two when it
 * depends on who won the unit before (momentum): [after the first side won it, after the second].
 */
export type UnitChance = number | [afterFirst: number, afterSecond: number];

/**
 * The probability that a race of units (sets, maps) between two sides ends in an outcome: from
 * `won` units each, with the current unit won by the first side with probability `current` and
 * every later one as `p` says. `settled(a, b)` is 1 or 0 once the outcome is known, else undefined.
 */
function race(
  won: [number, number],
  current: number,
  p: UnitChance,
  settled: (a: number, b: number) => number | undefined,
): number {
  const memo = new Map<string, number>();
  const chance = (last: 0 | 1) => (typeof p === "number" ? p : p[last]);
  const from = (a: number, b: number, last: 0 | 1): number => {
    const known = settled(a, b) ?? memo.get(`${a}:${b}:${last}`);
    if (known !== undefined) return known;
    const q = chance(last);
    const value = q * from(a + 1, b, 0) + (1 - q) * from(a, b + 1, 1);
    memo.set(`${a}:${b}:${last}`, value);
    return value;
  };
  return settled(won[0], won[1]) ?? current * from(won[0] + 1, won[1], 0) + (1 - current) * from(won[0], won[1] + 1, 1);
}

/** P(the first side wins a race to `target` units). */
export function raceProbability(won: [number, number], target: number, current: number, p: UnitChance): number {
  return race(won, current, p, (a, b) => (a >= target ? 1 : b >= target ? 0 : undefined));
}

/** P(a deciding unit is played): both sides reach target - 1. */
export function goesTheDistance(won: [number, number], target: number, current: number, p: UnitChance): number {
  return race(won, current, p, (a, b) => (Math.min(a, b) >= target - 1 ? 1 : Math.max(a, b) >= target ? 0 : undefined));
}

/** P(more than `line` units are played in a race to `target`). */
export function unitsOver(won: [number, number], target: number, line: number, current: number, p: UnitChance): number {
  return race(won, current, p, (a, b) => (a + b > line ? 1 : Math.max(a, b) >= target ? 0 : undefined));
}
