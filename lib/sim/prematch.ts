import type { MarketType } from "../db/schema/index.ts";
import type { MarketQuote } from "./model.ts";
import { seededRandom, type Random } from "./random.ts";

// Pre-match prices. From its publication to kickoff an event carries the markets a book opens
// early (the result, the handicap, the main total, both teams to score), priced from the sport's
// model at kickoff as seen through the market's error: the opening prices miss the model's by an
// error in log-odds, the market drifts a little, the lineups' publication takes most of the error
// away in one small jump, and what is left fades out, so the last pre-match price is the model's
// own and the in-play markets (the same markets) open from it. All of it is a pure function of the
// event's seed and the simulated second, like the rest of its life.

/** The market types a book prices before kickoff; the rest open in play. */
export const PREMATCH_TYPES: readonly MarketType[] = ["match_winner", "handicap", "total", "both_teams_to_score"];

/** Simulated seconds between pre-match repricings. */
export const PREMATCH_REFRESH = 300;
/** The opening error's spread, in log-odds, of the side markets and of the total markets. */
const OPENING_SIDE = 0.2;
const OPENING_TOTAL = 0.12;
/** The market's drift per repricing, in log-odds. */
const DRIFT = 0.025;
/** The share of the opening error the lineups leave. */
const AFTER_LINEUPS = 0.35;
/** The error is gone this many seconds before kickoff. */
const SETTLED_BEFORE = 300;

export type MarketError = { side: number; total: number };

export class PrematchMarket {
  private readonly rng: Random;
  private readonly opening: MarketError;
  private readonly walk: MarketError[] = [{ side: 0, total: 0 }];

  constructor(seed: string) {
    this.rng = seededRandom(`${seed}:market`);
    this.opening = { side: OPENING_SIDE * this.rng.normal(), total: OPENING_TOTAL * this.rng.normal() };
  }

  /** The drift after `steps` repricings: drawn in order once, so it is the same whenever asked. */
  private drift(steps: number): MarketError {
    while (this.walk.length <= steps) {
      const last = this.walk.at(-1)!;
      this.walk.push({ side: last.side + DRIFT * this.rng.normal(), total: last.total + DRIFT * this.rng.normal() });
    }
    return this.walk[Math.max(0, steps)]!;
  }

  /**
   * The market's error at `steps` repricings after it opened, `untilKickoff` simulated seconds
   * before kickoff, the lineups published or not: the opening error (most of it gone with the
   * lineups) plus the drift, fading to nothing over the last hour.
   */
  error(steps: number, untilKickoff: number, lineups: boolean): MarketError {
    const drift = this.drift(steps);
    const news = lineups ? AFTER_LINEUPS : 1;
    const fade = lineups ? Math.min(1, Math.max(0, (untilKickoff - SETTLED_BEFORE) / (3600 - SETTLED_BEFORE))) : 1;
    return {
      side: (this.opening.side * news + drift.side) * fade,
      total: (this.opening.total * news + drift.total) * fade,
    };
  }
}

const LEAN: Record<string, keyof MarketError | null> = { home: "side", away: "side", over: "total", under: "total" };
const SIGN: Record<string, number> = { home: 1, away: -1, over: 1, under: -1, yes: 1, no: -1 };

/**
 * The pre-match quotes: the model's kickoff quotes of the pre-match types, each outcome's odds
 * leaning by the error (home and over up by half of it, away and under down by half; a draw or
 * "no goal" keeps its weight), so a two-way market moves by the whole error in log-odds.
 */
export function prematchQuotes(kickoff: MarketQuote[], error: MarketError): MarketQuote[] {
  return kickoff
    .filter((quote) => PREMATCH_TYPES.includes(quote.type))
    .map((quote) => {
      const lean = (key: string) => {
        const kind = quote.type === "both_teams_to_score" ? "total" : LEAN[key];
        return kind ? Math.exp(((SIGN[key] ?? 0) * error[kind]) / 2) : 1;
      };
      const weights = quote.outcomes.map((o) => o.probability * lean(o.key));
      const sum = weights.reduce((s, w) => s + w, 0);
      return {
        ...quote,
        outcomes: quote.outcomes.map((o, i) => ({ ...o, probability: sum > 0 ? weights[i]! / sum : o.probability })),
      };
    });
}
