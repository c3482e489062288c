/** The thresholds of an organisation that has not chosen its own: percent of each key's monthly quota. */
export const DEFAULT_THRESHOLDS: readonly number[] = [80, 95, 100];

/** The count at which a key reaches `percent` of its quota: at least one request. */
export function thresholdCount(quota: number, percent: number): number {
  return Math.max(1, Math.ceil((quota * percent) / 100));
}

/**
 * What a count of `used` of `quota` means for the thresholds (ascending percentages): those it has
 * reached that `raised` does not hold yet, and the count at which the next is reached (Infinity
 * when none is left). Reached is reached however it got there: a count heard from another
 * instance that jumped past a threshold still raises it here.
 */
export function crossings(
  used: number,
  quota: number,
  thresholds: readonly number[],
  raised: ReadonlySet<number>,
): { reached: number[]; nextAt: number } {
  const reached: number[] = [];
  let nextAt = Infinity;
  for (const percent of thresholds) {
    const count = thresholdCount(quota, percent);
    if (used >= count) {
      if (!raised.has(percent)) reached.push(percent);
    } else {
      nextAt = Math.min(nextAt, count);
    }
  }
  return { reached, nextAt };
}

/** Thresholds as an organisation sets them: whole percentages 1 to 100, without repeats, ascending. */
export function normaliseThresholds(values: readonly number[]): number[] {
  const valid = values.every((v) => Number.isInteger(v) && v >= 1 && v <= 100);
  if (!valid || values.length === 0 || values.length > 10) {
    throw new RangeError("Thresholds are 1 to 10 whole percentages from 1 to 100");
  }
  return [...new Set(values)].sort((a, b) => a - b);
}
