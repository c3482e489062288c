import { probabilityAbove } from "../odds.ts";
import { handicap, overUnder, twoWay, type MarketQuote, type Sides } from "../model.ts";

/**
 * Markets of the high-scoring sports (basketball, American football, baseball) from a normal
 * approximation of the points still to come: winner, the pre-game handicap line and total line.
 */
export function pointsQuotes(input: {
  sides: Sides;
  score: [number, number];
  /** Points each side is still expected to score. */
  expected: [number, number];
  sdMargin: number;
  sdTotal: number;
  handicapLine: number;
  totalLine: number;
  totalName: string;
  /** P(home wins) should the scores end level (overtime, extra innings). */
  tieHome: number;
  over: boolean;
  /** How far the median of the points to come lies below their mean (a skewed count, as runs are). */
  totalSkew?: number;
}): MarketQuote[] {
  const { sides, score, expected, handicapLine, totalLine } = input;
  const margin = score[0] - score[1];
  const expectedMargin = expected[0] - expected[1];
  const sdMargin = input.over ? 0 : input.sdMargin;
  const sdTotal = input.over ? 0 : input.sdTotal;
  const pWinOutright = probabilityAbove(margin, expectedMargin, sdMargin, 0.5);
  const pLoseOutright = 1 - probabilityAbove(margin, expectedMargin, sdMargin, -0.5);
  const pLevel = Math.max(0, 1 - pWinOutright - pLoseOutright);
  const home = input.over ? (margin > 0 ? 1 : margin < 0 ? 0 : 0.5) : pWinOutright + pLevel * input.tieHome;
  // Only the final whistle (or a total already passed) makes an outcome certain; a normal tail
  // that rounds to 1 near the end is not a result.
  const open = (p: number) => (input.over ? p : Math.min(1 - 1e-6, Math.max(1e-6, p)));
  const total = score[0] + score[1];
  const passed = total > totalLine;
  // The result and the handicap are decided at the end only; a total once passed. A game that ends
  // level (American football after a scoreless overtime) voids the two-way winner market.
  const decidedMargin = input.over ? margin : undefined;
  return [
    twoWay("match_winner", "match_winner", "Winner", sides, open(home), decidedMargin),
    handicap(
      "handicap",
      "Handicap",
      sides,
      handicapLine,
      open(probabilityAbove(margin, expectedMargin, sdMargin, -handicapLine)),
      decidedMargin,
    ),
    overUnder(
      "total",
      input.totalName,
      totalLine,
      passed
        ? 1
        : open(probabilityAbove(total, expected[0] + expected[1] - (input.totalSkew ?? 0), sdTotal, totalLine)),
      passed || input.over ? total : undefined,
    ),
  ];
}

/** A pre-game line that never lands on a whole number, so handicap and total markets cannot push. */
export function halfLine(value: number): number {
  return Math.floor(value) + 0.5;
}
