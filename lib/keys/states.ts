// The states a key is shown in, in the console and by the CLI. No server-only imports: the
// console's key list renders them in the browser.

/** Within a week of its expiry an active key is "expiring": a rolled key's overlap, or an expiry coming up. */
export const EXPIRING_WITHIN_MS = 7 * 86_400_000;

export type ShownKeyState = "active" | "expiring" | "expired" | "revoked";

/** A key's state at `at` (ms): revoked, expired, expiring (within a week of its expiry) or active. */
export function shownKeyState(
  key: { status: "active" | "revoked" | "expired"; expiresAt: string | Date | null },
  at: number,
): ShownKeyState {
  if (key.status !== "active") return key.status;
  if (key.expiresAt === null) return "active";
  return new Date(key.expiresAt).getTime() - at <= EXPIRING_WITHIN_MS ? "expiring" : "active";
}
