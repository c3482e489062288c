import { goesTheDistance, overUnder, raceProbability, stat, twoWay, type SportModel } from "../model.ts";
import { NOTHING, SCORED } from "../suspensions.ts";

// Best of three maps; a map is won by the first to 13 rounds, from 12-12 in overtimes of six
// rounds (first to 16, then 19, ...). Rounds last 0:50 to 1:55 after a 15-second freeze time. Each
// round's chance comes from the sides' strength, the side each team plays (CT or T, swapped after
// 12 rounds and every 3 in overtime) and the economy the last round left; the prices, the next
// round's among them, come from the same chances (figures in docs/simulator.md).
const ROUND = 115;
/** The shortest round: a rush or an early pick. Rounds run from it to the full 1:55 (about 1:22 on average). */
const SHORTEST_ROUND = 50;
const FREEZE = 15;
const MAP_BREAK = 5 * 60;
/** Rounds won on the CT side above a half: most competitive maps lean CT. */
const CT_EDGE = 0.03;
/** The pistol round winner's chance in the round after it: rifles against the loser's pistols. */
const CONVERSION = 0.8;
/** The lift in a round for the winner of the round before: its money against a loser's. */
const ECONOMY = 0.06;

type Pair = [number, number];
export type Cs2State = {
  maps: Pair[]; // rounds in each map so far; the last is the current one
  roundWinners: (0 | 1)[][]; // the winner of each round of each map, in order
  ctFirst: boolean[]; // whether home started each map on the CT side
  mapsWon: Pair;
  roundHome: number; // P(home wins a round) between level sides and economies
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

/** Whether home plays CT after `played` rounds of a map: sides swap after 12, stay into overtime, then swap every 3. */
function homeOnCt(played: number, ctFirst: boolean): boolean {
  const half = played < 24 ? Math.floor(played / 12) : 1 + Math.floor((played - 24) / 3);
  return half % 2 === 0 ? ctFirst : !ctFirst;
}

/**
 * P(home wins the next round) from rounds (a, b) of a map, `last` the winner of its round before:
 * the side it plays, then the economy. The pistol rounds (the 1st and the 13th) start each half
 * level, the round after a pistol round goes to its winner's rifles, and in overtime, where both
 * teams get the same money, only the side counts.
 */
export function roundChance(r: number, ctFirst: boolean, a: number, b: number, last: 0 | 1 | null): number {
  const played = a + b;
  const side = r + (homeOnCt(played, ctFirst) ? CT_EDGE : -CT_EDGE);
  if (last === null || played === 0 || played === 12 || played >= 24) return side;
  const lift = played === 1 || played === 13 ? CONVERSION - 0.5 : ECONOMY;
  return last === 0 ? side + lift : side - lift;
}

// One memo per round probability and first side (fixed for a map) serves every refresh of its prices.
const memos = new Map<string, Map<string, number>>();

/** P(home wins the map) from rounds (a, b), `last` the winner of the last round played. */
function mapProbability(r: number, ctFirst: boolean, a: number, b: number, last: 0 | 1 | null): number {
  const memoKey = `${r}:${ctFirst}`;
  let memo = memos.get(memoKey);
  if (!memo) {
    if (memos.size > 1_000) memos.clear();
    memo = new Map();
    memos.set(memoKey, memo);
  }
  const winner = mapWinner(a, b);
  if (winner !== null) return winner === 0 ? 1 : 0;
  if (a + b > 90) return r; // overtime without end: the round edge is all that is left
  const key = `${a}:${b}:${last}`;
  const known = memo.get(key);
  if (known !== undefined) return known;
  const p = roundChance(r, ctFirst, a, b, last);
  const value = p * mapProbability(r, ctFirst, a + 1, b, 0) + (1 - p) * mapProbability(r, ctFirst, a, b + 1, 1);
  memo.set(key, value);
  return value;
}

/** The state of the map being played: its rounds, the side home started on, and the last round's winner. */
function currentMap(s: Cs2State): { rounds: Pair; ctFirst: boolean; last: 0 | 1 | null } {
  return { rounds: s.maps.at(-1)!, ctFirst: s.ctFirst.at(-1)!, last: s.roundWinners.at(-1)!.at(-1) ?? null };
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
      ctFirst: [rng.chance(0.5)],
      mapsWon: [0, 0],
      roundHome: 0.5 + 0.04 * Math.tanh(edge),
      freezeLeft: FREEZE,
      roundElapsed: 0,
      roundLength: rng.int(SHORTEST_ROUND, ROUND),
      breakLeft: 0,
      over: false,
      kills: [0, 0],
      lastRoundWinner: null,
      lastMapWinner: null,
    };
  },
  step(s, rng) {
    if (s.over) return NOTHING;
    if (s.breakLeft > 0) {
      s.breakLeft--;
      return NOTHING;
    }
    if (s.freezeLeft > 0) {
      s.freezeLeft--;
      return NOTHING;
    }
    if (++s.roundElapsed < s.roundLength) return NOTHING;
    const { rounds, ctFirst, last } = currentMap(s);
    const side = rng.chance(roundChance(s.roundHome, ctFirst, rounds[0], rounds[1], last)) ? 0 : 1;
    rounds[side]++;
    s.roundWinners.at(-1)!.push(side);
    s.kills[side] += rng.int(3, 5);
    s.kills[side === 0 ? 1 : 0] += rng.int(0, 4);
    s.lastRoundWinner = side;
    s.roundElapsed = 0;
    s.freezeLeft = FREEZE;
    s.roundLength = rng.int(SHORTEST_ROUND, ROUND);
    const winner = mapWinner(rounds[0], rounds[1]);
    if (winner !== null) {
      s.mapsWon[winner]++;
      s.lastMapWinner = winner;
      if (s.mapsWon[winner] === 2) s.over = true;
      else {
        s.maps.push([0, 0]);
        s.roundWinners.push([]);
        s.ctFirst.push(rng.chance(0.5));
        s.breakLeft = MAP_BREAK;
      }
    }
    // Every round's end is a score, suspended through the next freeze time (SUSPENSION.score.cs2).
    return SCORED;
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
    const { rounds, ctFirst, last } = currentMap(s);
    // A map to come may start on either side.
    const neutralMap =
      (mapProbability(s.roundHome, true, 0, 0, null) + mapProbability(s.roundHome, false, 0, 0, null)) / 2;
    const current = s.over ? Number(s.lastMapWinner === 0) : mapProbability(s.roundHome, ctFirst, ...rounds, last);
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
    const next = roundChance(s.roundHome, ctFirst, rounds[0], rounds[1], last);
    if (!s.over) roundMarkets.push(roundMarket(s.maps.length, rounds[0] + rounds[1] + 1, next));
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
