/**
 * When a key's monthly quota runs out at the pace of the month so far: `used` requests between
 * `monthStart` and `at` (epoch ms), continued at the same rate. Null when that moment is not before
 * `monthEnd` (the count starts again first) or nothing was used yet; `at` itself once the quota is used up.
 */
export function projectedExhaustion(
  used: number,
  quota: number,
  times: { monthStart: number; at: number; monthEnd: number },
): number | null {
  if (used >= quota) return times.at;
  const elapsed = times.at - times.monthStart;
  if (used <= 0 || elapsed <= 0) return null;
  const exhaustion = times.monthStart + Math.ceil((elapsed * quota) / used);
  return exhaustion < times.monthEnd ? exhaustion : null;
}
