// A decimal price as each market shows prices: decimal (2.50), fractional (6/4) or American (+150).

export const ODDS_FORMATS = ["decimal", "fractional", "american"] as const;
export type OddsFormat = (typeof ODDS_FORMATS)[number];

export const ODDS_FORMAT_LABELS: Record<OddsFormat, string> = {
  decimal: "Decimal",
  fractional: "Fractional",
  american: "American",
};

// The denominators of the fractions bookmakers quote, simplest first.
const DENOMINATORS = [1, 2, 3, 4, 5, 6, 8, 10, 11, 13, 20, 25, 40, 50, 100, 200, 500, 1000];
const fractions = new Map<number, string>();

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** The simplest common fraction within 1 % of the winnings per unit staked (decimal − 1). */
export function fractional(decimal: number): string {
  const known = fractions.get(decimal);
  if (known) return known;
  const target = decimal - 1;
  let best: [number, number] = [1, 1];
  let bestError = Infinity;
  for (const d of DENOMINATORS) {
    const n = Math.max(1, Math.round(target * d));
    const error = Math.abs(n / d - target) / target;
    if (error < bestError) {
      best = [n, d];
      bestError = error;
    }
    if (error < 0.01) break;
  }
  const divisor = gcd(best[0], best[1]);
  const text = `${best[0] / divisor}/${best[1] / divisor}`;
  fractions.set(decimal, text);
  return text;
}

/** American odds: +profit on 100 staked for prices of 2.0 and above, −stake to win 100 below. */
export function american(decimal: number): string {
  if (decimal >= 2) return `+${Math.round((decimal - 1) * 100)}`;
  return `−${Math.round(100 / (decimal - 1))}`;
}

export function formatPrice(decimal: number, format: OddsFormat): string {
  if (format === "fractional") return fractional(decimal);
  if (format === "american") return american(decimal);
  // Under 1.01 prices step by 0.001 (1.001, 1.005): two decimals would show them all as 1.00.
  return decimal < 1.01 ? decimal.toFixed(3) : decimal.toFixed(2);
}
