import "#server-only";
import { and, eq, gt, isNull, lt } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { mailTokens, type MailTokenPurpose } from "../../db/schema/index.ts";
import { randomBase62 } from "../../ids.ts";
import { hashKey } from "../../keys/format.ts";

/** How long each kind of mailed link works. */
export const TOKEN_LIFETIME_MS: Record<MailTokenPurpose, number> = {
  sign_up: 24 * 3_600_000,
  password_reset: 30 * 60_000,
  // The grant a confirmed link hands the browser to sign in with, used at once.
  sign_in: 5 * 60_000,
};

/** A new single-use token; only its SHA-256 is stored. */
export async function issueToken(
  tx: Database,
  input: { purpose: MailTokenPurpose; email: string; userId?: string; payload?: Record<string, string> },
  at: Date,
): Promise<string> {
  const token = randomBase62(32);
  await tx.insert(mailTokens).values({
    tokenHash: hashKey(token),
    purpose: input.purpose,
    email: input.email,
    userId: input.userId ?? null,
    payload: input.payload ?? null,
    createdAt: at,
    expiresAt: new Date(at.getTime() + TOKEN_LIFETIME_MS[input.purpose]),
  });
  // Long-expired tokens are of no use to anyone; dropping them here keeps the table small.
  await tx.delete(mailTokens).where(lt(mailTokens.expiresAt, new Date(at.getTime() - 86_400_000)));
  return token;
}

/** Uses a token: the row once, when it is of this purpose and not expired; null otherwise (two racing, too). */
export async function spendToken(tx: Database, purpose: MailTokenPurpose, token: string, at: Date) {
  if (token.length === 0 || token.length > 100) return null;
  const [row] = await tx
    .update(mailTokens)
    .set({ usedAt: at })
    .where(
      and(
        eq(mailTokens.tokenHash, hashKey(token)),
        eq(mailTokens.purpose, purpose),
        isNull(mailTokens.usedAt),
        gt(mailTokens.expiresAt, at),
      ),
    )
    .returning();
  return row ?? null;
}

/** Whether a token would be used now, for the page that shows its form (a GET uses nothing: mail scanners open links). */
export async function tokenUsable(db: Database, purpose: MailTokenPurpose, token: string, at: Date): Promise<boolean> {
  if (token.length === 0 || token.length > 100) return false;
  const [row] = await db
    .select({ email: mailTokens.email })
    .from(mailTokens)
    .where(
      and(
        eq(mailTokens.tokenHash, hashKey(token)),
        eq(mailTokens.purpose, purpose),
        isNull(mailTokens.usedAt),
        gt(mailTokens.expiresAt, at),
      ),
    );
  return row !== undefined;
}

/** The signed-in user of a grant, once; null for a used, expired or unknown one. */
export async function redeemSignInGrant(db: Database, token: string, at: Date): Promise<string | null> {
  const row = await spendToken(db, "sign_in", token, at);
  return row?.userId ?? null;
}
