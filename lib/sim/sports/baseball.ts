import { ordinal, stat, type SportModel } from "../model.ts";
import { NOTHING, SCORED } from "../suspensions.ts";
import { pointsQuotes } from "./points.ts";

// Nine innings of plate appearances (outs, walks, singles to home runs) with runners advancing
// base by base; the home side skips the bottom of the 9th when ahead and wins on a walk-off;
// extra innings start with a runner on second. There is no game clock.
/** Between halves, as under the pitch clock's rules (two minutes and a little). */
const HALF_BREAK = 125;
const RUNS_PER_HALF = 0.5;
/** Runs grow faster than hitting (more runners on base for each hit): as strength to this power (measured). */
const RUNS_POWER = 1.77;
/** The home side's lift in hitting, and the away side's loss: about a third of a run a game. */
const HOME = 0.02;

type Pair = [number, number];
export type BaseballState = {
  inning: number;
  top: boolean; // the away side bats in the top half
  inBreak: boolean;
  breakLeft: number;
  over: boolean;
  outs: number;
  bases: [boolean, boolean, boolean];
  paLeft: number;
  strength: Pair;
  runs: Pair;
  hits: Pair;
  homeRuns: Pair;
  walks: Pair;
  errors: Pair;
  edge: number;
};

/** Simulated seconds to a plate appearance's end: about 95 on average, as with the pitch clock. */
const plateAppearance = (rng: { int(a: number, b: number): number }) => rng.int(50, 140);

const batting = (s: BaseballState): 0 | 1 => (s.top ? 1 : 0);

function advance(s: BaseballState, bases: number, rng: { chance(p: number): boolean }): number {
  // Returns runs scored; `bases` is how far the batter goes (1..4).
  let runs = 0;
  const [first, second, third] = s.bases;
  if (bases === 4) {
    runs = 1 + Number(first) + Number(second) + Number(third);
    s.bases = [false, false, false];
  } else if (bases === 3) {
    runs = Number(first) + Number(second) + Number(third);
    s.bases = [false, false, true];
  } else if (bases === 2) {
    const firstScores = first && rng.chance(0.4);
    runs = Number(second) + Number(third) + Number(firstScores);
    s.bases = [false, true, first && !firstScores];
  } else {
    const secondScores = second && rng.chance(0.6);
    runs = Number(third) + Number(secondScores);
    s.bases = [true, first, second && !secondScores];
  }
  return runs;
}

function walk(s: BaseballState): number {
  const [first, second, third] = s.bases;
  const runs = first && second && third ? 1 : 0;
  s.bases = [true, first || s.bases[1], (first && second) || third];
  return runs;
}

function halfInningsLeft(s: BaseballState): Pair {
  if (s.over) return [0, 0];
  const fullAfter = Math.max(0, 9 - s.inning);
  const current = s.inBreak ? 0 : (3 - s.outs) / 3 + 0.3 * s.bases.filter(Boolean).length;
  if (s.top) return [fullAfter + (s.inBreak ? 0 : 1), fullAfter + current];
  return [fullAfter + current, fullAfter];
}

export const baseball: SportModel<BaseballState> = {
  sport: "baseball",
  typicalDuration: 2 * 60 * 60 + 40 * 60,
  create(rng, edge) {
    return {
      inning: 1,
      top: true,
      inBreak: false,
      breakLeft: 0,
      over: false,
      outs: 0,
      bases: [false, false, false],
      paLeft: plateAppearance(rng),
      strength: [(1 + HOME) * (1 + 0.06 * edge), (1 - HOME) * (1 - 0.06 * edge)],
      runs: [0, 0],
      hits: [0, 0],
      homeRuns: [0, 0],
      walks: [0, 0],
      errors: [0, 0],
      edge,
    };
  },
  step(s, rng) {
    if (s.over) return NOTHING;
    if (s.inBreak) {
      if (--s.breakLeft <= 0) {
        s.inBreak = false;
        // Extra innings start with the last out of the previous inning on second base.
        if (s.inning > 9) s.bases = [false, true, false];
      }
      return NOTHING;
    }
    if (--s.paLeft > 0) return NOTHING;
    s.paLeft = plateAppearance(rng);
    const side = batting(s);
    const q = s.strength[side];
    const roll = rng.next();
    let runs = 0;
    if (roll < 0.031 * q) {
      s.hits[side]++;
      s.homeRuns[side]++;
      runs = advance(s, 4, rng);
    } else if (roll < 0.035 * q) {
      s.hits[side]++;
      runs = advance(s, 3, rng);
    } else if (roll < 0.08 * q) {
      s.hits[side]++;
      runs = advance(s, 2, rng);
    } else if (roll < 0.23 * q) {
      s.hits[side]++;
      runs = advance(s, 1, rng);
    } else if (roll < 0.23 * q + 0.085) {
      s.walks[side]++;
      runs = walk(s);
    } else if (roll < 0.23 * q + 0.097) {
      s.errors[side === 0 ? 1 : 0]++;
      runs = advance(s, 1, rng);
    } else {
      s.outs++;
      if (s.outs < 3 && s.bases[2] && rng.chance(0.15)) {
        s.bases[2] = false;
        runs = 1;
      }
    }
    s.runs[side] += runs;
    const walkOff = !s.top && s.inning >= 9 && s.runs[0] > s.runs[1];
    if (walkOff) {
      s.over = true;
    } else if (s.outs >= 3) {
      s.outs = 0;
      s.bases = [false, false, false];
      if (s.top && s.inning >= 9 && s.runs[0] > s.runs[1]) s.over = true;
      else if (!s.top && s.inning >= 9 && s.runs[0] !== s.runs[1]) s.over = true;
      else {
        if (!s.top) s.inning++;
        s.top = !s.top;
        s.inBreak = true;
        s.breakLeft = HALF_BREAK;
      }
    }
    return runs > 0 ? SCORED : NOTHING;
  },
  isOver: (s) => s.over,
  inBreak: (s) => s.inBreak,
  view(s) {
    // During a break `top` already names the coming half.
    const period = s.over
      ? "Final"
      : s.inBreak
        ? s.top
          ? `End ${ordinal(s.inning - 1)}`
          : `Middle ${ordinal(s.inning)}`
        : `${s.top ? "Top" : "Bottom"} ${ordinal(s.inning)}`;
    return {
      score: { home: s.runs[0], away: s.runs[1] },
      clock: "",
      period,
      stats: [
        stat("Hits", ...s.hits),
        stat("Home runs", ...s.homeRuns),
        stat("Walks", ...s.walks),
        stat("Errors", ...s.errors),
      ],
    };
  },
  quotes(s, sides) {
    const [home, away] = halfInningsLeft(s);
    const spread = Math.sqrt((home + away) * 1.05);
    return pointsQuotes({
      sides,
      score: s.runs,
      expected: [
        home * RUNS_PER_HALF * s.strength[0] ** RUNS_POWER,
        away * RUNS_PER_HALF * s.strength[1] ** RUNS_POWER,
      ],
      sdMargin: spread,
      sdTotal: spread,
      handicapLine: -1.5,
      totalLine: 8.5,
      totalName: "Total runs",
      tieHome: 0.5 + 0.05 * Math.tanh(s.edge),
      over: s.over,
      // Runs are skewed: a game's median total lies about a third of a run below its mean (measured).
      totalSkew: (0.35 * (home + away)) / 17.5,
    });
  },
};
