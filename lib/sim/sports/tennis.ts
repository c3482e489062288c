import { goesTheDistance, raceProbability, stat, twoWay, overUnder, type SportModel } from "../model.ts";

// Best of three sets, point by point on serve (about 62% of points go to the server), games with
// deuce, sets to six with a tiebreak at 6-6. The score is sets; games and points are statistics.
// Prices come from the exact Markov chain of points, games and sets.
type Pair = [number, number];
export type TennisState = {
  sets: Pair[]; // games in each set so far; the last is the current one
  setsWon: Pair;
  points: Pair; // in the current game or tiebreak
  tiebreak: boolean;
  server: 0 | 1;
  tiebreakFirstServer: 0 | 1;
  serveWin: Pair; // P(point won) when serving
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

function setProbability(s: TennisState, games: Pair, server: 0 | 1): number {
  return remembered(`set:${s.serveWin[0]}:${s.serveWin[1]}`, `${games[0]}:${games[1]}:${server}`, () =>
    setFrom(s, games, server),
  );
}

function setFrom(s: TennisState, games: Pair, server: 0 | 1): number {
  const [a, b] = games;
  if ((a >= 6 && a - b >= 2) || a === 7) return 1;
  if ((b >= 6 && b - a >= 2) || b === 7) return 0;
  if (a === 6 && b === 6) return tiebreakProbability(pointShare(s));
  const hold = gameProbability(s.serveWin[server]);
  const firstWins = server === 0 ? hold : 1 - hold;
  const next = (1 - server) as 0 | 1;
  return firstWins * setProbability(s, [a + 1, b], next) + (1 - firstWins) * setProbability(s, [a, b + 1], next);
}

const pointShare = (s: TennisState) => (s.serveWin[0] + 1 - s.serveWin[1]) / 2;

/** P(the home player wins the set being played), from the current point. */
function currentSetProbability(s: TennisState): number {
  const games = s.sets.at(-1)!;
  if (s.tiebreak) return tiebreakProbability(pointShare(s), s.points[0], s.points[1]);
  const serverGame = gameProbability(s.serveWin[s.server], s.points[s.server], s.points[1 - s.server]);
  const homeGame = s.server === 0 ? serverGame : 1 - serverGame;
  const next = (1 - s.server) as 0 | 1;
  return (
    homeGame * setProbability(s, [games[0] + 1, games[1]], next) +
    (1 - homeGame) * setProbability(s, [games[0], games[1] + 1], next)
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
    if (s.setsWon[side] === 2) {
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

export const tennis: SportModel<TennisState> = {
  sport: "tennis",
  typicalDuration: 100 * 60,
  create(rng, edge) {
    const skill = 0.05 * Math.tanh(edge);
    return {
      sets: [[0, 0]],
      setsWon: [0, 0],
      points: [0, 0],
      tiebreak: false,
      server: rng.chance(0.5) ? 0 : 1,
      tiebreakFirstServer: 0,
      serveWin: [0.62 + skill, 0.62 - skill],
      pointLeft: rng.int(25, 50),
      breakLeft: 0,
      over: false,
      aces: [0, 0],
      doubleFaults: [0, 0],
      lastSetWinner: null,
    };
  },
  step(s, rng) {
    if (s.over) return false;
    if (s.breakLeft > 0) {
      s.breakLeft--;
      return false;
    }
    if (--s.pointLeft > 0) return false;
    s.pointLeft = rng.int(25, 50);
    const server = s.server;
    const serverWins = rng.chance(s.serveWin[server]);
    if (serverWins && rng.chance(0.1)) s.aces[server]++;
    if (!serverWins && rng.chance(0.1)) s.doubleFaults[server]++;
    winPoint(s, serverWins ? server : ((1 - server) as 0 | 1));
    // A game won (the points start again) is the tennis "score" that markets react to.
    return s.points[0] + s.points[1] === 0;
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
    const neutralSet = (setProbability(s, [0, 0], 0) + setProbability(s, [0, 0], 1)) / 2;
    const current = s.over ? Number(s.lastSetWinner === 0) : currentSetProbability(s);
    const won = s.setsWon;
    const match = s.over ? Number(s.setsWon[0] === 2) : raceProbability(won, 2, current, neutralSet);
    const threeSets = s.over ? Number(s.sets.length === 3) : goesTheDistance(won, 2, current, neutralSet);
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
    // Three sets are certain once the third starts, two once the match ends in two.
    const setsPlayed = s.sets.length;
    return [
      twoWay("match_winner", "match_winner", "Match winner", sides, match, s.over ? won[0] - won[1] : undefined),
      ...setMarkets,
      overUnder("total", "Total sets", 2.5, threeSets, setsPlayed === 3 || s.over ? setsPlayed : undefined),
    ];
  },
};
