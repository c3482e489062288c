import "#server-only";
import { asc, eq } from "drizzle-orm";
import { recordAudit, type Actor } from "./audit.ts";
import type { Database } from "./db/index.ts";
import { organisations, plans } from "./db/schema/index.ts";
import { DomainError } from "./errors.ts";
import { notifyKeyChange } from "./keys/cache.ts";
import { findOrganisation } from "./organisations.ts";

export type Plan = typeof plans.$inferSelect;

export function listPlans(db: Database): Promise<Plan[]> {
  return db.select().from(plans).orderBy(asc(plans.ordinal));
}

export async function getPlan(db: Database, code: string): Promise<Plan | undefined> {
  const [plan] = await db.select().from(plans).where(eq(plans.code, code));
  return plan;
}

/** A plan without a listed price is agreed with an operator, not chosen in the console. */
export function pricedOnRequest(plan: Pick<Plan, "monthlyPriceCents">): boolean {
  return plan.monthlyPriceCents === null;
}

async function productionPlan(db: Database, planCode: string): Promise<Plan> {
  const plan = await getPlan(db, planCode);
  if (!plan || plan.environment !== "production") {
    const codes = (await listPlans(db)).filter((p) => p.environment === "production").map((p) => p.code);
    throw new DomainError("not_found", `No production plan "${planCode}". Plans: ${codes.join(", ")}.`);
  }
  return plan;
}

/**
 * Puts the organisation on a production plan (the sandbox plan is not a choice). `selfService`:
 * the console's choice, which takes plans with a listed price only; the operator sets any plan.
 * Any request still waiting is withdrawn.
 */
export async function setPlan(
  db: Database,
  orgId: string,
  planCode: string,
  actor: Actor,
  options: { selfService?: boolean } = {},
): Promise<Plan> {
  const plan = await productionPlan(db, planCode);
  if (options.selfService && pricedOnRequest(plan)) {
    throw new DomainError(
      "approval_required",
      `${plan.name} is priced on request: request it, and it starts once an operator approves it.`,
    );
  }
  await db.transaction(async (tx) => {
    const [previous] = await tx
      .select({ planCode: organisations.planCode })
      .from(organisations)
      .where(eq(organisations.id, orgId));
    if (!previous) throw new DomainError("not_found", `No organisation ${orgId}.`);
    await tx
      .update(organisations)
      .set({ planCode, requestedPlanCode: null, planRequestedAt: null })
      .where(eq(organisations.id, orgId));
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
  return plan;
}

/** An admin asks for a plan priced on request; the current plan stays until an operator approves. */
export async function requestPlan(
  db: Database,
  orgId: string,
  planCode: string,
  actor: Actor,
  at: Date,
): Promise<Plan> {
  const plan = await productionPlan(db, planCode);
  if (!pricedOnRequest(plan)) {
    throw new DomainError("conflict", `${plan.name} has a listed price: choose it, no approval is needed.`);
  }
  await db.transaction(async (tx) => {
    await tx
      .update(organisations)
      .set({ requestedPlanCode: planCode, planRequestedAt: at })
      .where(eq(organisations.id, orgId));
    await recordAudit(tx, { orgId, actor, action: "plan.requested", target: planCode });
  });
  return plan;
}

/** The operator's approval of the organisation's waiting plan request: the plan starts now. */
export async function approvePlanRequest(db: Database, orgRef: string, actor: Actor): Promise<Plan> {
  const organisation = await findOrganisation(db, orgRef);
  if (!organisation.requestedPlanCode) {
    throw new DomainError("not_found", `${organisation.name} has no plan request waiting for approval.`);
  }
  const plan = await setPlan(db, organisation.id, organisation.requestedPlanCode, actor);
  await recordAudit(db, { orgId: organisation.id, actor, action: "plan.approved", target: plan.code });
  return plan;
}
