import "#server-only";
import { and, count, eq, gt, isNull, lt } from "drizzle-orm";
import { z } from "zod";
import { recordAudit } from "../audit.ts";
import { clientNetwork } from "../../http/client-address.ts";
import { notifySessionsRevoked } from "../sessions.ts";
import type { Database } from "../../db/index.ts";
import { mailRequests, mailTokens, users } from "../../db/schema/index.ts";
import { DomainError } from "../../errors.ts";
import { email, newPasswordHash, password } from "../users.ts";
import { mailLinks } from "./links.ts";
import { passwordResetLink } from "./messages.ts";
import { passwordChangedNotice } from "./notices.ts";
import { queueMail } from "./outbox.ts";
import { issueToken, spendToken } from "./tokens.ts";

/**
 * Reset requests allowed within the window: per client network (refused, with a message), and per
 * recipient (the request is answered as usual but no more mail is sent: nobody can flood an inbox).
 */
export const RESET_LIMITS = { perNetwork: 10, perRecipient: 3, windowSeconds: 60 * 60 } as const;

/** What the forgotten-password form answers, for a known address and an unknown one alike. */
export const RESET_ANSWER =
  "Check your inbox: if an account uses this address, we sent it a link to choose a new password. It works for 30 minutes.";

export const INVALID_RESET_LINK =
  "This link is not valid: it was used already or has expired (it works for 30 minutes). Ask for a new one.";

export const resetRequestInput = z.object({ email });
export const newPasswordInput = z.object({ token: z.string().min(1).max(100), password });

/**
 * A forgotten password: a known address is mailed a single-use link; an unknown one gets nothing,
 * and the answer on screen is the same for both.
 */
export async function requestPasswordReset(
  db: Database,
  input: z.input<typeof resetRequestInput> & { address: string },
  options: { at: Date; origin: string },
): Promise<void> {
  const { email: recipient } = resetRequestInput.parse(input);
  const network = clientNetwork(input.address.slice(0, 100)) || "unknown";
  const since = new Date(options.at.getTime() - RESET_LIMITS.windowSeconds * 1000);
  const recent = async (where: ReturnType<typeof and>) =>
    (await db.select({ n: count() }).from(mailRequests).where(where))[0]?.n ?? 0;
  const kind = "password_reset";
  const fromNetwork = and(eq(mailRequests.kind, kind), eq(mailRequests.address, network), gt(mailRequests.at, since));
  if ((await recent(fromNetwork)) >= RESET_LIMITS.perNetwork)
    throw new DomainError("throttled", "Too many password resets asked from your network: try again in an hour.");
  const toRecipient = and(eq(mailRequests.kind, kind), eq(mailRequests.email, recipient), gt(mailRequests.at, since));
  const flooded = (await recent(toRecipient)) >= RESET_LIMITS.perRecipient;
  await db.transaction(async (tx) => {
    await tx.insert(mailRequests).values({ kind, address: network, email: recipient, at: options.at });
    // Old requests no longer count; dropping them here keeps the table the size of one window.
    await tx.delete(mailRequests).where(lt(mailRequests.at, since));
    if (flooded) return;
    const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.email, recipient));
    if (!user) return;
    const token = await issueToken(tx, { purpose: "password_reset", email: recipient, userId: user.id }, options.at);
    await queueMail(tx, passwordResetLink(recipient, mailLinks.passwordReset(options.origin, token)), options.at);
  });
}

/**
 * Sets the new password from a mailed link, once; every session of the member ends (as the
 * operator's reset does) and any other reset link with it. Returns a grant to sign in with.
 */
export async function resetPasswordWithLink(
  db: Database,
  input: z.input<typeof newPasswordInput>,
  options: { at: Date; origin: string },
): Promise<{ email: string; grant: string }> {
  const parsed = newPasswordInput.parse(input);
  // Hashed before the transaction, which must not hold the database for a hash's time.
  const passwordHash = await newPasswordHash(parsed.password);
  return db.transaction(async (tx) => {
    const row = await spendToken(tx, "password_reset", parsed.token, options.at);
    if (!row?.userId) throw new DomainError("link_invalid", INVALID_RESET_LINK);
    const userId = row.userId;
    await tx.update(users).set({ passwordHash, sessionsValidAfter: options.at }).where(eq(users.id, userId));
    await notifySessionsRevoked(tx, userId);
    await tx
      .update(mailTokens)
      .set({ usedAt: options.at })
      .where(and(eq(mailTokens.userId, userId), eq(mailTokens.purpose, "password_reset"), isNull(mailTokens.usedAt)));
    await recordAudit(tx, {
      orgId: null,
      actor: { userId, label: row.email },
      action: "user.password_reset",
      target: userId,
      details: { email: row.email, by: "mailed link" },
    });
    await passwordChangedNotice(tx, { userId, email: row.email }, options);
    const grant = await issueToken(tx, { purpose: "sign_in", email: row.email, userId }, options.at);
    return { email: row.email, grant };
  });
}
