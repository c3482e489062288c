// The prices the simulator quotes: probabilities with a bookmaker's margin, on a ladder of price
// steps as exchanges and books quote them, fine near evens and coarse far out, from 1.001 to 1000.

/** [from, to, step]: the prices from `from` (exclusive) to `to` (inclusive) go by `step`. */
const BANDS: readonly [number, number, number][] = [
  [1, 1.01, 0.001],
  [1.01, 2, 0.01],
  [2, 3, 0.02],
  [3, 4, 0.05],
  [4, 6, 0.1],
  [6, 10, 0.2],
  [10, 20, 0.5],
  [20, 30, 1],
  [30, 50, 2],
  [50, 100, 5],
  [100, 1000, 10],
];

/** Every price on the ladder, ascending; counted in thousandths so that no step drifts. */
export const LADDER: readonly number[] = BANDS.flatMap(([from, to, step]) => {
  const prices: number[] = [];
  const [first, last, by] = [from, to, step].map((x) => Math.round(x * 1000)) as [number, number, number];
  for (let milli = first + by; milli <= last; milli += by) prices.push(milli / 1000);
  return prices;
});

export const SHORTEST = LADDER[0]!;
export const LONGEST = LADDER.at(-1)!;

/**
 * The ladder price at or below `price`: a book rounds towards the shorter price, never offering
 * more than its margin allows. Below the ladder the shortest price, above it the longest.
 */
export function toLadder(price: number): number {
  if (!(price > SHORTEST)) return SHORTEST;
  if (price >= LONGEST) return LONGEST;
  // A hair of tolerance, so that 1.1 computed as 1.0999999999 stays 1.1.
  const target = price + 1e-9;
  let low = 0;
  let high = LADDER.length - 1;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (LADDER[mid]! <= target) low = mid;
    else high = mid - 1;
  }
  return LADDER[low]!;
}

/**
 * Prices for fair probabilities with a margin: the sum of 1/price is about 1 + margin when the
 * outcomes are close, and less when one is all but certain. Each outcome's share of the margin
 * grows with its uncertainty, p(1 - p), as books shade favourites least: so a decided game's
 * losing side is quoted in the hundreds, not at a few times its chance, and its favourite at
 * 1.001 rather than below 1. Rounded down to the ladder, which only adds to the margin.
 */
export function pricesWithMargin(probabilities: number[], margin: number): number[] {
  const clean = probabilities.map((p) => (Number.isFinite(p) ? Math.max(0, p) : 0));
  const sum = clean.reduce((s, p) => s + p, 0);
  const fair = sum > 0 ? clean.map((p) => p / sum) : clean.map(() => 1 / clean.length);
  // Scaled so that evenly matched outcomes carry the whole margin: Σ p(1 - p) is at most 1 - 1/n.
  const weight = margin / (1 - 1 / fair.length);
  return fair.map((p) => toLadder(1 / (p * (1 + weight * (1 - p)))));
}

export function overround(prices: number[]): number {
  return prices.reduce((s, price) => s + 1 / price, 0);
}
