import "#server-only";
import type { Database } from "../../db/index.ts";
import { DomainError } from "../../errors.ts";
import { readSession, secondFactorRequired } from "./gate.ts";
import { hasSecondFactor } from "./store.ts";

// Step-up: a key or member change asks for the second factor again when the session's last one is
// older than STEP_UP_SECONDS, so a session left open or stolen cannot make them alone. A member
// with no second factor, whose organisation does not require one, is not asked: there is nothing
// to ask for, and their password was checked at sign-in (docs/security.md).

export const STEP_UP_SECONDS = 10 * 60;

export const STEP_UP_MESSAGE =
  "Confirm it is you: use your passkey, or enter a code from your authenticator app or a recovery code, then try again.";

/** Whether the session passed a second factor within the last STEP_UP_SECONDS. Pure. */
export function recentEnough(secondFactorAt: Date | null, at: Date): boolean {
  return secondFactorAt !== null && at.getTime() - secondFactorAt.getTime() <= STEP_UP_SECONDS * 1000;
}

/** Refuses with `step_up_required` unless the session may make a key or member change now. */
export async function requireStepUp(
  db: Database,
  userId: string,
  sessionId: string | null | undefined,
  at: Date,
): Promise<void> {
  if (!(await hasSecondFactor(db, userId))) {
    if (!(await secondFactorRequired(db, userId))) return;
    throw new DomainError(
      "step_up_required",
      "Your organisation requires a second factor: add one on the Security page, then try again.",
    );
  }
  const session = sessionId ? await readSession(db, sessionId, userId, at) : null;
  if (session && recentEnough(session.secondFactorAt, at)) return;
  throw new DomainError("step_up_required", STEP_UP_MESSAGE);
}
