import "#server-only";
import { asc, eq, isNotNull } from "drizzle-orm";
import { z } from "zod";
import { recordAudit, type Actor } from "./audit.ts";
import type { Database } from "../db/index.ts";
import { organisations, plans, sports, type Sport } from "../db/schema/index.ts";
import { DomainError } from "../errors.ts";
import { notifyKeyChange } from "../keys/cache.ts";
import { findOrganisation } from "./organisations.ts";

export type Plan = typeof plans.$inferSelect;

export function listPlans(db: Database): Promise<Plan[]> {
  return db.select().from(plans).orderBy(asc(plans.ordinal));
}

/** The sports a plan or a sandbox key may cover, in the catalogue's order. */
export function listSports(db: Database): Promise<Array<{ code: Sport; name: string }>> {
  return db.select({ code: sports.code, name: sports.name }).from(sports).orderBy(asc(sports.ordinal));
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

// What a new plan or a new request leaves of the last one: nothing waiting, nothing declined.
const noRequest = {
  requestedPlanCode: null,
  planRequestedAt: null,
  declinedPlanCode: null,
  planDeclinedReason: null,
  planDeclinedAt: null,
};

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
      .set({ planCode, ...noRequest })
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
      .set({ ...noRequest, requestedPlanCode: planCode, planRequestedAt: at })
      .where(eq(organisations.id, orgId));
    await recordAudit(tx, { orgId, actor, action: "plan.requested", target: planCode });
  });
  return plan;
}

/** The operator's approval of the organisation's waiting plan request: the plan starts now. */
export async function approvePlanRequest(
  db: Database,
  orgRef: string,
  actor: Actor,
  options: { shown?: string } = {},
): Promise<Plan> {
  const organisation = await findOrganisation(db, orgRef);
  if (!organisation.requestedPlanCode) {
    throw new DomainError("not_found", `${organisation.name} has no plan request waiting for approval.`);
  }
  if (options.shown !== undefined && options.shown !== organisation.requestedPlanCode) {
    throw new DomainError(
      "record_changed",
      `The record changed: look again. ${organisation.name} now asks for ${organisation.requestedPlanCode}, not ${options.shown}.`,
    );
  }
  const plan = await setPlan(db, organisation.id, organisation.requestedPlanCode, actor);
  await recordAudit(db, { orgId: organisation.id, actor, action: "plan.approved", target: plan.code });
  return plan;
}

export const declineReason = z.string().trim().min(1, "Give a reason").max(500);

/**
 * The operator declines the organisation's waiting plan request, with a reason the organisation
 * sees on its plan page; its current plan stays.
 */
export async function declinePlanRequest(
  db: Database,
  orgRef: string,
  reason: string,
  actor: Actor,
  at: Date,
): Promise<Plan> {
  const why = z.object({ reason: declineReason }).parse({ reason }).reason;
  const organisation = await findOrganisation(db, orgRef);
  if (!organisation.requestedPlanCode) {
    throw new DomainError("not_found", `${organisation.name} has no plan request waiting for approval.`);
  }
  const plan = (await getPlan(db, organisation.requestedPlanCode))!;
  await db.transaction(async (tx) => {
    await tx
      .update(organisations)
      .set({
        ...noRequest,
        declinedPlanCode: plan.code,
        planDeclinedReason: why,
        planDeclinedAt: at,
      })
      .where(eq(organisations.id, organisation.id));
    await recordAudit(tx, {
      orgId: organisation.id,
      actor,
      action: "plan.declined",
      target: plan.code,
      details: { reason: why },
    });
  });
  return plan;
}

export type PlanRequest = {
  orgId: string;
  slug: string;
  name: string;
  planCode: string | null;
  requestedPlanCode: string;
  planRequestedAt: Date | null;
};

/** Plan requests waiting for an operator, oldest first. */
export async function listPlanRequests(db: Database): Promise<PlanRequest[]> {
  const rows = await db
    .select({
      orgId: organisations.id,
      slug: organisations.slug,
      name: organisations.name,
      planCode: organisations.planCode,
      requestedPlanCode: organisations.requestedPlanCode,
      planRequestedAt: organisations.planRequestedAt,
    })
    .from(organisations)
    .where(isNotNull(organisations.requestedPlanCode))
    .orderBy(asc(organisations.planRequestedAt), asc(organisations.id));
  return rows.map((row) => ({ ...row, requestedPlanCode: row.requestedPlanCode! }));
}
