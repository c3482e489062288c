import "#server-only";
import { and, desc, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import { recordAudit, type Actor } from "../accounts/audit.ts";
import { addDays, utcDay } from "../clock.ts";
import type { Database } from "../db/index.ts";
import {
  apiKeys,
  organisations,
  plans,
  SPORTS,
  usageMonthly,
  type Environment,
  type Sport,
} from "../db/schema/index.ts";
import { DomainError, isUniqueViolation, type DomainErrorCode } from "../errors.ts";
import { newId } from "../ids.ts";
import { getLicence, licenceStatus } from "../accounts/licences.ts";
import { findOrganisation } from "../accounts/organisations.ts";
import { notifyKeyChange, notifyKeyCreated } from "./cache.ts";
import { generateKey, hashKey, keyHint } from "./format.ts";
import { coveredBy, SANDBOX_PLAN } from "./lookup.ts";
import { queueEvent } from "../ops/webhooks/events.ts";

export type KeyStatus = "active" | "revoked" | "expired";

export type KeySummary = {
  id: string;
  orgId: string;
  environment: Environment;
  name: string | null;
  hint: string;
  /** What the key covers: the sandbox key's sport, or its plan's narrowed to its scope. */
  sports: Sport[];
  /** A production key's own sport scope; null: its plan's sports. */
  sportScope: Sport[] | null;
  /** The networks a production key may be used from; null: any address. */
  allowedIps: string[] | null;
  /** The key that replaced this one when it was rolled. */
  replacedBy: string | null;
  /** The key this one replaced, when it was made by rolling that one. */
  replaces: string | null;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  status: KeyStatus;
  requestsUsed: number;
  /** The quota the key's count is held to: its own limit where it has one below its plan's. */
  requestsQuota: number | null;
  /** A production key's own lower limits inside its organisation's pool; null: the plan's. */
  ownMonthlyQuota: number | null;
  ownRequestsPerSecond: number | null;
};

/** A created key: the only moment the key itself exists outside its owner's hands. */
export type CreatedKey = { key: string; summary: KeySummary };

export const sandboxKeyInput = z.object({
  sport: z.enum(SPORTS, { message: `Choose one sport: ${SPORTS.join(", ")}` }),
});
export const productionKeyInput = z.object({
  name: z.string().trim().max(80, "Name may hold at most 80 characters").optional(),
});

export { SANDBOX_PLAN };

export function keyStatus(key: { revokedAt: Date | null; expiresAt: Date | null }, at: Date): KeyStatus {
  if (key.revokedAt) return "revoked";
  if (key.expiresAt && key.expiresAt <= at) return "expired";
  return "active";
}

/** A plan's limit, lowered by a key's own. */
const lowerOf = (plan: number | null, own: number | null) =>
  own === null ? plan : plan === null ? own : Math.min(plan, own);

function monthStart(at: Date): string {
  return `${utcDay(at).slice(0, 7)}-01`;
}

/** Every key of the organisation, newest first, with this month's use against its quota. */
export async function listKeys(db: Database, orgId: string, at: Date): Promise<KeySummary[]> {
  const [org] = await db
    .select({ planSports: plans.sports, planQuota: plans.monthlyQuota })
    .from(organisations)
    .leftJoin(plans, eq(plans.code, organisations.planCode))
    .where(eq(organisations.id, orgId));
  const sandboxPlan = await db.select({ quota: plans.monthlyQuota }).from(plans).where(eq(plans.code, SANDBOX_PLAN));
  const rows = await db
    .select({ key: apiKeys, requestsUsed: usageMonthly.requests })
    .from(apiKeys)
    .leftJoin(usageMonthly, and(eq(usageMonthly.keyId, apiKeys.id), eq(usageMonthly.month, monthStart(at))))
    .where(eq(apiKeys.orgId, orgId))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  const replaced = new Map(rows.flatMap(({ key }) => (key.replacedBy ? [[key.replacedBy, key.id] as const] : [])));
  return rows.map(({ key, requestsUsed }) => {
    const sandbox = key.environment === "sandbox";
    return {
      id: key.id,
      orgId: key.orgId,
      environment: key.environment,
      name: key.name,
      hint: key.hint,
      sports: sandbox ? [key.sport!] : coveredBy(org?.planSports ?? [], key.sports),
      sportScope: key.sports,
      allowedIps: key.allowedIps,
      replacedBy: key.replacedBy,
      replaces: replaced.get(key.id) ?? null,
      createdAt: key.createdAt,
      expiresAt: key.expiresAt,
      revokedAt: key.revokedAt,
      lastUsedAt: key.lastUsedAt,
      status: keyStatus(key, at),
      requestsUsed: requestsUsed ?? 0,
      requestsQuota: sandbox ? (sandboxPlan[0]?.quota ?? null) : lowerOf(org?.planQuota ?? null, key.monthlyQuota),
      ownMonthlyQuota: key.monthlyQuota,
      ownRequestsPerSecond: key.requestsPerSecond,
    };
  });
}

export async function summaryOf(db: Database, orgId: string, keyId: string, at: Date): Promise<KeySummary> {
  const summary = (await listKeys(db, orgId, at)).find((k) => k.id === keyId);
  if (!summary) throw new DomainError("not_found", `No key ${keyId}.`);
  return summary;
}

/** The sandbox key: one per organisation, ever, covering one sport, expiring after `ttlDays`. */
export async function createSandboxKey(
  db: Database,
  orgId: string,
  input: { sport: string },
  options: { actor: Actor; at: Date; ttlDays: number },
): Promise<CreatedKey> {
  const { sport } = sandboxKeyInput.parse(input);
  const [existing] = await db
    .select({ hint: apiKeys.hint, createdAt: apiKeys.createdAt })
    .from(apiKeys)
    .where(and(eq(apiKeys.orgId, orgId), eq(apiKeys.environment, "sandbox")));
  const refusal = () =>
    new DomainError(
      "sandbox_key_exists",
      "This organisation already has its sandbox key" +
        (existing ? ` (${existing.hint}, created ${utcDay(existing.createdAt)})` : "") +
        ". An organisation gets one sandbox key, ever; production keys are available with a licence and a plan.",
    );
  if (existing) throw refusal();
  const key = generateKey("sandbox");
  const id = newId("key");
  try {
    await db.transaction(async (tx) => {
      await tx.insert(apiKeys).values({
        id,
        orgId,
        environment: "sandbox",
        keyHash: hashKey(key),
        hint: keyHint(key),
        sport,
        createdBy: options.actor.userId,
        createdAt: options.at,
        expiresAt: addDays(options.at, options.ttlDays),
      });
      await notifyKeyCreated(tx, hashKey(key));
      await recordAudit(tx, {
        orgId,
        actor: options.actor,
        action: "key.created",
        target: id,
        details: { environment: "sandbox", sport },
      });
    });
  } catch (error) {
    // Two creations raced; the unique index let one through.
    if (isUniqueViolation(error)) throw refusal();
    throw error;
  }
  return { key, summary: await summaryOf(db, orgId, id, options.at) };
}

export type Blocker = { code: DomainErrorCode; message: string };

/** What still stands between the organisation and production keys, in words for people. */
export async function productionKeyBlockers(db: Database, orgId: string, at: Date): Promise<Blocker[]> {
  const organisation = await findOrganisation(db, orgId);
  const licence = await getLicence(db, orgId);
  const blockers: Blocker[] = [];
  const status = licenceStatus(licence, at);
  if (status === "missing") {
    blockers.push({ code: "licence_missing", message: "No licence record: record the organisation's licence first." });
  } else if (status !== "valid") {
    const l = licence!;
    const reviewed = l.reviewedAt ? utcDay(l.reviewedAt) : "";
    const message = {
      pending: `The licence ${l.reference} awaits an operator's verification; production keys follow once it is verified.`,
      rejected: `The licence ${l.reference} was rejected on ${reviewed}${l.reviewReason ? ` (${l.reviewReason})` : ""}: correct the record and save it for verification again.`,
      revoked: `The licence ${l.reference} was revoked on ${reviewed}${l.reviewReason ? ` (${l.reviewReason})` : ""}: record a valid licence.`,
      lapsed: `The licence ${l.reference} lapsed after ${l.validUntil}: record a valid licence.`,
      not_yet_valid: `The licence ${l.reference} is valid only from ${l.validFrom}.`,
    }[status];
    blockers.push({ code: "licence_not_valid", message });
  }
  if (!organisation.planCode) blockers.push({ code: "plan_missing", message: "No plan: choose a plan first." });
  return blockers;
}

/** Production keys: any number, while the organisation has a verified licence in force and a plan. */
export async function createProductionKey(
  db: Database,
  orgId: string,
  input: z.input<typeof productionKeyInput>,
  options: { actor: Actor; at: Date },
): Promise<CreatedKey> {
  const { name } = productionKeyInput.parse(input);
  const blockers = await productionKeyBlockers(db, orgId, options.at);
  if (blockers.length > 0) {
    throw new DomainError(
      blockers[0]!.code,
      `A production key cannot be created yet. ${blockers.map((b) => b.message).join(" ")}`,
    );
  }
  const key = generateKey("production");
  const id = newId("key");
  await db.transaction(async (tx) => {
    await tx.insert(apiKeys).values({
      id,
      orgId,
      environment: "production",
      name: name || null,
      keyHash: hashKey(key),
      hint: keyHint(key),
      createdBy: options.actor.userId,
      createdAt: options.at,
    });
    await notifyKeyCreated(tx, hashKey(key));
    await recordAudit(tx, {
      orgId,
      actor: options.actor,
      action: "key.created",
      target: id,
      details: { environment: "production", name: name || null },
    });
  });
  return { key, summary: await summaryOf(db, orgId, id, options.at) };
}

/**
 * Revokes a key. `orgId` scopes the console's request to the signed-in organisation, so a key id
 * of another organisation is simply not found; the operator CLI passes null. Revoking twice is
 * harmless and reports the first revocation. Counted requests are not given back. The next request
 * with the key is refused on every instance: the revocation is announced on the change bus.
 */
export async function revokeKey(
  db: Database,
  keyId: string,
  orgId: string | null,
  options: { actor: Actor; at: Date },
): Promise<{ summary: KeySummary; alreadyRevoked: boolean }> {
  const scope = orgId ? and(eq(apiKeys.id, keyId), eq(apiKeys.orgId, orgId)) : eq(apiKeys.id, keyId);
  const revoked = await db.transaction(async (tx) => {
    const [row] = await tx
      .update(apiKeys)
      .set({ revokedAt: options.at, revokedBy: options.actor.userId })
      .where(and(scope, isNull(apiKeys.revokedAt)))
      .returning({ orgId: apiKeys.orgId, hint: apiKeys.hint, name: apiKeys.name, environment: apiKeys.environment });
    if (row) {
      await recordAudit(tx, { orgId: row.orgId, actor: options.actor, action: "key.revoked", target: keyId });
      await queueEvent(tx, {
        orgId: row.orgId,
        type: "key.revoked",
        at: options.at,
        data: {
          key_id: keyId,
          key_hint: row.hint,
          key_name: row.name,
          environment: row.environment,
          revoked_at: options.at.toISOString(),
        },
      });
      // Every instance empties its cached copy when this commits.
      await notifyKeyChange(tx, { keyId });
    }
    return row;
  });
  const [key] = await db.select({ orgId: apiKeys.orgId }).from(apiKeys).where(scope);
  if (!key) throw new DomainError("not_found", `No key ${keyId}${orgId ? " in this organisation" : ""}.`);
  return { summary: await summaryOf(db, key.orgId, keyId, options.at), alreadyRevoked: !revoked };
}
