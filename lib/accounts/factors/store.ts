import "#server-only";
import { and, asc, count, eq, isNotNull, isNull, lt, or } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { recoveryCodes, secondFactors, type FactorKind } from "../../db/schema/index.ts";
import { DomainError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import { acceptedTimeStep, newRecoveryCodes, newTotpSecret, recoveryCodeHash, totpUri } from "./codes.ts";
import { seal, unseal } from "./sealing.ts";

// A member's second factors and recovery codes in the database: what they have, adding and
// removing them, and checking a code against them (each code accepted once).

export type Factor = {
  id: string;
  kind: FactorKind;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
};

/** The app's name in an authenticator app's list. */
export const TOTP_ISSUER = "Sports Event Data";

/** The member's confirmed factors, oldest first. */
export async function listFactors(db: Database, userId: string): Promise<Factor[]> {
  return db
    .select({
      id: secondFactors.id,
      kind: secondFactors.kind,
      name: secondFactors.name,
      createdAt: secondFactors.createdAt,
      lastUsedAt: secondFactors.lastUsedAt,
    })
    .from(secondFactors)
    .where(and(eq(secondFactors.userId, userId), isNotNull(secondFactors.confirmedAt)))
    .orderBy(asc(secondFactors.createdAt));
}

export async function hasSecondFactor(db: Database, userId: string): Promise<boolean> {
  const [row] = await db
    .select({ n: count() })
    .from(secondFactors)
    .where(and(eq(secondFactors.userId, userId), isNotNull(secondFactors.confirmedAt)));
  return (row?.n ?? 0) > 0;
}

/** Recovery codes not used yet. */
export async function recoveryCodesLeft(db: Database, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)));
  return row?.n ?? 0;
}

export type TotpEnrolment = { factorId: string; secret: string; uri: string };

/**
 * Starts adding an authenticator app: a new secret, kept unconfirmed (it counts for nothing) until
 * a code from the app confirms it. An earlier unconfirmed one is dropped.
 */
export async function startTotpEnrolment(
  db: Database,
  user: { id: string; email: string },
  key: Buffer,
): Promise<TotpEnrolment> {
  const secret = newTotpSecret();
  const factorId = newId("fac");
  await db.transaction(async (tx) => {
    await tx
      .delete(secondFactors)
      .where(and(eq(secondFactors.userId, user.id), eq(secondFactors.kind, "totp"), isNull(secondFactors.confirmedAt)));
    await tx.insert(secondFactors).values({
      id: factorId,
      userId: user.id,
      kind: "totp",
      name: "Authenticator app",
      secret: seal(key, secret),
    });
  });
  return { factorId, secret, uri: totpUri(secret, user.email, TOTP_ISSUER) };
}

/**
 * Confirms an authenticator app with a code from it. Returns the new recovery codes when the
 * member had none left (their first factor), else null.
 */
export async function confirmTotpEnrolment(
  db: Database,
  userId: string,
  input: { factorId: string; code: string; name: string },
  key: Buffer,
  at: Date,
): Promise<{ factor: Factor; recoveryCodes: string[] | null }> {
  const [pending] = await db
    .select()
    .from(secondFactors)
    .where(
      and(
        eq(secondFactors.id, input.factorId),
        eq(secondFactors.userId, userId),
        eq(secondFactors.kind, "totp"),
        isNull(secondFactors.confirmedAt),
      ),
    );
  const secret = pending?.secret ? unseal(key, pending.secret) : null;
  if (!pending || !secret) throw new DomainError("not_found", "Start adding the authenticator app again.");
  const step = await acceptedTimeStep(secret, input.code, at, null);
  if (step === null) {
    throw new DomainError("invalid_input", "That code is not the one your app shows now: enter the current one.");
  }
  return db.transaction(async (tx) => {
    const [factor] = await tx
      .update(secondFactors)
      .set({ confirmedAt: at, lastTimeStep: step, name: input.name, lastUsedAt: at })
      .where(and(eq(secondFactors.id, pending.id), isNull(secondFactors.confirmedAt)))
      .returning();
    if (!factor) throw new DomainError("conflict", "This authenticator app was already added.");
    const left = await recoveryCodesLeft(tx, userId);
    const codes = left === 0 ? await replaceRecoveryCodes(tx, userId) : null;
    return {
      factor: {
        id: factor.id,
        kind: factor.kind,
        name: factor.name,
        createdAt: factor.createdAt,
        lastUsedAt: factor.lastUsedAt,
      },
      recoveryCodes: codes,
    };
  });
}

/** A new set of ten recovery codes, shown once; the old set stops working. */
export async function replaceRecoveryCodes(db: Database, userId: string): Promise<string[]> {
  const codes = newRecoveryCodes();
  await db.transaction(async (tx) => {
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
    await tx.insert(recoveryCodes).values(codes.map((code) => ({ codeHash: recoveryCodeHash(code), userId })));
  });
  return codes;
}

export type CodeCheck = { ok: true; method: "totp" | "recovery_code"; factorId: string | null } | { ok: false };

/**
 * Checks a code against the member's authenticator apps, then their recovery codes. Each code is
 * taken by a conditional update, so two requests with one code cannot both pass.
 */
export async function checkCode(db: Database, userId: string, code: string, key: Buffer, at: Date): Promise<CodeCheck> {
  const apps = await db
    .select()
    .from(secondFactors)
    .where(and(eq(secondFactors.userId, userId), eq(secondFactors.kind, "totp"), isNotNull(secondFactors.confirmedAt)));
  for (const app of apps) {
    const secret = app.secret ? unseal(key, app.secret) : null;
    if (!secret) continue;
    const step = await acceptedTimeStep(secret, code, at, app.lastTimeStep);
    if (step === null) continue;
    const [taken] = await db
      .update(secondFactors)
      .set({ lastTimeStep: step, lastUsedAt: at })
      .where(
        and(eq(secondFactors.id, app.id), or(isNull(secondFactors.lastTimeStep), lt(secondFactors.lastTimeStep, step))),
      )
      .returning({ id: secondFactors.id });
    if (taken) return { ok: true, method: "totp", factorId: taken.id };
  }
  const [used] = await db
    .update(recoveryCodes)
    .set({ usedAt: at })
    .where(
      and(
        eq(recoveryCodes.userId, userId),
        eq(recoveryCodes.codeHash, recoveryCodeHash(code)),
        isNull(recoveryCodes.usedAt),
      ),
    )
    .returning({ codeHash: recoveryCodes.codeHash });
  return used ? { ok: true, method: "recovery_code", factorId: null } : { ok: false };
}

/** Removes one of the member's factors; with the last one go the recovery codes. */
export async function removeFactor(db: Database, userId: string, factorId: string): Promise<Factor> {
  return db.transaction(async (tx) => {
    const [removed] = await tx
      .delete(secondFactors)
      .where(and(eq(secondFactors.id, factorId), eq(secondFactors.userId, userId)))
      .returning();
    if (!removed) throw new DomainError("not_found", "That sign-in method is not yours or was already removed.");
    if (!(await hasSecondFactor(tx, userId))) await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
    return {
      id: removed.id,
      kind: removed.kind,
      name: removed.name,
      createdAt: removed.createdAt,
      lastUsedAt: removed.lastUsedAt,
    };
  });
}

/** Removes every factor and recovery code of the member (an operator's reset). Returns how many factors. */
export async function removeAllFactors(db: Database, userId: string): Promise<number> {
  return db.transaction(async (tx) => {
    const removed = await tx
      .delete(secondFactors)
      .where(eq(secondFactors.userId, userId))
      .returning({ id: secondFactors.id });
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
    return removed.length;
  });
}
