import { clockDown, quarterPeriod, stat, type SportModel } from "../model.ts";
import { halfLine, pointsQuotes } from "./points.ts";

// Four 15-minute quarters of drives. Each drive's result is drawn when it starts (touchdown, field
// goal, safety, or a punt or turnover), it then uses up game clock, and scores when it ends.
// Overtime is 10 minutes where the first score wins; a scoreless overtime ends level.
const QUARTER = 15 * 60;
const OVERTIME = 10 * 60;
const CLOCK_RUNS = 0.33;
const MEAN_POINTS = 22.5;

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
};

function startDrive(s: FootballState, rng: { next(): number; int(a: number, b: number): number }): void {
  const q = s.strength[s.offense];
  const roll = rng.next();
  s.driveResult =
    roll < 0.21 * q
      ? "touchdown"
      : roll < 0.35 * q
        ? "field goal"
        : roll < 0.36 * q
          ? "safety"
          : roll < 0.5
            ? "turnover"
            : "punt";
  s.driveLeft = rng.int(90, 330);
  s.driveYards =
    s.driveResult === "touchdown"
      ? rng.int(45, 85)
      : s.driveResult === "field goal"
        ? rng.int(25, 60)
        : rng.int(-5, 40);
}

function gameSecondsLeft(s: FootballState): number {
  if (s.over) return 0;
  return s.period > 4 ? s.clock : s.clock + (4 - s.period) * QUARTER;
}

export const americanFootball: SportModel<FootballState> = {
  sport: "american-football",
  typicalDuration: (4 * QUARTER) / CLOCK_RUNS + 13 * 60 + 2 * 120,
  create(rng, edge) {
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
      strength: [1 + 0.08 * edge, 1 - 0.08 * edge],
      points: [0, 0],
      touchdowns: [0, 0],
      fieldGoals: [0, 0],
      extraPoints: [0, 0],
      twoPoint: [0, 0],
      safeties: [0, 0],
      turnovers: [0, 0],
      yards: [0, 0],
      handicapLine: -halfLine(3.5 * edge),
      totalLine: halfLine(2 * MEAN_POINTS + 4 * rng.normal()),
      edge,
    };
    startDrive(s, rng);
    return s;
  },
  step(s, rng) {
    if (s.over) return false;
    if (s.inBreak) {
      if (--s.breakLeft <= 0) s.inBreak = false;
      return false;
    }
    if (!rng.chance(CLOCK_RUNS)) return false;
    s.clock--;
    let scored = false;
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
    return scored;
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
    const perTeam = MEAN_POINTS * share;
    return pointsQuotes({
      sides,
      score: s.points,
      expected: [perTeam * s.strength[0], perTeam * s.strength[1]],
      sdMargin: 13.5 * Math.sqrt(share),
      sdTotal: 13 * Math.sqrt(share),
      handicapLine: s.handicapLine,
      totalLine: s.totalLine,
      totalName: "Total points",
      tieHome: 0.5 + 0.05 * Math.tanh(s.edge),
      over: s.over,
    });
  },
};
