/** How long after the first attempt a message is still tried. */
export const RETRY_WINDOW_MS = 86_400_000;

/**
 * When to try a message again after its `attempts`-th attempt failed at `at` (epoch ms): `baseMs`,
 * doubling with each attempt, as long as that is within a day of the message's creation; null when
 * it is not (the message has failed).
 */
export function nextAttemptAt(attempts: number, createdAt: number, at: number, baseMs: number): number | null {
  const next = at + baseMs * 2 ** Math.max(0, attempts - 1);
  return next <= createdAt + RETRY_WINDOW_MS ? next : null;
}
