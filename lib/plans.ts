import { asc, eq } from "drizzle-orm";
import { recordAudit, type Actor } from "./audit.ts";
import type { Database } from "./db/index.ts";
import { organisations, plans } from "./db/schema/index.ts";
import { DomainError } from "./errors.ts";
import { instanceKeyCache, notifyKeyChange } from "./keys/cache.ts";

export type Plan = typeof plans.$inferSelect;

export function listPlans(db: Database): Promise<Plan[]> {
  return db.select().from(plans).orderBy(asc(plans.ordinal));
}

export async function getPlan(db: Database, code: string): Promise<Plan | undefined> {
  const [plan] = await db.select().from(plans).where(eq(plans.code, code));
  return plan;
}

/** Chooses the organisation's production plan; the sandbox plan is not a choice. */
export async function setPlan(db: Database, orgId: string, planCode: string, actor: Actor): Promise<Plan> {
  const plan = await getPlan(db, planCode);
  if (!plan || plan.environment !== "production") {
    const codes = (await listPlans(db)).filter((p) => p.environment === "production").map((p) => p.code);
    throw new DomainError("not_found", `No production plan "${planCode}". Plans: ${codes.join(", ")}.`);
  }
  await db.transaction(async (tx) => {
    const [previous] = await tx
      .select({ planCode: organisations.planCode })
      .from(organisations)
      .where(eq(organisations.id, orgId));
    if (!previous) throw new DomainError("not_found", `No organisation ${orgId}.`);
    await tx.update(organisations).set({ planCode }).where(eq(organisations.id, orgId));
    await recordAudit(tx, {
      orgId,
      actor,
      action: "plan.set",
      target: planCode,
      details: { previous: previous.planCode },
    });
    // The organisation's production keys now cover other sports and limits.
    await notifyKeyChange(tx, { orgId });
  });
  instanceKeyCache()?.forget({ orgId });
  return plan;
}
