import "#server-only";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { recordAudit, type Actor } from "../accounts/audit.ts";
import type { Database } from "../db/index.ts";
import { apiKeys, organisations, plans, SPORTS, type Sport } from "../db/schema/index.ts";
import { DomainError } from "../errors.ts";
import { parseAllowlist } from "./allowlist.ts";
import { notifyKeyChange } from "./cache.ts";
import { keyStatus, summaryOf, type KeySummary } from "./index.ts";

// What a key holder may change about a production key after its creation: its name, its sport
// scope, its IP allowlist, its expiry and its own lower limits inside the organisation's pool. The console and the operator CLI both come here, so the rules and the
// audit are the same whoever asks. A change reaches every instance's cached copy through the bus.

const name = z
  .string()
  .trim()
  .max(80, "Name may hold at most 80 characters")
  .transform((value) => value || null);

/** A key's own limit: a whole number above zero, or null for the plan's. */
const ownLimit = (what: string) =>
  z.coerce
    .number({ message: `${what} must be a whole number` })
    .int(`${what} must be a whole number`)
    .positive(`${what} must be at least 1 (leave it empty for the plan's)`)
    .max(2_000_000_000, `${what} must be at most 2000000000`)
    .nullable()
    .optional();

/**
 * A change: a field left out stays as it is; null clears it (no name, the plan's sports, any
 * address, no expiry, the plan's limits).
 */
export const keySettingsInput = z.object({
  name: name.nullable().optional(),
  sports: z
    .array(z.enum(SPORTS, { message: `Sports are among ${SPORTS.join(", ")}` }))
    .transform((list) => (list.length === 0 ? null : [...new Set(list)]))
    .nullable()
    .optional(),
  expiresAt: z.coerce.date({ message: "Expiry must be a date and time (ISO 8601, UTC)" }).nullable().optional(),
  // Networks in CIDR notation, as a list or as text (one a line, or separated by commas); none: any address.
  allowedIps: z
    .union([z.string(), z.array(z.string())])
    .transform((value, context) => {
      const parsed = parseAllowlist(value);
      if ("errors" in parsed) {
        for (const message of parsed.errors) context.addIssue({ code: "custom", message });
        return z.NEVER;
      }
      return parsed.networks.length === 0 ? null : parsed.networks;
    })
    .nullable()
    .optional(),
  monthlyQuota: ownLimit("The key's monthly quota"),
  requestsPerSecond: ownLimit("The key's requests a second"),
});
export type KeySettings = z.input<typeof keySettingsInput>;

type Row = typeof apiKeys.$inferSelect;

/** The changes as the audit log records them: each field that changed, from and to. */
type Changes = Record<string, { from: unknown; to: unknown }>;

const sameList = (a: readonly string[] | null, b: readonly string[] | null) =>
  a === b || (a !== null && b !== null && a.length === b.length && a.every((value, i) => value === b[i]));

/**
 * Changes a key's settings. `orgId` scopes a console member's request to the signed-in
 * organisation (another organisation's key is not found); the operator CLI passes null. A change
 * that changes nothing records nothing. Revoked and expired keys are past changing.
 */
export async function updateKey(
  db: Database,
  keyId: string,
  orgId: string | null,
  input: KeySettings,
  options: { actor: Actor; at: Date; beforeScopeChange?: () => Promise<void> },
): Promise<{ summary: KeySummary; changed: string[] }> {
  const settings = keySettingsInput.parse(input);
  const key = await keyInScope(db, keyId, orgId);
  if (keyStatus(key, options.at) !== "active") {
    throw new DomainError("conflict", `Key ${key.hint} is ${keyStatus(key, options.at)}: it cannot be changed.`);
  }
  const sandbox = key.environment === "sandbox";
  if (
    sandbox &&
    (settings.sports !== undefined ||
      settings.expiresAt !== undefined ||
      settings.allowedIps !== undefined ||
      settings.monthlyQuota !== undefined ||
      settings.requestsPerSecond !== undefined)
  ) {
    throw new DomainError(
      "invalid_input",
      "A sandbox key covers the one sport it was created for, from any address, within the sandbox's limits, and expires when it was set to; only its name can change.",
    );
  }
  const changes: Changes = {};
  const update: Partial<Row> = {};
  if (settings.name !== undefined && settings.name !== key.name) {
    changes.name = { from: key.name, to: settings.name };
    update.name = settings.name;
  }
  if (settings.sports !== undefined) {
    const scope = settings.sports === null ? null : await orderedScope(db, key.orgId, settings.sports);
    if (!sameList(scope, key.sports)) {
      changes.sports = { from: key.sports, to: scope };
      update.sports = scope;
    }
  }
  if (settings.allowedIps !== undefined && !sameList(settings.allowedIps, key.allowedIps)) {
    changes.allowedIps = { from: key.allowedIps, to: settings.allowedIps };
    update.allowedIps = settings.allowedIps;
  }
  if (settings.expiresAt !== undefined && settings.expiresAt?.getTime() !== key.expiresAt?.getTime()) {
    checkExpiry(key, settings.expiresAt, options.at);
    changes.expiresAt = { from: key.expiresAt?.toISOString() ?? null, to: settings.expiresAt?.toISOString() ?? null };
    update.expiresAt = settings.expiresAt;
  }
  for (const [field, value] of [
    ["monthlyQuota", settings.monthlyQuota],
    ["requestsPerSecond", settings.requestsPerSecond],
  ] as const) {
    if (value === undefined || value === key[field]) continue;
    if (value !== null) await checkBelowPlan(db, key.orgId, field, value);
    changes[field] = { from: key[field], to: value };
    update[field] = value;
  }
  const changed = Object.keys(changes);
  // A change of what the key reaches or from where (the console asks for a step-up first).
  if (changes.sports || changes.allowedIps) await options.beforeScopeChange?.();
  if (changed.length > 0) {
    await db.transaction(async (tx) => {
      await tx.update(apiKeys).set(update).where(eq(apiKeys.id, key.id));
      await recordAudit(tx, {
        orgId: key.orgId,
        actor: options.actor,
        action: "key.updated",
        target: key.id,
        details: changes,
      });
      await notifyKeyChange(tx, { keyId: key.id });
    });
  }
  return { summary: await summaryOf(db, key.orgId, key.id, options.at), changed };
}

export async function keyInScope(db: Database, keyId: string, orgId: string | null): Promise<Row> {
  const scope = orgId ? and(eq(apiKeys.id, keyId), eq(apiKeys.orgId, orgId)) : eq(apiKeys.id, keyId);
  const [key] = await db.select().from(apiKeys).where(scope);
  if (!key) throw new DomainError("not_found", `No key ${keyId}${orgId ? " in this organisation" : ""}.`);
  return key;
}

/** A scope within the organisation's plan, in the plan's order; a sport beyond the plan is refused. */
async function orderedScope(db: Database, orgId: string, scope: Sport[]): Promise<Sport[]> {
  const [org] = await db
    .select({ sports: plans.sports })
    .from(organisations)
    .leftJoin(plans, eq(plans.code, organisations.planCode))
    .where(eq(organisations.id, orgId));
  const planSports = org?.sports ?? [];
  const beyond = scope.filter((sport) => !planSports.includes(sport));
  if (beyond.length > 0) {
    throw new DomainError(
      "invalid_input",
      `A key's sports are a subset of its plan's (${planSports.join(", ") || "none"}); ${beyond.join(", ")} ${beyond.length > 1 ? "are" : "is"} not in it.`,
    );
  }
  return planSports.filter((sport) => scope.includes(sport));
}

/**
 * A key's own limit lowers its plan's, which the organisation holds as a whole: one above it would
 * promise what the pool never gives. (A plan lowered later binds below it: lookup.ts takes the lower.)
 */
async function checkBelowPlan(
  db: Database,
  orgId: string,
  field: "monthlyQuota" | "requestsPerSecond",
  value: number,
): Promise<void> {
  const [plan] = await db
    .select({ monthlyQuota: plans.monthlyQuota, requestsPerSecond: plans.requestsPerSecond })
    .from(organisations)
    .innerJoin(plans, eq(plans.code, organisations.planCode))
    .where(eq(organisations.id, orgId));
  if (plan && value > plan[field]) {
    const what = field === "monthlyQuota" ? "monthly quota" : "requests a second";
    throw new DomainError(
      "invalid_input",
      `A key's own ${what} lowers its plan's, which the organisation shares: at most ${plan[field]}.`,
    );
  }
}

/**
 * An expiry is in the future. A rolled key's expiry ends the overlap its successor was made with:
 * it may come sooner, never later or not at all, so a rolled key cannot quietly live on.
 */
function checkExpiry(key: Row, expiresAt: Date | null, at: Date): void {
  if (expiresAt !== null && expiresAt <= at) {
    throw new DomainError("invalid_input", "The expiry must be in the future; revoke the key to stop it now.");
  }
  if (key.replacedBy !== null && key.expiresAt !== null && (expiresAt === null || expiresAt > key.expiresAt)) {
    throw new DomainError(
      "invalid_input",
      `Key ${key.hint} was rolled: its expiry (${key.expiresAt.toISOString()}) may be brought forward, not put off.`,
    );
  }
}
