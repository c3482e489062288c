import { finalScoreGrid } from "../odds.ts";
import type { Random } from "../random.ts";
import { clockUp, handicap, oneWinner, overUnder, stat, type MarketQuote, type SportModel } from "../model.ts";
import { NOTHING, SCORED, SUSPENSION, type Incident } from "../suspensions.ts";
import { nextGoalMarkets } from "./next-goal.ts";

// Goals as a Poisson process at club-football rates (about 2.6 a match, home advantage included),
// shots and cards around them, two halves of 45 minutes plus stoppage time. Some goals are
// penalties: awarded at once or after a VAR review, play stops until the kick (figures in
// docs/simulator.md).
const HALF = 45 * 60;
const HALF_TIME_BREAK = 15 * 60;
/** The goals a match the sides' rates are set around (1.45 + 1.15 between equal sides). */
const MEAN_GOALS = 2.6;
/** Penalties a match and the share scored, as in the top European leagues since VAR. */
const PENALTIES = 0.28;
const CONVERTED = 0.78;
/** VAR on-field reviews for a possible penalty a match, and the share that end in one. */
const REVIEWS = 0.2;
const REVIEW_GIVES = 0.5;
// A side's penalties (given at once, and reviews) follow its threat; its goals from open play are
// what is left of its rate, so the goals a match stay where they were.
const AWARDED = (PENALTIES - REVIEWS * REVIEW_GIVES) / MEAN_GOALS;
const REVIEWED = REVIEWS / MEAN_GOALS;
const OPEN_PLAY = 1 - (PENALTIES * CONVERTED) / MEAN_GOALS;
/** Seconds from a penalty's award to the kick, and from a review's start to its call: as long as books hold the markets. */
const PENALTY_WAIT = SUSPENSION.penalty.soccer!;
const REVIEW_WAIT = SUSPENSION["video review"].soccer!;

type Pair = [number, number];
export type SoccerState = {
  phase: "1st half" | "Half time" | "2nd half" | "Full time";
  seconds: number; // in the current half or break
  added: Pair; // stoppage time of each half
  goalRate: Pair; // per second of play
  shotRate: Pair;
  goals: Pair;
  scorers: (0 | 1)[]; // the side of each goal, in order
  shots: Pair;
  onTarget: Pair;
  corners: Pair;
  yellow: Pair;
  red: Pair;
  penalties: Pair; // awarded
  possession: number; // home share, 0..1
  /** Minutes and seconds played when the last half ended, the clock shown at half and full time. */
  whistle: number;
  /** Play stopped for a penalty to `side` or a review of one: seconds to the kick or the call. */
  stoppage: { kind: "penalty" | "review"; side: 0 | 1; left: number } | null;
};

const perSecond = (perMatch: number) => perMatch / (2 * HALF);

function remainingPlay(s: SoccerState): number {
  const expectedSecondAdded = 4 * 60;
  if (s.phase === "1st half") return Math.max(0, HALF + s.added[0] - s.seconds) + HALF + expectedSecondAdded;
  if (s.phase === "Half time") return HALF + expectedSecondAdded;
  if (s.phase === "2nd half") return Math.max(0, HALF + s.added[1] - s.seconds);
  return 0;
}

function goal(s: SoccerState, side: 0 | 1): void {
  s.goals[side]++;
  s.scorers.push(side);
  s.shots[side]++;
  s.onTarget[side]++;
}

function award(s: SoccerState, side: 0 | 1): void {
  s.penalties[side]++;
  s.stoppage = { kind: "penalty", side, left: PENALTY_WAIT };
}

/** A second of a stoppage: at its end the penalty is kicked, or the review gives one or not. */
function stoppage(s: SoccerState, stopped: NonNullable<SoccerState["stoppage"]>, rng: Random): readonly Incident[] {
  if (--stopped.left > 0) return NOTHING;
  s.stoppage = null;
  if (stopped.kind === "review") {
    if (!rng.chance(REVIEW_GIVES)) return NOTHING;
    award(s, stopped.side);
    return GIVEN;
  }
  if (rng.chance(CONVERTED)) {
    goal(s, stopped.side);
    return SCORED;
  }
  // Saved or missed: a shot, not a goal.
  s.shots[stopped.side]++;
  return NOTHING;
}
const GIVEN: readonly Incident[] = Object.freeze(["penalty"] as const);

export const soccer: SportModel<SoccerState> = {
  sport: "soccer",
  typicalDuration: 2 * HALF + HALF_TIME_BREAK + 6 * 60,
  create(rng, edge) {
    const home = 1.45 * Math.exp(0.25 * edge);
    const away = 1.15 * Math.exp(-0.25 * edge);
    return {
      phase: "1st half",
      seconds: 0,
      added: [rng.int(1, 4) * 60, rng.int(3, 7) * 60],
      goalRate: [perSecond(home), perSecond(away)],
      shotRate: [perSecond(12 * Math.exp(0.15 * edge)), perSecond(10 * Math.exp(-0.15 * edge))],
      goals: [0, 0],
      scorers: [],
      shots: [0, 0],
      onTarget: [0, 0],
      corners: [0, 0],
      yellow: [0, 0],
      red: [0, 0],
      penalties: [0, 0],
      possession: 0.5 + 0.04 * edge,
      whistle: 0,
      stoppage: null,
    };
  },
  step(s, rng) {
    s.seconds++;
    if (s.phase === "Half time") {
      if (s.seconds >= HALF_TIME_BREAK) Object.assign(s, { phase: "2nd half", seconds: 0 });
      return NOTHING;
    }
    if (s.phase === "Full time") return NOTHING;
    // The clock runs on while play waits for the kick or the call, and the half waits too.
    if (s.stoppage) return stoppage(s, s.stoppage, rng);
    let incidents: Incident[] | null = null;
    const add = (incident: Incident) => (incidents ??= []).push(incident);
    for (const side of [0, 1] as const) {
      if (rng.chance(s.goalRate[side] * OPEN_PLAY)) {
        goal(s, side);
        add("score");
      } else if (rng.chance(s.shotRate[side])) {
        s.shots[side]++;
        if (rng.chance(0.3)) s.onTarget[side]++;
      }
      if (rng.chance(perSecond(5))) s.corners[side]++;
      if (rng.chance(perSecond(2))) s.yellow[side]++;
      if (rng.chance(perSecond(0.06))) {
        s.red[side]++;
        s.goalRate[side] *= 0.7;
        s.shotRate[side] *= 0.8;
        add("red card");
      }
      const box = rng.next();
      if (s.stoppage) continue;
      if (box < s.goalRate[side] * AWARDED) {
        award(s, side);
        add("penalty");
      } else if (box < s.goalRate[side] * (AWARDED + REVIEWED)) {
        s.stoppage = { kind: "review", side, left: REVIEW_WAIT };
        add("video review");
      }
    }
    s.possession = Math.min(0.75, Math.max(0.25, s.possession + (rng.next() - 0.5) * 0.002));
    const half = s.phase === "1st half" ? 0 : 1;
    if (!s.stoppage && s.seconds >= HALF + s.added[half]) {
      const whistle = half * HALF + s.seconds;
      Object.assign(s, { phase: half === 0 ? "Half time" : "Full time", seconds: 0, whistle });
    }
    return incidents ?? NOTHING;
  },
  isOver: (s) => s.phase === "Full time",
  inBreak: (s) => s.phase === "Half time",
  view(s) {
    const played = s.phase === "1st half" ? s.seconds : s.phase === "Half time" ? HALF : HALF + s.seconds;
    // At the whistle the clock stays where the half ended, stoppage time included, as a real one does.
    const clock = s.phase === "Half time" || s.phase === "Full time" ? clockUp(s.whistle) : clockUp(played);
    const possession = Math.round(s.possession * 100);
    return {
      score: { home: s.goals[0], away: s.goals[1] },
      clock,
      period: s.phase,
      stats: [
        stat("Possession %", possession, 100 - possession),
        stat("Shots", ...s.shots),
        stat("Shots on target", ...s.onTarget),
        stat("Corners", ...s.corners),
        stat("Yellow cards", ...s.yellow),
        stat("Red cards", ...s.red),
        stat("Penalties", ...s.penalties),
      ],
    };
  },
  quotes(s, sides) {
    const left = remainingPlay(s);
    const remaining: Pair = [s.goalRate[0] * left, s.goalRate[1] * left];
    const grid = finalScoreGrid(s.goals, remaining);
    let home = 0;
    let draw = 0;
    let over = 0;
    let both = 0;
    let homeByTwo = 0;
    grid.forEach((row, h) =>
      row.forEach((p, a) => {
        const fh = s.goals[0] + h;
        const fa = s.goals[1] + a;
        if (fh > fa) home += p;
        else if (fh === fa) draw += p;
        if (fh + fa > 2.5) over += p;
        if (fh > 0 && fa > 0) both += p;
        if (fh - fa - 1.5 > 0) homeByTwo += p;
      }),
    );
    const total = remaining[0] + remaining[1];
    const none = Math.exp(-total);
    const nextHome = total > 0 ? (remaining[0] / total) * (1 - none) : 0;
    // Only the final whistle decides the result, the handicap and an under; an over and both
    // teams scoring are decided by the goal that makes them so.
    const ended = s.phase === "Full time";
    const [homeGoals, awayGoals] = s.goals;
    const quotes: MarketQuote[] = [
      oneWinner(
        "match_winner",
        "match_winner",
        "Match result",
        [
          { key: "home", name: sides.home, probability: home },
          { key: "draw", name: "Draw", probability: draw },
          { key: "away", name: sides.away, probability: Math.max(0, 1 - home - draw) },
        ],
        ended ? (homeGoals > awayGoals ? "home" : homeGoals < awayGoals ? "away" : "draw") : undefined,
      ),
      overUnder(
        "total",
        "Total goals",
        2.5,
        over,
        ended || homeGoals + awayGoals > 2.5 ? homeGoals + awayGoals : undefined,
      ),
      oneWinner(
        "both_teams_to_score",
        "both_teams_to_score",
        "Both teams to score",
        [
          { key: "yes", name: "Yes", probability: both },
          { key: "no", name: "No", probability: Math.max(0, 1 - both) },
        ],
        homeGoals > 0 && awayGoals > 0 ? "yes" : ended ? "no" : undefined,
      ),
      handicap("handicap", "Handicap", sides, -1.5, homeByTwo, ended ? homeGoals - awayGoals : undefined),
      ...nextGoalMarkets(s.scorers, sides, { home: nextHome, none }, ended),
    ];
    return quotes;
  },
};
