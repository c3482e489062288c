import type { Metadata } from "next";
import { sportNames } from "@/lib/sports";
import { requireConsole } from "@/app/console/_lib/console";
import { formatDay, formatNumber } from "@/components/console/format";
import { PageHeader, ViewerNotice } from "@/components/console/page-header";
import { listPlans, pricedOnRequest } from "@/lib/accounts/plans";
import { PlanChoice, type PlanTerms } from "./plan-choice";

export const metadata: Metadata = { title: "Plan" };

const COLUMNS = ["Plan", "Sports", "Monthly quota", "Requests per second", "Streams", "Price"];

function price(cents: number | null): string {
  if (cents === null) return "On request";
  if (cents === 0) return "Free";
  return `€${formatNumber(cents / 100)} a month`;
}

type Plan = Awaited<ReturnType<typeof listPlans>>[number];

function sportsOf(plan: Plan): string {
  if (plan.environment === "sandbox") return "One, chosen with the key";
  return plan.sports.length === 7 ? "All seven" : sportNames(plan.sports);
}

/** A plan's terms, as the confirmation of a change shows them. */
function termsOf(plan: Plan): PlanTerms {
  return {
    name: plan.name,
    sports: sportsOf(plan),
    quota: `${formatNumber(plan.monthlyQuota)} requests`,
    perSecond: String(plan.requestsPerSecond),
    streams: String(plan.concurrentStreams),
    price: price(plan.monthlyPriceCents),
  };
}

export default async function PlanPage() {
  const { db, access } = await requireConsole();
  const plans = await listPlans(db);
  const currentPlan = plans.find((p) => p.code === access.organisation.planCode);
  const canEdit = access.role === "admin";
  const currentName = plans.find((p) => p.code === access.organisation.planCode)?.name;
  const { requestedPlanCode, planRequestedAt } = access.organisation;
  const requestedName = plans.find((p) => p.code === requestedPlanCode)?.name;
  const declinedName = plans.find((p) => p.code === access.organisation.declinedPlanCode)?.name;
  return (
    <>
      <PageHeader title="Plan">
        The plan sets the sports, the monthly quota, the requests per second and the concurrent streams of your
        production keys. {currentName ? `Your organisation is on ${currentName}.` : "No plan chosen yet."} Plans with a
        price are chosen here; one priced on request starts once an operator approves it.
      </PageHeader>
      {requestedName ? (
        <p role="status" data-testid="plan-request" className="mb-4 text-sm text-amber-950">
          {`You requested ${requestedName} on ${formatDay(planRequestedAt)}: it starts once an operator approves it.`}
        </p>
      ) : declinedName ? (
        <p role="status" data-testid="plan-request" className="mb-4 text-sm text-red-900">
          {`Your request for ${declinedName} was declined on ${formatDay(access.organisation.planDeclinedAt)}. Reason: ${access.organisation.planDeclinedReason}`}
        </p>
      ) : null}
      {canEdit ? null : <ViewerNotice what="the plans" />}
      {/* A table on wide screens; below that each plan is a card of its own, labelled cell by cell,
          so that nothing, the Choose buttons least of all, lies beyond the screen's edge. */}
      <table className="mt-4 block w-full border-collapse text-left text-sm lg:table">
        <caption className="sr-only">Plans compared</caption>
        <thead className="sr-only lg:not-sr-only lg:table-header-group">
          <tr className="border-b border-slate-300 text-slate-700">
            {COLUMNS.map((column) => (
              <th key={column} scope="col" className="py-2 pr-3 font-medium">
                {column}
              </th>
            ))}
            <th scope="col" className="py-2 font-medium">
              <span className="sr-only">Choice</span>
            </th>
          </tr>
        </thead>
        <tbody className="block space-y-3 lg:table-row-group lg:space-y-0">
          {plans.map((plan) => (
            <tr
              key={plan.code}
              className="grid grid-cols-2 gap-x-4 gap-y-2 rounded-lg border border-slate-200 p-4 align-top lg:table-row lg:rounded-none lg:border-0 lg:border-b lg:p-0"
              data-testid={`plan-${plan.code}`}
            >
              <th scope="row" className="col-span-2 font-semibold text-slate-900 lg:py-3 lg:pr-3">
                {plan.name}
                <p className="mt-1 font-normal text-slate-700 lg:max-w-48">{plan.description}</p>
              </th>
              <PlanCell label="Sports">{sportsOf(plan)}</PlanCell>
              <PlanCell label="Monthly quota">{formatNumber(plan.monthlyQuota)}</PlanCell>
              <PlanCell label="Requests per second">{plan.requestsPerSecond}</PlanCell>
              <PlanCell label="Streams">{plan.concurrentStreams}</PlanCell>
              <PlanCell label="Price">{price(plan.monthlyPriceCents)}</PlanCell>
              <td className="col-span-2 lg:py-3">
                {plan.environment === "sandbox" ? (
                  <span className="text-slate-700">The sandbox key&apos;s plan</span>
                ) : canEdit ? (
                  <PlanChoice
                    code={plan.code}
                    terms={termsOf(plan)}
                    currentTerms={currentPlan ? termsOf(currentPlan) : null}
                    current={plan.code === access.organisation.planCode}
                    onRequest={pricedOnRequest(plan)}
                    requested={plan.code === requestedPlanCode}
                  />
                ) : plan.code === access.organisation.planCode ? (
                  <span className="font-medium text-pitch-900">Your plan</span>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** One figure of a plan; on a card it carries its column's name, which the table's header says on wide screens. */
function PlanCell({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <td className="lg:py-3 lg:pr-3">
      <span className="block text-xs text-slate-700 lg:hidden" aria-hidden="true">
        {label}
      </span>
      {children}
    </td>
  );
}
