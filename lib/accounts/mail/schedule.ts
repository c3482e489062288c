/** How long after its creation a message is still tried. */
export const MAIL_RETRY_WINDOW_MS = 86_400_000;
/** The longest wait between two attempts. */
export const MAIL_MAX_BACKOFF_MS = 15 * 60_000;

/**
 * When to try a message again after its `attempts`-th attempt failed at `at` (epoch ms): `baseMs`,
 * doubling with each attempt up to 15 minutes, while within a day of its creation; null after.
 */
export function nextMailAttemptAt(attempts: number, createdAt: number, at: number, baseMs: number): number | null {
  const next = at + Math.min(MAIL_MAX_BACKOFF_MS, baseMs * 2 ** Math.max(0, attempts - 1));
  return next <= createdAt + MAIL_RETRY_WINDOW_MS ? next : null;
}
