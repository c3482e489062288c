import { clockDown, quarterPeriod, stat, type SportModel } from "../model.ts";
import { NOTHING, SCORED } from "../suspensions.ts";
import { halfLine, pointsQuotes } from "./points.ts";

// Four 12-minute quarters with a clock that stops often, possessions of about 15 seconds ending
// in a two, a three, free throws, a turnover or a miss; 5-minute overtimes until someone leads.
// A side's shooting quality scales its twos and threes; figures in docs/simulator.md.
const QUARTER = 12 * 60;
const OVERTIME = 5 * 60;
const CLOCK_RUNS = 0.4;
/** Points a side of shooting quality 1 scores, overtimes included, as the model plays it (measured). */
const MEAN_POINTS = 114.8;
/** The home side's lift in shooting quality, and the away side's loss: about 2.5 points a game. */
const HOME = 0.012;
/** The lift in a side's shooting per ten points behind (and the drop per ten ahead). */
const SCORE_EFFECT = 0.02;
/** The chance that a side behind by one to three in the last seconds makes the shot it needs. */
const LATE_SHOT = 0.42;
const TWO = 0.33;
const THREE = 0.125;
const FREE_THROWS = 0.1;
const TURNOVER = 0.13;
/** Points a possession is worth at quality q, relative to quality 1: twos and threes scale, free throws do not. */
const worth = (q: number) =>
  (2 * TWO * q + 3 * THREE * q + 2 * 0.78 * FREE_THROWS) / (2 * TWO + 3 * THREE + 2 * 0.78 * FREE_THROWS);
/**
 * The points each side is expected to score from `perTeam` at quality 1: the better shooter
 * misses less and so rebounds its own misses less, and the score effects pull sides together, which keeps a fifth of the difference away
 * from the margin (measured).
 */
function expectedPoints(make: Pair, perTeam: number): Pair {
  const [home, away] = [worth(make[0]), worth(make[1])];
  const lean = ((home - away) / 2) * 0.78;
  return [perTeam * ((home + away) / 2 + lean), perTeam * ((home + away) / 2 - lean)];
}

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
    // How high-scoring the matchup is, on top of the sides' shooting.
    const pace = 1 + 0.03 * rng.normal();
    const make: Pair = [(1 + HOME + 0.035 * edge) * pace, (1 - HOME - 0.035 * edge) * pace];
    return {
      period: 1,
      inBreak: false,
      breakLeft: 0,
      clock: QUARTER,
      over: false,
      offense: rng.chance(0.5) ? 0 : 1,
      possessionLeft: rng.int(8, 22),
      make,
      points: [0, 0],
      twos: [0, 0],
      threes: [0, 0],
      freeThrows: [0, 0],
      rebounds: [0, 0],
      turnovers: [0, 0],
      fouls: [0, 0],
      handicapLine: -halfLine(expectedPoints(make, MEAN_POINTS)[0] - expectedPoints(make, MEAN_POINTS)[1]),
      totalLine: halfLine(MEAN_POINTS * (worth(make[0]) + worth(make[1]))),
      edge,
    };
  },
  step(s, rng) {
    if (s.over) return NOTHING;
    if (s.inBreak) {
      if (--s.breakLeft <= 0) s.inBreak = false;
      return NOTHING;
    }
    if (!rng.chance(CLOCK_RUNS)) return NOTHING;
    s.clock--;
    let scored = false;
    if (--s.possessionLeft <= 0) {
      const side = s.offense;
      const other = (1 - side) as 0 | 1;
      const roll = rng.next();
      const behind = s.points[other] - s.points[side];
      // Late in a close game a side behind shoots for the tie or the lead: the shot it needs, often.
      const late = s.period >= 4 && s.clock <= 40 && behind >= 1 && behind <= 3;
      const q = s.make[side] * (1 + SCORE_EFFECT * Math.max(-2, Math.min(2, behind / 10)));
      let keep = false;
      if (late && roll < LATE_SHOT) {
        const points = behind === 3 ? 3 : 2;
        s.points[side] += points;
        if (points === 3) s.threes[side]++;
        else s.twos[side]++;
        scored = true;
      } else if (roll < TWO * q) {
        s.points[side] += 2;
        s.twos[side]++;
        scored = true;
      } else if (roll < (TWO + THREE) * q) {
        s.points[side] += 3;
        s.threes[side]++;
        scored = true;
      } else if (roll < (TWO + THREE) * q + FREE_THROWS) {
        s.fouls[other]++;
        for (let shot = 0; shot < 2; shot++) {
          if (rng.chance(0.78)) {
            s.points[side]++;
            s.freeThrows[side]++;
            scored = true;
          }
        }
      } else if (roll < (TWO + THREE) * q + FREE_THROWS + TURNOVER) {
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
      expected: expectedPoints(s.make, perTeam),
      sdMargin: 13.2 * Math.sqrt(share),
      sdTotal: 18.1 * Math.sqrt(share),
      handicapLine: s.handicapLine,
      totalLine: s.totalLine,
      totalName: "Total points",
      tieHome: 0.5 + 0.05 * Math.tanh(s.edge),
      over: s.over,
    });
  },
};
