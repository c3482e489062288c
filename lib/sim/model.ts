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
 * P(the first side wins a race of units, e.g. sets or maps) where the first side wins each unit
 * with probability p, from `won` units each, `target` needed, and the current unit won with `current`.
 */
export function raceProbability(won: [number, number], target: number, current: number, p: number): number {
  const memo = new Map<string, number>();
  const from = (a: number, b: number): number => {
    if (a >= target) return 1;
    if (b >= target) return 0;
    const key = `${a}:${b}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    const value = p * from(a + 1, b) + (1 - p) * from(a, b + 1);
    memo.set(key, value);
    return value;
  };
  if (won[0] >= target) return 1;
  if (won[1] >= target) return 0;
  return current * from(won[0] + 1, won[1]) + (1 - current) * from(won[0], won[1] + 1);
}

/** P(a deciding unit is played): both sides reach target - 1. */
export function goesTheDistance(won: [number, number], target: number, current: number, p: number): number {
  const memo = new Map<string, number>();
  const from = (a: number, b: number): number => {
    if (Math.min(a, b) >= target - 1) return 1;
    if (Math.max(a, b) >= target) return 0;
    const key = `${a}:${b}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    const value = p * from(a + 1, b) + (1 - p) * from(a, b + 1);
    memo.set(key, value);
    return value;
  };
  if (Math.min(...won) >= target - 1) return 1;
  if (Math.max(...won) >= target) return 0;
  return current * from(won[0] + 1, won[1]) + (1 - current) * from(won[0], won[1] + 1);
}
