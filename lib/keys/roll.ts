import "#server-only";
import { and, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import { recordAudit, type Actor } from "../accounts/audit.ts";
import type { Database } from "../db/index.ts";
import { apiKeys } from "../db/schema/index.ts";
import { DomainError } from "../errors.ts";
import { newId } from "../ids.ts";
import { notifyKeyChange, notifyKeyCreated } from "./cache.ts";
import { generateKey, hashKey, keyHint } from "./format.ts";
import { keyStatus, productionKeyBlockers, summaryOf, type CreatedKey, type KeySummary } from "./index.ts";
import { keyInScope } from "./settings.ts";

// Rolling a key: its successor is created (and shown once), and the old key keeps working for an
// overlap the holder chooses, long enough to deploy the new one everywhere, then expires. The
// successor takes the old key's name, sport scope, IP allowlist and own limits.

export const MIN_OVERLAP_SECONDS = 3_600;
export const MAX_OVERLAP_SECONDS = 7 * 86_400;

export const rollInput = z.object({
  overlapSeconds: z.coerce
    .number({ message: "Choose how long the old key keeps working" })
    .int("The overlap is a whole number of seconds")
    .min(MIN_OVERLAP_SECONDS, "The old key keeps working for at least an hour")
    .max(MAX_OVERLAP_SECONDS, "The old key keeps working for at most 7 days"),
});

/**
 * `90m`, `1h`, `36h`, `7d` or a number of seconds, as the CLI takes an overlap; null when it is
 * none of them (the bounds are the domain's to check).
 */
export function overlapSeconds(text: string): number | null {
  const match = /^(\d+)\s*(s|m|h|d)?$/.exec(text.trim());
  if (!match) return null;
  const unit = { s: 1, m: 60, h: 3_600, d: 86_400 }[(match[2] ?? "s") as "s" | "m" | "h" | "d"];
  return Number(match[1]) * unit;
}

export type RolledKey = CreatedKey & { predecessor: KeySummary };

/**
 * Rolls a production key. `orgId` scopes a console member's request to the signed-in organisation;
 * the operator CLI passes null. A key is rolled once: its successor is the one to roll next. The
 * old key's expiry is the end of the overlap, or stays sooner if it already was.
 */
export async function rollKey(
  db: Database,
  keyId: string,
  orgId: string | null,
  input: z.input<typeof rollInput>,
  options: { actor: Actor; at: Date },
): Promise<RolledKey> {
  const { overlapSeconds: overlap } = rollInput.parse(input);
  const old = await keyInScope(db, keyId, orgId);
  if (old.environment !== "production") {
    throw new DomainError(
      "invalid_input",
      "A sandbox key cannot be rolled: an organisation has one, ever. Production keys can be rolled.",
    );
  }
  const status = keyStatus(old, options.at);
  if (status !== "active") throw new DomainError("conflict", `Key ${old.hint} is ${status}: there is nothing to roll.`);
  if (old.replacedBy) {
    throw new DomainError("conflict", `Key ${old.hint} was rolled already; roll its successor instead.`);
  }
  const blockers = await productionKeyBlockers(db, old.orgId, options.at);
  if (blockers.length > 0) {
    throw new DomainError(
      blockers[0]!.code,
      `The key cannot be rolled yet. ${blockers.map((b) => b.message).join(" ")}`,
    );
  }
  const overlapEnd = new Date(options.at.getTime() + overlap * 1_000);
  const expiresAt = old.expiresAt && old.expiresAt < overlapEnd ? old.expiresAt : overlapEnd;
  const key = generateKey("production");
  const id = newId("key");
  await db.transaction(async (tx) => {
    await tx.insert(apiKeys).values({
      id,
      orgId: old.orgId,
      environment: "production",
      name: old.name,
      keyHash: hashKey(key),
      hint: keyHint(key),
      sports: old.sports,
      allowedIps: old.allowedIps,
      monthlyQuota: old.monthlyQuota,
      requestsPerSecond: old.requestsPerSecond,
      createdBy: options.actor.userId,
      createdAt: options.at,
    });
    // Only if nobody rolled or revoked it meanwhile: a second roll finds it taken and changes nothing.
    const [rolled] = await tx
      .update(apiKeys)
      .set({ expiresAt, replacedBy: id })
      .where(and(eq(apiKeys.id, old.id), isNull(apiKeys.replacedBy), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id });
    if (!rolled) throw new DomainError("conflict", `Key ${old.hint} was rolled or revoked meanwhile.`);
    await notifyKeyCreated(tx, hashKey(key));
    await recordAudit(tx, {
      orgId: old.orgId,
      actor: options.actor,
      action: "key.created",
      target: id,
      details: { environment: "production", name: old.name, rolledFrom: old.id },
    });
    await recordAudit(tx, {
      orgId: old.orgId,
      actor: options.actor,
      action: "key.rolled",
      target: old.id,
      details: { successor: id, overlapSeconds: overlap, expiresAt: expiresAt.toISOString() },
    });
    // Every instance reads the old key's expiry again at once.
    await notifyKeyChange(tx, { keyId: old.id });
  });
  return {
    key,
    summary: await summaryOf(db, old.orgId, id, options.at),
    predecessor: await summaryOf(db, old.orgId, old.id, options.at),
  };
}
