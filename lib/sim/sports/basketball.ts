import { clockDown, quarterPeriod, stat, type SportModel } from "../model.ts";
import { halfLine, pointsQuotes } from "./points.ts";

// Four 12-minute quarters with a clock that stops often, possessions of about 15 seconds ending
// in a two, a three, free throws, a turnover or a miss; 5-minute overtimes until someone leads.
const QUARTER = 12 * 60;
const OVERTIME = 5 * 60;
const CLOCK_RUNS = 0.4;
const MEAN_POINTS = 112;

type Pair = [number, number];
export type BasketballState = {
  period: number; // 1..4 quarters, 5+ overtimes
  inBreak: boolean;
  breakLeft: number;
  clock: number; // game seconds left in the period
  over: boolean;
  offense: 0 | 1;
  possessionLeft: number;
  make: Pair; // shooting quality
  points: Pair;
  twos: Pair;
  threes: Pair;
  freeThrows: Pair;
  rebounds: Pair;
  turnovers: Pair;
  fouls: Pair;
  handicapLine: number;
  totalLine: number;
  edge: number;
};

function gameSecondsLeft(s: BasketballState): number {
  if (s.over) return 0;
  if (s.period > 4) return s.clock;
  return s.clock + (4 - s.period) * QUARTER;
}

export const basketball: SportModel<BasketballState> = {
  sport: "basketball",
  typicalDuration: (4 * QUARTER) / CLOCK_RUNS + 15 * 60 + 3 * 130,
  create(rng, edge) {
    return {
      period: 1,
      inBreak: false,
      breakLeft: 0,
      clock: QUARTER,
      over: false,
      offense: rng.chance(0.5) ? 0 : 1,
      possessionLeft: rng.int(8, 22),
      make: [1 + 0.025 * edge, 1 - 0.025 * edge],
      points: [0, 0],
      twos: [0, 0],
      threes: [0, 0],
      freeThrows: [0, 0],
      rebounds: [0, 0],
      turnovers: [0, 0],
      fouls: [0, 0],
      handicapLine: -halfLine(3 * edge),
      totalLine: halfLine(2 * MEAN_POINTS + 6 * rng.normal()),
      edge,
    };
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
    if (--s.possessionLeft <= 0) {
      const side = s.offense;
      const other = (1 - side) as 0 | 1;
      const roll = rng.next();
      const q = s.make[side];
      let keep = false;
      if (roll < 0.33 * q) {
        s.points[side] += 2;
        s.twos[side]++;
        scored = true;
      } else if (roll < 0.455 * q) {
        s.points[side] += 3;
        s.threes[side]++;
        scored = true;
      } else if (roll < 0.555) {
        s.fouls[other]++;
        for (let shot = 0; shot < 2; shot++) {
          if (rng.chance(0.78)) {
            s.points[side]++;
            s.freeThrows[side]++;
            scored = true;
          }
        }
      } else if (roll < 0.685) {
        s.turnovers[side]++;
      } else {
        keep = rng.chance(0.25);
        s.rebounds[keep ? side : other]++;
      }
      if (!keep) s.offense = other;
      s.possessionLeft = rng.int(7, 23);
    }
    if (s.clock <= 0) {
      const tied = s.points[0] === s.points[1];
      if (s.period >= 4 && !tied) {
        s.over = true;
      } else {
        s.period++;
        s.clock = s.period > 4 ? OVERTIME : QUARTER;
        s.inBreak = true;
        s.breakLeft = s.period === 3 ? 15 * 60 : 130;
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
        stat("2-pointers made", ...s.twos),
        stat("3-pointers made", ...s.threes),
        stat("Free throws made", ...s.freeThrows),
        stat("Rebounds", ...s.rebounds),
        stat("Turnovers", ...s.turnovers),
        stat("Fouls", ...s.fouls),
      ],
    };
  },
  quotes(s, sides) {
    const share = gameSecondsLeft(s) / (4 * QUARTER);
    const perTeam = MEAN_POINTS * share;
    return pointsQuotes({
      sides,
      score: s.points,
      expected: [perTeam * (1 + 0.02 * s.edge), perTeam * (1 - 0.02 * s.edge)],
      sdMargin: 12 * Math.sqrt(share),
      sdTotal: 17 * Math.sqrt(share),
      handicapLine: s.handicapLine,
      totalLine: s.totalLine,
      totalName: "Total points",
      tieHome: 0.5 + 0.05 * Math.tanh(s.edge),
      over: s.over,
    });
  },
};
