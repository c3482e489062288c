import type { MarketType, Sport, Stat } from "../db/schema/index.ts";
import type { Random } from "./random.ts";

/** What an event shows at one moment, in the sport's own terms. */
export type GameView = {
  score: { home: number; away: number };
  clock: string;
  period: string;
  stats: Stat[];
};

export type OutcomeQuote = { key: string; name: string; probability: number };

/**
 * A market as the model sees it: fair probabilities. An outcome with probability 1 means the
 * market is decided. Rolling markets (next goal, current set) keep their key while what they are
 * about moves on, so a board shows one of each rather than a growing list.
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
  /** `edge` > 0 favours the home side; about N(0, 1) across events. */
  create(rng: Random, edge: number): State;
  /** One simulated second of play or break. Returns true when a side scored. */
  step(state: State, rng: Random): boolean;
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

export function twoWay(key: string, type: MarketType, name: string, sides: Sides, pHome: number): MarketQuote {
  return {
    key,
    type,
    name,
    line: null,
    outcomes: [
      { key: "home", name: sides.home, probability: pHome },
      { key: "away", name: sides.away, probability: 1 - pHome },
    ],
  };
}

export function overUnder(key: string, name: string, line: number, pOver: number): MarketQuote {
  return {
    key,
    type: "total",
    name,
    line,
    outcomes: [
      { key: "over", name: `Over ${line}`, probability: pOver },
      { key: "under", name: `Under ${line}`, probability: 1 - pOver },
    ],
  };
}

/** Home side given `line` (e.g. -1.5): home "covers" when its margin + line > 0. */
export function handicap(key: string, name: string, sides: Sides, line: number, pHomeCovers: number): MarketQuote {
  const signed = (x: number) => (x > 0 ? `+${x}` : `${x}`);
  return {
    key,
    type: "handicap",
    name,
    line,
    outcomes: [
      { key: "home", name: `${sides.home} ${signed(line)}`, probability: pHomeCovers },
      { key: "away", name: `${sides.away} ${signed(-line)}`, probability: 1 - pHomeCovers },
    ],
  };
}

/**
 * The probability that a race of units (sets, maps) between two sides ends in an outcome: from
 * `won` units each, with the current unit won by the first side with probability `current` and
 * every later one with `p`. `settled(a, b)` is 1 or 0 once the outcome is known, else undefined.
 */
function race(
  won: [number, number],
  current: number,
  p: number,
  settled: (a: number, b: number) => number | undefined,
): number {
  const memo = new Map<string, number>();
  const from = (a: number, b: number): number => {
    const known = settled(a, b) ?? memo.get(`${a}:${b}`);
    if (known !== undefined) return known;
    const value = p * from(a + 1, b) + (1 - p) * from(a, b + 1);
    memo.set(`${a}:${b}`, value);
    return value;
  };
  return settled(won[0], won[1]) ?? current * from(won[0] + 1, won[1]) + (1 - current) * from(won[0], won[1] + 1);
}

/** P(the first side wins a race to `target` units). */
export function raceProbability(won: [number, number], target: number, current: number, p: number): number {
  return race(won, current, p, (a, b) => (a >= target ? 1 : b >= target ? 0 : undefined));
}

/** P(a deciding unit is played): both sides reach target - 1. */
export function goesTheDistance(won: [number, number], target: number, current: number, p: number): number {
  return race(won, current, p, (a, b) => (Math.min(a, b) >= target - 1 ? 1 : Math.max(a, b) >= target ? 0 : undefined));
}
