// The benchmarks' summaries of a sample, one definition each, so every script's p95 or median means
// the same: the value at rank floor(q × n) of the sorted sample (the upper one of two in the middle).

/** The value at quantile `q` (0 to 1) of values already sorted ascending; NaN for none. */
export function quantileOfSorted(sorted: ArrayLike<number>, q: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** The values sorted ascending, in a copy. */
function sortedCopy(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** The `p`th percentile (0 to 100) of values in any order; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  return quantileOfSorted(sortedCopy(values), p / 100);
}

/** The median of values in any order; NaN for none. */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** "min / median / max" of some figures, formatted by `format`; "n/a" for none. */
export function spread(values: readonly number[], format: (n: number) => string): string {
  const sorted = sortedCopy(values);
  if (sorted.length === 0) return "n/a";
  return [sorted[0]!, quantileOfSorted(sorted, 0.5), sorted.at(-1)!].map(format).join(" / ");
}
