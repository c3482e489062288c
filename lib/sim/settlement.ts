import type { OutcomeStatus } from "../db/schema/index.ts";

// How the simulator's markets settle. A market is settled by what happened in the game, never by
// a price: the sport's model gives each outcome a result once the game has decided it (a goal
// settles that goal's next-goal market, a total is over once passed, the match at the final
// whistle), and an event that ends without being played out voids whatever was still open.

export type Result = Extract<OutcomeStatus, "won" | "lost" | "void">;

/** What settling reads of a market: each outcome's result, once the game gave one. */
type Settling = { outcomes: readonly { result?: Result }[] };

/**
 * A two-sided line: the first side wins when `value` > 0 (a margin plus a handicap, a total minus
 * its line), the second when it is < 0. Exactly 0 is a tie or a push: in every sport the
 * simulator covers, a two-way market without a draw returns both stakes then (the draw-no-bet
 * rule), rather than losing both.
 */
export function lineResults(value: number): [Result, Result] {
  if (value > 0) return ["won", "lost"];
  if (value < 0) return ["lost", "won"];
  return ["void", "void"];
}

/** The results of a market the game has decided, or null while it is open. */
export function decidedResults(quote: Settling): Result[] | null {
  const results = quote.outcomes.map((o) => o.result);
  return results.every((r) => r !== undefined) ? (results as Result[]) : null;
}

/**
 * The results a market settles with when its event ends: those the game gave it, or, when the
 * event was abandoned or cancelled before deciding it, void for every outcome. At a played-out
 * end every market the model offers is decided; one that is not is voided rather than guessed.
 */
export function resultsAtEnd(quote: Settling): Result[] {
  return decidedResults(quote) ?? quote.outcomes.map(() => "void");
}
