import { finalScoreGrid } from "../odds.ts";
import { clockDown, handicap, overUnder, stat, twoWay, type SportModel } from "../model.ts";
import { NOTHING, SCORED, type Incident } from "../suspensions.ts";
import { nextGoalMarkets } from "./next-goal.ts";

// Three 20-minute periods with a stopping clock, goals as a Poisson process (about 3 a side),
// penalties that give the other side a power play, then 5 minutes of sudden-death overtime and a
// shootout whose winner is credited one goal, as in the NHL. A side behind presses and a side ahead
// sits back, so games end level after regulation about as often as in the NHL. The prices take
// the power plays' goals into account (figures in docs/simulator.md).
const PERIOD = 20 * 60;
const OVERTIME = 5 * 60;
const INTERMISSION = 18 * 60;
const CLOCK_RUNS = 0.58; // share of real seconds in which the game clock runs
/** Each side's rate at even strength, home and away, per game. */
const EVEN_STRENGTH: Pair = [2.65, 2.4];
/** The goals the power plays add, as a share of the even-strength rate (measured). */
const POWER_PLAY_LIFT = 1.14;
/** A side behind scores this much faster, a side ahead this much slower. */
const CATCH_UP = 0.2;

type Pair = [number, number];
type Phase = "P1" | "Intermission 1" | "P2" | "Intermission 2" | "P3" | "End of regulation" | "OT" | "SO" | "Final";
export type HockeyState = {
  phase: Phase;
  clock: number; // game seconds left in the period, or seconds into a break
  goalRate: Pair; // per game-clock second
  goals: Pair;
  scorers: (0 | 1)[]; // the side of each goal, the shootout's included, in order
  shots: Pair;
  powerPlayGoals: Pair;
  penaltyMinutes: Pair;
  penaltyLeft: Pair; // game seconds left on each side's penalty
  shootoutHome: number; // P(home wins a shootout)
};

const perSecond = (perGame: number) => perGame / (3 * PERIOD);
const NEXT: Partial<Record<Phase, Phase>> = { P1: "Intermission 1", P2: "Intermission 2" };

function regulationLeft(s: HockeyState): number {
  const periodsAfter = { P1: 2, "Intermission 1": 2, P2: 1, "Intermission 2": 1, P3: 0 } as Record<string, number>;
  if (!(s.phase in periodsAfter)) return 0;
  const inPeriod = s.phase.startsWith("P") ? s.clock : 0;
  return inPeriod + (periodsAfter[s.phase] ?? 0) * PERIOD;
}

export const iceHockey: SportModel<HockeyState> = {
  sport: "ice-hockey",
  typicalDuration: (3 * PERIOD) / CLOCK_RUNS + 2 * INTERMISSION,
  create(_rng, edge) {
    return {
      phase: "P1",
      clock: PERIOD,
      goalRate: [
        perSecond(EVEN_STRENGTH[0] * Math.exp(0.2 * edge)),
        perSecond(EVEN_STRENGTH[1] * Math.exp(-0.2 * edge)),
      ],
      goals: [0, 0],
      scorers: [],
      shots: [0, 0],
      powerPlayGoals: [0, 0],
      penaltyMinutes: [0, 0],
      penaltyLeft: [0, 0],
      shootoutHome: 0.5 + 0.05 * Math.tanh(edge),
    };
  },
  step(s, rng) {
    if (s.phase === "Final") return NOTHING;
    if (s.phase.startsWith("Intermission") || s.phase === "End of regulation") {
      s.clock++;
      const breakLength = s.phase === "End of regulation" ? 120 : INTERMISSION;
      if (s.clock >= breakLength) {
        const next: Phase = s.phase === "Intermission 1" ? "P2" : s.phase === "Intermission 2" ? "P3" : "OT";
        Object.assign(s, { phase: next, clock: next === "OT" ? OVERTIME : PERIOD });
      }
      return NOTHING;
    }
    if (s.phase === "SO") {
      s.clock++;
      if (s.clock >= 240) {
        const side = rng.chance(s.shootoutHome) ? 0 : 1;
        s.goals[side]++;
        s.scorers.push(side);
        s.shots[side]++;
        Object.assign(s, { phase: "Final", clock: 0 });
        return SCORED;
      }
      return NOTHING;
    }
    if (!rng.chance(CLOCK_RUNS)) return NOTHING;
    s.clock--;
    let scored = false;
    let penalty = false;
    for (const side of [0, 1] as const) {
      const other = side === 0 ? 1 : 0;
      const powerPlay = s.penaltyLeft[other] > 0 && s.penaltyLeft[side] === 0;
      const lead = s.goals[side] - s.goals[other];
      const score = lead < 0 ? 1 + CATCH_UP : lead > 0 ? 1 - CATCH_UP : 1;
      if (rng.chance(s.goalRate[side] * score * (powerPlay ? 2.5 : 1))) {
        s.goals[side]++;
        s.scorers.push(side);
        s.shots[side]++;
        if (powerPlay) {
          s.powerPlayGoals[side]++;
          s.penaltyLeft[other] = 0;
        }
        scored = true;
      } else if (rng.chance(perSecond(28))) {
        s.shots[side]++;
      }
      if (s.penaltyLeft[side] > 0) s.penaltyLeft[side]--;
      else if (rng.chance(perSecond(3.5))) {
        s.penaltyLeft[side] = 120;
        s.penaltyMinutes[side] += 2;
        penalty = true;
      }
    }
    if (s.phase === "OT" && scored) {
      Object.assign(s, { phase: "Final", clock: 0 });
    } else if (s.clock <= 0) {
      if (s.phase === "P3") {
        const tied = s.goals[0] === s.goals[1];
        Object.assign(s, { phase: tied ? "End of regulation" : "Final", clock: 0 });
      } else if (s.phase === "OT") {
        Object.assign(s, { phase: "SO", clock: 0 });
      } else {
        Object.assign(s, { phase: NEXT[s.phase], clock: 0 });
      }
    }
    if (!penalty) return scored ? SCORED : NOTHING;
    // A penalty called gives the other side a power play: books suspend for it too.
    const incidents: Incident[] = scored ? ["score", "power play"] : ["power play"];
    return incidents;
  },
  isOver: (s) => s.phase === "Final",
  inBreak: (s) => s.phase.startsWith("Intermission") || s.phase === "End of regulation",
  view(s) {
    const playing = s.phase.startsWith("P") || s.phase === "OT";
    return {
      score: { home: s.goals[0], away: s.goals[1] },
      clock: playing ? clockDown(s.clock) : s.phase === "SO" || s.phase === "Final" ? "" : "00:00",
      period: s.phase,
      stats: [
        stat("Shots on goal", ...s.shots),
        stat("Power-play goals", ...s.powerPlayGoals),
        stat("Penalty minutes", ...s.penaltyMinutes),
      ],
    };
  },
  quotes(s, sides) {
    const over = s.phase === "Final";
    const left = regulationLeft(s);
    // The power plays' goals on top of even strength, on average.
    const rate: Pair = [s.goalRate[0] * POWER_PLAY_LIFT, s.goalRate[1] * POWER_PLAY_LIFT];
    const grid = finalScoreGrid(s.goals, [rate[0] * left, rate[1] * left]);
    // What overtime and the shootout give a side, from a tie at the end of regulation.
    const otLeft = s.phase === "OT" ? s.clock : OVERTIME;
    const otHome = rate[0] * otLeft;
    const otAway = rate[1] * otLeft;
    const otNone = Math.exp(-(otHome + otAway));
    const extraHome =
      s.phase === "SO" ? s.shootoutHome : (otHome / (otHome + otAway)) * (1 - otNone) + otNone * s.shootoutHome;
    let home = 0;
    let overLine = 0;
    let homeByTwo = 0;
    grid.forEach((row, h) =>
      row.forEach((p, a) => {
        const fh = s.goals[0] + h;
        const fa = s.goals[1] + a;
        const tied = fh === fa && !over;
        if (fh > fa) home += p;
        if (tied) home += p * extraHome;
        if (fh + fa + (tied ? 1 : 0) > 5.5) overLine += p;
        if (fh - fa - 1.5 > 0) homeByTwo += p;
      }),
    );
    // The next goal: in what is left of regulation, or, from a tie, the one that decides it.
    const regulationHome = s.phase === "OT" || s.phase === "SO" ? 0 : rate[0] * left;
    const regulationAway = s.phase === "OT" || s.phase === "SO" ? 0 : rate[1] * left;
    const total = regulationHome + regulationAway;
    const quiet = Math.exp(-total);
    const tiedNow = s.goals[0] === s.goals[1] && !over;
    const nextHome = (total > 0 ? (regulationHome / total) * (1 - quiet) : 0) + (tiedNow ? quiet * extraHome : 0);
    const nextNone = over || !tiedNow ? (over ? 1 : quiet) : 0;
    const [homeGoals, awayGoals] = s.goals;
    const goals = homeGoals + awayGoals;
    return [
      twoWay(
        "match_winner",
        "match_winner",
        "Winner (incl. overtime and shootout)",
        sides,
        home,
        over ? homeGoals - awayGoals : undefined,
      ),
      overUnder("total", "Total goals", 5.5, overLine, over || goals > 5.5 ? goals : undefined),
      handicap("handicap", "Puck line", sides, -1.5, homeByTwo, over ? homeGoals - awayGoals : undefined),
      ...nextGoalMarkets(s.scorers, sides, { home: over ? 0 : nextHome, none: nextNone }, over),
    ];
  },
};
