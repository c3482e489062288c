import { clockDown, quarterPeriod, stat, type SportModel } from "../model.ts";
import { NOTHING, SCORED, SUSPENSION, type Incident } from "../suspensions.ts";
import { halfLine, pointsQuotes } from "./points.ts";

// Four 15-minute quarters of drives, about 22 a game. Each drive's result is drawn when it starts
// (touchdown, field goal, safety, or a punt or turnover), it then uses up game clock, and scores
// when it ends. Late in a close game, and in overtime, a side in range kicks the field goal more
// often, which is what makes three the commonest margin. Overtime is 10 minutes where the first
// score wins; a scoreless overtime ends level. Figures: docs/simulator.md.
const QUARTER = 15 * 60;
const OVERTIME = 10 * 60;
const CLOCK_RUNS = 0.35;
/** Points a side of strength 1 scores in a game, as the model plays it (measured). */
const MEAN_POINTS = 22.8;
/** The share of the sides' difference in strength that the score effects leave in the margin. */
const MARGIN_KEPT = 0.92;
/** The home side's lift in scoring, and the away side's loss: about two points a game. */
const HOME = 0.045;
/** The drop in a drive's scoring chance per touchdown of lead, in the second half. */
const SCORE_EFFECT = 0.1;
/** The share of drives whose last play goes to a replay review (about one a game), and its length. */
const REVIEWED = 0.05;
const REVIEW = SUSPENSION["video review"]["american-football"]!;
const REVIEWED_SCORE: readonly Incident[] = Object.freeze(["score", "video review"] as const);
const REVIEWED_PLAY: readonly Incident[] = Object.freeze(["video review"] as const);

type Pair = [number, number];
type DriveResult = "touchdown" | "field goal" | "safety" | "punt" | "turnover";
export type FootballState = {
  period: number; // 1..4, 5 = overtime
  inBreak: boolean;
  breakLeft: number;
  clock: number;
  over: boolean;
  offense: 0 | 1;
  driveLeft: number;
  driveResult: DriveResult;
  driveYards: number;
  strength: Pair;
  points: Pair;
  touchdowns: Pair;
  fieldGoals: Pair;
  extraPoints: Pair;
  twoPoint: Pair;
  safeties: Pair;
  turnovers: Pair;
  yards: Pair;
  handicapLine: number;
  totalLine: number;
  edge: number;
  /** Seconds left of a replay review, while play and the clock stand still. */
  reviewLeft: number;
};

/** The extra field-goal chance of a drive: in overtime, or late when a kick wins or ties. */
function kickingLift(s: FootballState): number {
  if (s.period === 5) return 0.3;
  if (s.period < 4 || s.clock > 600) return 0;
  const behind = s.points[1 - s.offense]! - s.points[s.offense]!;
  return behind === 0 ? 0.5 : behind === 3 ? 0.45 : 0;
}

/**
 * How the score shapes a drive in the second half: a side ahead plays safe and a side behind
 * presses, so games stay closer than independent drives would leave them; late, a side that needs
 * a touchdown goes for one.
 */
function scoreEffect(s: FootballState): { q: number; touchdown: number } {
  if (s.period < 3 || s.period > 4) return { q: 1, touchdown: 0 };
  const lead = s.points[s.offense]! - s.points[1 - s.offense]!;
  const q = 1 - SCORE_EFFECT * Math.max(-2, Math.min(2, lead / 7));
  // Four down, a touchdown wins by three; ten or eleven down against a defence guarding the lead,
  // a late touchdown only closes the gap to three or four.
  const late = s.period === 4 && s.clock <= 420;
  const needsTouchdown = late && (lead === -4 || lead === -7 || lead === -10 || lead === -11);
  return { q, touchdown: needsTouchdown ? 0.2 : 0 };
}

function startDrive(s: FootballState, rng: { next(): number; int(a: number, b: number): number }): void {
  const effect = scoreEffect(s);
  const q = s.strength[s.offense] * effect.q;
  const roll = rng.next();
  const touchdown = 0.221 * q + effect.touchdown;
  const fieldGoal = touchdown + 0.157 * q + kickingLift(s);
  s.driveResult =
    roll < touchdown
      ? "touchdown"
      : roll < fieldGoal
        ? "field goal"
        : roll < fieldGoal + 0.005 * q
          ? "safety"
          : roll < fieldGoal + 0.12
            ? "turnover"
            : "punt";
  s.driveLeft = rng.int(55, 260);
  s.driveYards =
    s.driveResult === "touchdown"
      ? rng.int(45, 85)
      : s.driveResult === "field goal"
        ? rng.int(25, 60)
        : rng.int(-5, 40);
}

/**
 * The points each side is expected to score from `perTeam` for a side of strength 1: the score
 * effects pull the sides a tenth of the way together (measured).
 */
function expectedPoints(strength: Pair, perTeam: number): Pair {
  const mean = (strength[0] + strength[1]) / 2;
  const lean = ((strength[0] - strength[1]) / 2) * MARGIN_KEPT;
  return [perTeam * (mean + lean), perTeam * (mean - lean)];
}
const expectedMargin = (strength: Pair) => {
  const [home, away] = expectedPoints(strength, MEAN_POINTS);
  return home - away;
};

function gameSecondsLeft(s: FootballState): number {
  if (s.over) return 0;
  return s.period > 4 ? s.clock : s.clock + (4 - s.period) * QUARTER;
}

export const americanFootball: SportModel<FootballState> = {
  sport: "american-football",
  typicalDuration: (4 * QUARTER) / CLOCK_RUNS + 13 * 60 + 2 * 120,
  create(rng, edge) {
    // How high-scoring the matchup is, on top of the sides' strengths.
    const pace = 1 + 0.05 * rng.normal();
    const strength: Pair = [(1 + HOME) * (1 + 0.08 * edge) * pace, (1 - HOME) * (1 - 0.08 * edge) * pace];
    const s: FootballState = {
      period: 1,
      inBreak: false,
      breakLeft: 0,
      clock: QUARTER,
      over: false,
      offense: rng.chance(0.5) ? 0 : 1,
      driveLeft: 0,
      driveResult: "punt",
      driveYards: 0,
      strength,
      points: [0, 0],
      touchdowns: [0, 0],
      fieldGoals: [0, 0],
      extraPoints: [0, 0],
      twoPoint: [0, 0],
      safeties: [0, 0],
      turnovers: [0, 0],
      yards: [0, 0],
      handicapLine: -halfLine(expectedMargin(strength)),
      totalLine: halfLine(MEAN_POINTS * (strength[0] + strength[1])),
      edge,
      reviewLeft: 0,
    };
    startDrive(s, rng);
    return s;
  },
  step(s, rng) {
    if (s.over) return NOTHING;
    if (s.reviewLeft > 0) {
      s.reviewLeft--;
      return NOTHING;
    }
    if (s.inBreak) {
      if (--s.breakLeft <= 0) s.inBreak = false;
      return NOTHING;
    }
    if (!rng.chance(CLOCK_RUNS)) return NOTHING;
    s.clock--;
    let scored = false;
    let reviewed = false;
    if (--s.driveLeft <= 0) {
      const side = s.offense;
      const other = (1 - side) as 0 | 1;
      s.yards[side] += s.driveYards;
      if (s.driveResult === "touchdown") {
        s.touchdowns[side]++;
        s.points[side] += 6;
        if (rng.chance(0.06)) {
          if (rng.chance(0.48)) {
            s.twoPoint[side]++;
            s.points[side] += 2;
          }
        } else if (rng.chance(0.95)) {
          s.extraPoints[side]++;
          s.points[side]++;
        }
        scored = true;
      } else if (s.driveResult === "field goal") {
        s.fieldGoals[side]++;
        s.points[side] += 3;
        scored = true;
      } else if (s.driveResult === "safety") {
        s.safeties[other]++;
        s.points[other] += 2;
        scored = true;
      } else if (s.driveResult === "turnover") {
        s.turnovers[side]++;
      }
      // A scoring play or a turnover (or a spot) under review: the call stands, as most do.
      reviewed = rng.chance(REVIEWED);
      s.offense = other;
      startDrive(s, rng);
    }
    if (s.period === 5 && scored) {
      s.over = true;
    } else if (s.clock <= 0) {
      const tied = s.points[0] === s.points[1];
      if (s.period >= 5 || (s.period === 4 && !tied)) {
        s.over = true;
      } else {
        s.period++;
        s.clock = s.period === 5 ? OVERTIME : QUARTER;
        s.inBreak = true;
        s.breakLeft = s.period === 3 ? 13 * 60 : 120;
        // The second half and overtime start with a kickoff: a fresh drive.
        if (s.period === 3 || s.period === 5) startDrive(s, rng);
      }
    }
    if (reviewed && !s.over) {
      s.reviewLeft = REVIEW;
      return scored ? REVIEWED_SCORE : REVIEWED_PLAY;
    }
    return scored ? SCORED : NOTHING;
  },
  isOver: (s) => s.over,
  inBreak: (s) => s.inBreak,
  view(s) {
    const period = quarterPeriod(s.period, s.inBreak, s.over);
    return {
      score: { home: s.points[0], away: s.points[1] },
      clock: s.over || s.inBreak ? "00:00" : clockDown(s.clock),
      period,
      stats: [
        stat("Touchdowns", ...s.touchdowns),
        stat("Field goals", ...s.fieldGoals),
        stat("Extra points", ...s.extraPoints),
        stat("Two-point conversions", ...s.twoPoint),
        stat("Safeties", ...s.safeties),
        stat("Turnovers", ...s.turnovers),
        stat("Total yards", ...s.yards),
      ],
    };
  },
  quotes(s, sides) {
    const share = gameSecondsLeft(s) / (4 * QUARTER);
    const [home, away] = expectedPoints(s.strength, MEAN_POINTS * share);
    return pointsQuotes({
      sides,
      score: s.points,
      expected: [home, away],
      sdMargin: 11.7 * Math.sqrt(share),
      sdTotal: 14.2 * Math.sqrt(share),
      handicapLine: s.handicapLine,
      totalLine: s.totalLine,
      totalName: "Total points",
      tieHome: 0.5 + 0.05 * Math.tanh(s.edge),
      over: s.over,
    });
  },
};
