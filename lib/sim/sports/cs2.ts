import { goesTheDistance, overUnder, raceProbability, stat, twoWay, type SportModel } from "../model.ts";

// Best of three maps; a map is won by the first to 13 rounds, from 12-12 in overtimes of six
// rounds (first to 16, then 19, ...). Rounds last up to 1:55 after a 15-second freeze time.
const ROUND = 115;
const FREEZE = 15;
const MAP_BREAK = 5 * 60;

type Pair = [number, number];
export type Cs2State = {
  maps: Pair[]; // rounds in each map so far; the last is the current one
  roundWinners: (0 | 1)[][]; // the winner of each round of each map, in order
  mapsWon: Pair;
  roundHome: number; // P(home wins a round)
  freezeLeft: number;
  roundElapsed: number;
  roundLength: number;
  breakLeft: number;
  over: boolean;
  kills: Pair;
  lastRoundWinner: 0 | 1 | null;
  lastMapWinner: 0 | 1 | null;
};

function target(a: number, b: number): number {
  const low = Math.min(a, b);
  return low < 12 ? 13 : 16 + 3 * Math.floor((low - 12) / 3);
}

function mapWinner(a: number, b: number): 0 | 1 | null {
  const t = target(a, b);
  if (a >= t) return 0;
  if (b >= t) return 1;
  return null;
}

// One memo per round probability (fixed for an event) serves every refresh of its prices.
const memos = new Map<number, Map<string, number>>();

/** P(home wins the map) from rounds (a, b). */
function mapProbability(r: number, a: number, b: number): number {
  let memo = memos.get(r);
  if (!memo) {
    if (memos.size > 1_000) memos.clear();
    memo = new Map();
    memos.set(r, memo);
  }
  const winner = mapWinner(a, b);
  if (winner !== null) return winner === 0 ? 1 : 0;
  if (a + b > 90) return r; // overtime without end: the round edge is all that is left
  const key = `${a}:${b}`;
  const known = memo.get(key);
  if (known !== undefined) return known;
  const value = r * mapProbability(r, a + 1, b) + (1 - r) * mapProbability(r, a, b + 1);
  memo.set(key, value);
  return value;
}

/** The round timer as players see it: `1:24`. */
function roundTimer(secondsLeft: number): string {
  const s = Math.max(0, Math.ceil(secondsLeft));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

export const cs2: SportModel<Cs2State> = {
  sport: "cs2",
  typicalDuration: 2.5 * 22 * (ROUND * 0.7 + FREEZE) + MAP_BREAK,
  create(rng, edge) {
    return {
      maps: [[0, 0]],
      roundWinners: [[]],
      mapsWon: [0, 0],
      roundHome: 0.5 + 0.04 * Math.tanh(edge),
      freezeLeft: FREEZE,
      roundElapsed: 0,
      roundLength: rng.int(40, ROUND),
      breakLeft: 0,
      over: false,
      kills: [0, 0],
      lastRoundWinner: null,
      lastMapWinner: null,
    };
  },
  step(s, rng) {
    if (s.over) return false;
    if (s.breakLeft > 0) {
      s.breakLeft--;
      return false;
    }
    if (s.freezeLeft > 0) {
      s.freezeLeft--;
      return false;
    }
    if (++s.roundElapsed < s.roundLength) return false;
    const side = rng.chance(s.roundHome) ? 0 : 1;
    const rounds = s.maps.at(-1)!;
    rounds[side]++;
    s.roundWinners.at(-1)!.push(side);
    s.kills[side] += rng.int(3, 5);
    s.kills[side === 0 ? 1 : 0] += rng.int(0, 4);
    s.lastRoundWinner = side;
    s.roundElapsed = 0;
    s.freezeLeft = FREEZE;
    s.roundLength = rng.int(40, ROUND);
    const winner = mapWinner(rounds[0], rounds[1]);
    if (winner !== null) {
      s.mapsWon[winner]++;
      s.lastMapWinner = winner;
      if (s.mapsWon[winner] === 2) s.over = true;
      else {
        s.maps.push([0, 0]);
        s.roundWinners.push([]);
        s.breakLeft = MAP_BREAK;
      }
    }
    return true;
  },
  isOver: (s) => s.over,
  inBreak: (s) => s.breakLeft > 0,
  view(s) {
    const playing = !s.over && s.breakLeft === 0;
    return {
      score: { home: s.mapsWon[0], away: s.mapsWon[1] },
      clock: playing ? roundTimer(s.freezeLeft > 0 ? ROUND : ROUND - s.roundElapsed) : "",
      period: `Map ${s.maps.length}`,
      stats: [
        ...s.maps.map((rounds, i) => stat(`Map ${i + 1} rounds`, rounds[0], rounds[1])),
        stat("Kills", ...s.kills),
      ],
    };
  },
  quotes(s, sides) {
    const rounds = s.maps.at(-1)!;
    const neutralMap = mapProbability(s.roundHome, 0, 0);
    const current = s.over ? Number(s.lastMapWinner === 0) : mapProbability(s.roundHome, rounds[0], rounds[1]);
    const match = s.over ? Number(s.mapsWon[0] === 2) : raceProbability(s.mapsWon, 2, current, neutralMap);
    const threeMaps = s.over ? Number(s.maps.length === 3) : goesTheDistance(s.mapsWon, 2, current, neutralMap);
    // A market per map and per round: each settles when its map or round is won, the next opens.
    const mapMarkets = s.maps.map((score, i) => {
      const winner = mapWinner(score[0], score[1]);
      return twoWay(
        `map_winner:${i + 1}`,
        "map_winner",
        `Map ${i + 1} winner`,
        sides,
        winner === null ? current : Number(winner === 0),
        winner === null ? undefined : winner === 0 ? 1 : -1,
      );
    });
    const roundMarket = (map: number, round: number, pHome: number, winner?: 0 | 1) =>
      twoWay(
        `next_round:${map}:${round}`,
        "next_round",
        `Round ${round} winner (map ${map})`,
        sides,
        pHome,
        winner === undefined ? undefined : winner === 0 ? 1 : -1,
      );
    const roundMarkets = s.roundWinners.flatMap((winners, m) =>
      winners.map((winner, r) => roundMarket(m + 1, r + 1, Number(winner === 0), winner)),
    );
    if (!s.over) roundMarkets.push(roundMarket(s.maps.length, rounds[0] + rounds[1] + 1, s.roundHome));
    const mapsPlayed = s.maps.length;
    return [
      twoWay(
        "match_winner",
        "match_winner",
        "Match winner",
        sides,
        match,
        s.over ? s.mapsWon[0] - s.mapsWon[1] : undefined,
      ),
      ...mapMarkets,
      ...roundMarkets,
      overUnder("total", "Total maps", 2.5, threeMaps, mapsPlayed === 3 || s.over ? mapsPlayed : undefined),
    ];
  },
};
