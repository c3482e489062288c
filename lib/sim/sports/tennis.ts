import { raceProbability, stat, twoWay, overUnder, unitsOver, type SportModel } from "../model.ts";
import { NOTHING, SCORED, type Incident } from "../suspensions.ts";

// Best of three sets (five in a men's Grand Slam), point by point on serve (about 62% of points go to the server), games with
// deuce, sets to six with a tiebreak at 6-6. The score is sets; games and points are statistics.
// Prices come from the exact Markov chain of points, games and sets.
type Pair = [number, number];
/** The lift in points won on serve for the winner of the last set (and the drop for its loser): sets hang together as on the tour (measured). */
const MOMENTUM = 0.02;
/** Simulated seconds from one point to the next: the point itself and the serve clock's 25 seconds. */
const POINT = [20, 42] as const;
const BROKEN: readonly Incident[] = Object.freeze(["score", "break of serve"] as const);
export type TennisState = {
  bestOf: 3 | 5;
  sets: Pair[]; // games in each set so far; the last is the current one
  setsWon: Pair;
  points: Pair; // in the current game or tiebreak
  tiebreak: boolean;
  server: 0 | 1;
  tiebreakFirstServer: 0 | 1;
  /** P(point won) when serving: `baseServe` from the players' skill, `serveWin` with the momentum of the last set. */
  baseServe: Pair;
  serveWin: Pair;
  pointLeft: number;
  breakLeft: number;
  over: boolean;
  aces: Pair;
  doubleFaults: Pair;
  lastSetWinner: 0 | 1 | null;
};

// The chain's values depend only on the point probabilities, which are fixed for an event: one
// memo per probability serves every state and every refresh of the event's prices.
const memos = new Map<string, Map<string, number>>();
function remembered(table: string, key: string, compute: () => number): number {
  let memo = memos.get(table);
  if (!memo) {
    if (memos.size > 2_000) memos.clear();
    memo = new Map();
    memos.set(table, memo);
  }
  const known = memo.get(key);
  if (known !== undefined) return known;
  const value = compute();
  memo.set(key, value);
  return value;
}

/**
 * P(the first player wins a race to `target` points by two) from (a, b), winning each point with
 * probability p: a game is a race to 4, a tiebreak to 7. Level from target - 1 on is "deuce".
 */
function firstByTwo(p: number, target: number, a: number, b: number): number {
  return remembered(`${target}:${p}`, `${a}:${b}`, () => {
    if (a >= target && a - b >= 2) return 1;
    if (b >= target && b - a >= 2) return 0;
    if (a >= target - 1 && b >= target - 1) {
      const deuce = (p * p) / (p * p + (1 - p) * (1 - p));
      if (a === b) return deuce;
      return a > b ? p + (1 - p) * deuce : p * deuce;
    }
    return p * firstByTwo(p, target, a + 1, b) + (1 - p) * firstByTwo(p, target, a, b + 1);
  });
}

/** P(the server wins the game) from points (a, b). */
const gameProbability = (p: number, a = 0, b = 0) => firstByTwo(p, 4, a, b);

/** P(the first player wins a tiebreak) from (a, b), with q the first player's share of points. */
const tiebreakProbability = (q: number, a = 0, b = 0) => firstByTwo(q, 7, a, b);

/** P(the first player wins a set) from `games`, `server` to serve, each winning `serve` of points on serve. */
function setProbability(serve: Pair, games: Pair, server: 0 | 1): number {
  return remembered(`set:${serve[0]}:${serve[1]}`, `${games[0]}:${games[1]}:${server}`, () =>
    setFrom(serve, games, server),
  );
}

function setFrom(serve: Pair, games: Pair, server: 0 | 1): number {
  const [a, b] = games;
  if ((a >= 6 && a - b >= 2) || a === 7) return 1;
  if ((b >= 6 && b - a >= 2) || b === 7) return 0;
  if (a === 6 && b === 6) return tiebreakProbability(pointShare(serve));
  const hold = gameProbability(serve[server]);
  const firstWins = server === 0 ? hold : 1 - hold;
  const next = (1 - server) as 0 | 1;
  return (
    firstWins * setProbability(serve, [a + 1, b], next) + (1 - firstWins) * setProbability(serve, [a, b + 1], next)
  );
}

const pointShare = (serve: Pair) => (serve[0] + 1 - serve[1]) / 2;

/** The points on serve after `lastSetWinner` took a set: momentum lifts the winner and drops the loser. */
const withMomentum = (base: Pair, lastSetWinner: 0 | 1 | null): Pair =>
  lastSetWinner === null
    ? base
    : lastSetWinner === 0
      ? [base[0] + MOMENTUM, base[1] - MOMENTUM]
      : [base[0] - MOMENTUM, base[1] + MOMENTUM];

/** P(the first player wins a set from its start), the first server drawn at random. */
const neutralSet = (serve: Pair) => (setProbability(serve, [0, 0], 0) + setProbability(serve, [0, 0], 1)) / 2;

/** P(the home player wins the set being played), from the current point. */
function currentSetProbability(s: TennisState): number {
  const games = s.sets.at(-1)!;
  if (s.tiebreak) return tiebreakProbability(pointShare(s.serveWin), s.points[0], s.points[1]);
  const serverGame = gameProbability(s.serveWin[s.server], s.points[s.server], s.points[1 - s.server]);
  const homeGame = s.server === 0 ? serverGame : 1 - serverGame;
  const next = (1 - s.server) as 0 | 1;
  return (
    homeGame * setProbability(s.serveWin, [games[0] + 1, games[1]], next) +
    (1 - homeGame) * setProbability(s.serveWin, [games[0], games[1] + 1], next)
  );
}

function winPoint(s: TennisState, side: 0 | 1): void {
  s.points[side]++;
  const [a, b] = s.points;
  const target = s.tiebreak ? 7 : 4;
  const gameWon = (x: number, y: number) => x >= target && x - y >= 2;
  if (s.tiebreak) {
    const played = a + b;
    // The first point is served by one player, then two each.
    s.server = (Math.floor((played + 1) / 2) % 2 === 0 ? s.tiebreakFirstServer : 1 - s.tiebreakFirstServer) as 0 | 1;
  }
  if (!gameWon(a, b) && !gameWon(b, a)) return;
  const games = s.sets.at(-1)!;
  games[side]++;
  s.points = [0, 0];
  const setOver = s.tiebreak || (games[side] >= 6 && games[side] - games[side === 0 ? 1 : 0] >= 2);
  if (s.tiebreak) s.server = (1 - s.tiebreakFirstServer) as 0 | 1;
  else s.server = (1 - s.server) as 0 | 1;
  s.tiebreak = false;
  if (setOver) {
    s.setsWon[side]++;
    s.lastSetWinner = side;
    s.serveWin = withMomentum(s.baseServe, side);
    if (s.setsWon[side] === setsToWin(s)) {
      s.over = true;
      return;
    }
    s.sets.push([0, 0]);
    s.breakLeft = 120;
    return;
  }
  if (games[0] === 6 && games[1] === 6) {
    s.tiebreak = true;
    s.tiebreakFirstServer = s.server;
  }
  // Players change ends after every odd game.
  if ((games[0] + games[1]) % 2 === 1) s.breakLeft = 90;
}

/** Men's singles at a Grand Slam are best of five sets; every other match best of three. */
export const bestOfSets = (competition = ""): 3 | 5 =>
  competition.includes("Grand Slam") && !competition.includes("WTA") && !/women/i.test(competition) ? 5 : 3;
const setsToWin = (s: TennisState) => (s.bestOf + 1) / 2;

export const tennis: SportModel<TennisState> = {
  sport: "tennis",
  typicalDuration: 100 * 60,
  create(rng, edge, competition) {
    const skill = 0.05 * Math.tanh(edge);
    return {
      bestOf: bestOfSets(competition),
      sets: [[0, 0]],
      setsWon: [0, 0],
      points: [0, 0],
      tiebreak: false,
      server: rng.chance(0.5) ? 0 : 1,
      tiebreakFirstServer: 0,
      baseServe: [0.62 + skill, 0.62 - skill],
      serveWin: [0.62 + skill, 0.62 - skill],
      pointLeft: rng.int(POINT[0], POINT[1]),
      breakLeft: 0,
      over: false,
      aces: [0, 0],
      doubleFaults: [0, 0],
      lastSetWinner: null,
    };
  },
  step(s, rng) {
    if (s.over) return NOTHING;
    if (s.breakLeft > 0) {
      s.breakLeft--;
      return NOTHING;
    }
    if (--s.pointLeft > 0) return NOTHING;
    s.pointLeft = rng.int(POINT[0], POINT[1]);
    const server = s.server;
    const tiebreak = s.tiebreak;
    const serverWins = rng.chance(s.serveWin[server]);
    if (serverWins && rng.chance(0.1)) s.aces[server]++;
    if (!serverWins && rng.chance(0.1)) s.doubleFaults[server]++;
    winPoint(s, serverWins ? server : ((1 - server) as 0 | 1));
    // A game won (the points start again) is the tennis "score" that markets react to; one won
    // against the serve (not a tiebreak, which both serve) is a break, which books hold longer.
    if (s.points[0] + s.points[1] !== 0) return NOTHING;
    return serverWins || tiebreak ? SCORED : BROKEN;
  },
  isOver: (s) => s.over,
  inBreak: (s) => s.breakLeft > 0,
  view(s) {
    return {
      score: { home: s.setsWon[0], away: s.setsWon[1] },
      clock: "",
      period: `Set ${s.sets.length}`,
      stats: [
        ...s.sets.map((games, i) => stat(`Set ${i + 1} games`, games[0], games[1])),
        stat("Game points", ...s.points),
        stat("Serving", s.over ? 0 : Number(s.server === 0), s.over ? 0 : Number(s.server === 1)),
        stat("Aces", ...s.aces),
        stat("Double faults", ...s.doubleFaults),
      ],
    };
  },
  quotes(s, sides) {
    // Every later set as momentum leaves it: after the home player won the set before, or the away player.
    const later: [number, number] = [
      neutralSet(withMomentum(s.baseServe, 0)),
      neutralSet(withMomentum(s.baseServe, 1)),
    ];
    const current = s.over ? Number(s.lastSetWinner === 0) : currentSetProbability(s);
    const won = s.setsWon;
    const target = setsToWin(s);
    // The total's line sits between the fewest sets a match can take and one more (2.5, or 3.5 in best of five).
    const line = target + 0.5;
    const match = s.over ? Number(s.setsWon[0] === target) : raceProbability(won, target, current, later);
    const over = s.over ? Number(s.sets.length > line) : unitsOver(won, target, line, current, later);
    // A market per set: those finished are settled by their games, the one in play is open.
    const setMarkets = s.sets.map((games, i) => {
      const finished = i < s.sets.length - 1 || s.over;
      return twoWay(
        `set_winner:${i + 1}`,
        "set_winner",
        `Set ${i + 1} winner`,
        sides,
        finished ? Number(games[0] > games[1]) : current,
        finished ? games[0] - games[1] : undefined,
      );
    });
    // Over is certain once a set past the line starts; under once the match ends short of it.
    const setsPlayed = s.sets.length;
    return [
      twoWay("match_winner", "match_winner", "Match winner", sides, match, s.over ? won[0] - won[1] : undefined),
      ...setMarkets,
      overUnder("total", "Total sets", line, over, setsPlayed > line || s.over ? setsPlayed : undefined),
    ];
  },
};
