import type { Sport } from "../db/schema/index.ts";
import { LONGEST, pricesWithMargin, SHORTEST } from "./ladder.ts";
import type { MarketQuote } from "./model.ts";
import { seededRandom } from "./random.ts";
import { resultsAtEnd, type Result } from "./settlement.ts";
import { MODELS } from "./sports/index.ts";

// The sport models played offline, game after game with no server, and measured against what
// real leagues show: the figures behind `npm run bench:realism` and the calibration test.

/** One opening market: its fair probabilities, its prices at the margin, and how it settled. */
type Opening = { probabilities: number[]; prices: number[]; results: Result[] };
export type GameRecord = {
  home: number;
  away: number;
  /** Overtime, extra innings: play past regulation. */
  extra: boolean;
  /** Simulated seconds from kickoff to the end, and those of them in a break between maps (CS2). */
  seconds: number;
  mapBreakSeconds: number;
  /**
   * Live prices looked at every PRICE_SAMPLE simulated seconds: open markets, and those whose
   * favourite stood at the ladder's shortest price; result markets, and those with an outcome at
   * its longest.
   */
  ends: { markets: number; atShortest: number; results: number; atLongest: number };
  winner: Opening;
  total: Opening;
};

// The extra-time test per sport, looked at after every step (hockey's state forgets it at the end).
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each model has its own state type
const EXTRA: Record<Sport, (state: any) => boolean> = {
  soccer: () => false,
  basketball: (s: { period: number }) => s.period > 4,
  "american-football": (s: { period: number }) => s.period > 4,
  "ice-hockey": (s: { phase: string }) => s.phase === "OT" || s.phase === "SO",
  baseball: (s: { inning: number }) => s.inning > 9,
  tennis: () => false,
  cs2: () => false,
};
const SIDES = { home: "Home", away: "Away" };
const marginOf = (quote: MarketQuote) => (quote.outcomes.length > 2 ? 0.07 : 0.05);
const PRICE_SAMPLE = 30;

/**
 * `games` games of a sport, each from its own seed, with the same spread of edges as the
 * simulator's; `competition` for a sport whose format depends on it (tennis's Grand Slams).
 */
export function playGames(sport: Sport, games: number, seed = "realism", competition?: string): GameRecord[] {
  const model = MODELS[sport];
  const records: GameRecord[] = [];
  for (let i = 0; i < games; i++) {
    const edge = seededRandom(`${seed}:${sport}:${i}:fate`).normal() * 0.6;
    const rng = seededRandom(`${seed}:${sport}:${i}:play`);
    const state = model.create(rng, edge, competition);
    const opening = model.quotes(state, SIDES);
    let extra = false;
    let seconds = 0;
    let mapBreakSeconds = 0;
    const ends = { markets: 0, atShortest: 0, results: 0, atLongest: 0 };
    for (; !model.isOver(state); seconds++) {
      if (seconds % PRICE_SAMPLE === 0)
        for (const quote of model.quotes(state, SIDES)) {
          // A market the game has decided is settled, no longer quoted.
          if (quote.outcomes.some((o) => o.result)) continue;
          const prices = pricesWithMargin(
            quote.outcomes.map((o) => o.probability),
            marginOf(quote),
          );
          ends.markets++;
          if (Math.min(...prices) <= SHORTEST) ends.atShortest++;
          if (quote.type !== "match_winner") continue;
          ends.results++;
          if (Math.max(...prices) >= LONGEST) ends.atLongest++;
        }
      if (seconds > 200_000) throw new Error(`${sport} game ${i} did not end`);
      if (sport === "cs2" && model.inBreak(state)) mapBreakSeconds++;
      model.step(state, rng);
      if (!extra && EXTRA[sport](state)) extra = true;
    }
    const final = model.quotes(state, SIDES);
    const settle = (key: string): Opening => {
      const open = opening.find((q) => q.key === key)!;
      const probabilities = open.outcomes.map((o) => o.probability);
      return {
        probabilities,
        prices: pricesWithMargin(probabilities, marginOf(open)),
        results: resultsAtEnd(final.find((q) => q.key === key)!),
      };
    };
    const score = model.view(state).score;
    records.push({
      home: score.home,
      away: score.away,
      extra,
      seconds,
      mapBreakSeconds,
      ends,
      winner: settle("match_winner"),
      total: settle("total"),
    });
  }
  return records;
}

/** A figure measured against its reference, PASS when within the tolerance. */
export type Figure = { name: string; measured: number; reference: number; tolerance: number; source: string };
export const passes = (f: Figure) => Math.abs(f.measured - f.reference) <= f.tolerance;

const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / Math.max(1, values.length);
const share = (records: GameRecord[], test: (r: GameRecord) => boolean) =>
  (100 * records.filter(test).length) / Math.max(1, records.length);
/** The mean return, in %, of a unit stake on outcome `i` of every opening market. */
const returnOf = (openings: Opening[], i: number) =>
  100 * mean(openings.map((o) => (o.results[i] === "won" ? o.prices[i]! - 1 : o.results[i] === "void" ? 0 : -1)));

type Reference = {
  source: string;
  scoring: [label: string, value: number, tolerance: number];
  home?: [value: number, tolerance: number];
  draw?: [value: number, tolerance: number];
  extra?: [label: string, value: number, tolerance: number];
  /** Minutes from kickoff to the end (a map's, in CS2), with its own source. */
  duration: [minutes: number, tolerance: number, source: string];
};

/** What the leagues show, by source; the tolerances allow for a few thousand games' noise. */
export const REFERENCES: Record<Sport, Reference> = {
  soccer: {
    source: "top European leagues, seasons 2015–16 to 2023–24",
    scoring: ["goals per match", 2.75, 0.15],
    home: [45, 3],
    draw: [25, 3],
    duration: [112, 6, "top European leagues, 90 minutes with stoppages and half-time"],
  },
  basketball: {
    source: "NBA regular seasons 2021–22 to 2023–24",
    scoring: ["points per game", 227, 5],
    home: [56, 3],
    extra: ["overtime %", 6, 2.5],
    duration: [135, 8, "NBA broadcast lengths, recent seasons"],
  },
  "american-football": {
    source: "NFL regular seasons 2015–2024",
    scoring: ["points per game", 45.5, 1.5],
    home: [55, 3],
    draw: [0.3, 0.4],
    extra: ["overtime %", 6, 2.5],
    duration: [190, 10, "NFL game lengths, recent seasons"],
  },
  "ice-hockey": {
    source: "NHL regular seasons 2015–16 to 2023–24",
    scoring: ["goals per game (shootout winner counted)", 6.0, 0.3],
    home: [54, 3],
    extra: ["overtime %", 23, 3],
    duration: [140, 8, "NHL game lengths, recent seasons"],
  },
  baseball: {
    source: "MLB regular seasons 2015–2024",
    scoring: ["runs per game", 8.9, 0.6],
    home: [53.5, 3],
    extra: ["extra innings %", 8.5, 3],
    duration: [160, 8, "MLB game lengths since the pitch clock (2023–2024; about 3 h 05 before it)"],
  },
  tennis: {
    source: "ATP tour, best of three sets",
    scoring: ["sets per match", 2.36, 0.08],
    duration: [100, 8, "ATP tour match lengths, best of three sets"],
  },
  cs2: {
    source: "professional best-of-three series",
    scoring: ["maps per series", 2.4, 0.15],
    duration: [40, 5, "professional CS2 map lengths (one map, breaks between maps left out)"],
  },
};

/** The simulator's men's Grand Slam, whose matches are best of five sets, and what those show. */
export const GRAND_SLAM = "Crownfield Championships (Grand Slam, men's singles)";
export const BEST_OF_FIVE: Reference = {
  source: "men's Grand Slam singles, recent seasons (about 45 % in straight sets, 20 % to a fifth)",
  scoring: ["sets per match", 3.75, 0.15],
  duration: [165, 15, "men's Grand Slam singles match lengths, recent seasons"],
};

/** The exactly-three share of NFL margins (the field goal's mark on the sport). */
const NFL_BY_THREE: [number, number] = [15, 2.5];

/** Every figure of a sport's games against its reference; market figures against what was priced. */
export function figuresOf(sport: Sport, records: GameRecord[], ref = REFERENCES[sport]): Figure[] {
  const out: Figure[] = [];
  const add = (name: string, measured: number, reference: number, tolerance: number, source = ref.source) =>
    out.push({ name, measured, reference, tolerance, source });
  add(ref.scoring[0], mean(records.map((r) => r.home + r.away)), ref.scoring[1], ref.scoring[2]);
  if (ref.home)
    add(
      "home win %",
      share(records, (r) => r.home > r.away),
      ...ref.home,
    );
  if (ref.draw)
    add(
      sport === "soccer" ? "draw %" : "tie %",
      share(records, (r) => r.home === r.away),
      ...ref.draw,
    );
  if (ref.extra)
    add(
      ref.extra[0],
      share(records, (r) => r.extra),
      ref.extra[1],
      ref.extra[2],
    );
  const [minutes, slack, durationSource] = ref.duration;
  const duration =
    sport === "cs2"
      ? mean(records.map((r) => (r.seconds - r.mapBreakSeconds) / Math.max(1, r.home + r.away))) / 60
      : mean(records.map((r) => r.seconds)) / 60;
  add(sport === "cs2" ? "minutes a map" : "minutes from kickoff to the end", duration, minutes, slack, durationSource);
  // The issue found favourites at the old price cap for 19 to 33 % of live time; at the ladder's
  // ends a price should stand only once a game is beyond doubt.
  const sum = (f: (r: GameRecord) => number) => records.reduce((s, r) => s + f(r), 0);
  const ends = "at most a few % (issue 30 found 19 to 33 % at the old caps)";
  add(
    "live: a favourite at 1.001, % of market time",
    (100 * sum((r) => r.ends.atShortest)) /
      Math.max(
        1,
        sum((r) => r.ends.markets),
      ),
    0,
    10,
    ends,
  );
  add(
    "live: result outsider at 1000, % of time",
    (100 * sum((r) => r.ends.atLongest)) /
      Math.max(
        1,
        sum((r) => r.ends.results),
      ),
    0,
    10,
    ends,
  );
  if (sport === "american-football")
    add(
      "won by exactly 3 %",
      share(records, (r) => Math.abs(r.home - r.away) === 3),
      ...NFL_BY_THREE,
    );
  const priced = "as priced at the opening line";
  const winners = records.map((r) => r.winner);
  const favourite = (o: Opening) => o.probabilities.indexOf(Math.max(...o.probabilities));
  add(
    "favourite wins %",
    share(records, (r) => r.winner.results[favourite(r.winner)] === "won"),
    100 * mean(winners.map((o) => o.probabilities[favourite(o)]!)),
    3,
    priced,
  );
  const totals = records.map((r) => r.total);
  add(
    "opening total over %",
    share(records, (r) => r.total.results[0] === "won"),
    100 * mean(totals.map((o) => o.probabilities[0]!)),
    3,
    priced,
  );
  // A fair price returns minus the margin; the tolerance is the issue's ±5 points.
  const margin = (o: Opening[]) => -100 * (1 - 1 / mean(o.map((x) => x.prices.reduce((s, p) => s + 1 / p, 0))));
  const keys = winners[0]!.prices.length === 3 ? ["home", "draw", "away"] : ["home", "away"];
  keys.forEach((key, i) =>
    add(`return backing ${key} %`, returnOf(winners, i), margin(winners), 5, "minus the margin"),
  );
  add("return backing over %", returnOf(totals, 0), margin(totals), 5, "minus the margin");
  add("return backing under %", returnOf(totals, 1), margin(totals), 5, "minus the margin");
  return out;
}

/** Every outcome of the opening result markets by the decile of its priced chance: mean priced and share won, in %. */
export function calibrationByDecile(
  records: GameRecord[],
): { decile: number; priced: number; won: number; n: number }[] {
  const buckets = Array.from({ length: 10 }, () => ({ priced: 0, won: 0, n: 0 }));
  for (const { winner } of records)
    winner.probabilities.forEach((p, i) => {
      const bucket = buckets[Math.min(9, Math.floor(p * 10))]!;
      bucket.priced += p;
      bucket.won += winner.results[i] === "won" ? 1 : 0;
      bucket.n++;
    });
  return buckets.map((b, decile) => ({
    decile,
    priced: (100 * b.priced) / Math.max(1, b.n),
    won: (100 * b.won) / Math.max(1, b.n),
    n: b.n,
  }));
}
