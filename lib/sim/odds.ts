// The probability maths behind the simulator's prices: fair probabilities from a sport's model
// (the margin and the price ladder on top of them are in ladder.ts).

/** P(X = k) for k = 0..max of a Poisson(λ) variable; the tail is folded into the last entry. */
export function poissonDistribution(lambda: number, max: number): number[] {
  const out: number[] = [];
  let term = Math.exp(-lambda);
  let total = 0;
  for (let k = 0; k < max; k++) {
    out.push(term);
    total += term;
    term = (term * lambda) / (k + 1);
  }
  out.push(Math.max(0, 1 - total));
  return out;
}

/** Distribution of the final score given the current one and the goals still expected. */
export function finalScoreGrid(score: [number, number], remaining: [number, number], max = 12): number[][] {
  const home = poissonDistribution(Math.max(remaining[0], 0), max);
  const away = poissonDistribution(Math.max(remaining[1], 0), max);
  // grid[h][a] = P(final home = score + h, final away = score + a)
  return home.map((ph) => away.map((pa) => ph * pa));
}

/** Standard normal cumulative distribution (Abramowitz–Stegun 7.1.26, error < 1.5e-7). */
export function normalCdf(x: number): number {
  const sign = x < 0 ? -1 : 1;
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * z);
  const y =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-z * z);
  return 0.5 * (1 + sign * y);
}

/** P(a + X > line) for X ~ Normal(mean, sd); with sd 0 the outcome is already known. */
export function probabilityAbove(current: number, mean: number, sd: number, line: number): number {
  if (sd <= 1e-9) return current + mean > line ? 1 : current + mean < line ? 0 : 0.5;
  return 1 - normalCdf((line - current - mean) / sd);
}
