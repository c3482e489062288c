// The probability maths behind the simulator's prices: fair probabilities from a sport's model,
// then a bookmaker margin on top.

/** Decimal prices with a margin: the sum of 1/price (the overround) is about 1 + margin. */
export function pricesWithMargin(probabilities: number[], margin: number): number[] {
  // A price must stay above 1 with the margin applied, so no outcome is quoted as near-certain:
  // the fair probabilities are held within [floor, ceiling] first, the way books cap their prices.
  const ceiling = 0.9;
  const floor = 0.012;
  let p = probabilities.map((x) => Math.min(ceiling, Math.max(floor, Number.isFinite(x) ? x : 0)));
  // Give what the limits took or added to the outcomes that can still move, until they sum to 1.
  for (let round = 0; round < 8; round++) {
    const gap = 1 - p.reduce((sum, x) => sum + x, 0);
    if (Math.abs(gap) < 1e-12) break;
    const movable = p.map((x, i) => ((gap > 0 ? x < ceiling : x > floor) ? i : -1)).filter((i) => i >= 0);
    const share = movable.reduce((sum, i) => sum + p[i]!, 0);
    p = p.map((x, i) =>
      movable.includes(i)
        ? Math.min(ceiling, Math.max(floor, x + gap * (share > 0 ? x / share : 1 / movable.length)))
        : x,
    );
  }
  return p.map((x) => roundPrice(1 / (x * (1 + margin))));
}

/** Two decimals under 10, one above, as boards show them; never 1.00 or below. */
export function roundPrice(price: number): number {
  const rounded = price < 10 ? Math.round(price * 100) / 100 : Math.round(price * 10) / 10;
  return Math.max(1.01, Math.min(rounded, 500));
}

export function overround(prices: number[]): number {
  return prices.reduce((s, price) => s + 1 / price, 0);
}

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
