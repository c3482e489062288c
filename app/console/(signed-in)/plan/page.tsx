import type { Metadata } from "next";
import { requireConsole } from "@/app/console/_lib/console";
import { formatDay, formatNumber } from "@/components/console/format";
import { PageHeader, ViewerNotice } from "@/components/console/page-header";
import { listPlans, pricedOnRequest } from "@/lib/plans";
import { PlanChoice } from "./plan-choice";

export const metadata: Metadata = { title: "Plan" };

const COLUMNS = ["Plan", "Sports", "Monthly quota", "Requests per second", "Streams", "Price"];

function price(cents: number | null): string {
  if (cents === null) return "On request";
  if (cents === 0) return "Free";
  return `€${formatNumber(cents / 100)} a month`;
}

export default async function PlanPage() {
  const { db, access } = await requireConsole();
  const plans = await listPlans(db);
  const canEdit = access.role === "admin";
  const currentName = plans.find((p) => p.code === access.organisation.planCode)?.name;
  const { requestedPlanCode, planRequestedAt } = access.organisation;
  const requestedName = plans.find((p) => p.code === requestedPlanCode)?.name;
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
      ) : null}
      {canEdit ? null : <ViewerNotice what="the plans" />}
      <div
        className="relative mt-4 overflow-x-auto"
        tabIndex={0}
        role="region"
        aria-label="Plan comparison, scrolls sideways"
      >
        <table className="w-full min-w-[40rem] border-collapse text-left text-sm">
          <caption className="sr-only">Plans compared</caption>
          <thead>
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
          <tbody>
            {plans.map((plan) => (
              <tr key={plan.code} className="border-b border-slate-200 align-top" data-testid={`plan-${plan.code}`}>
                <th scope="row" className="py-3 pr-3 font-semibold text-slate-900">
                  {plan.name}
                  <p className="mt-1 max-w-48 font-normal text-slate-700">{plan.description}</p>
                </th>
                <td className="py-3 pr-3">
                  {plan.environment === "sandbox"
                    ? "One, chosen with the key"
                    : plan.sports.length === 7
                      ? "All seven"
                      : plan.sports.join(", ")}
                </td>
                <td className="py-3 pr-3">{formatNumber(plan.monthlyQuota)}</td>
                <td className="py-3 pr-3">{plan.requestsPerSecond}</td>
                <td className="py-3 pr-3">{plan.concurrentStreams}</td>
                <td className="py-3 pr-3">{price(plan.monthlyPriceCents)}</td>
                <td className="py-3">
                  {plan.environment === "sandbox" ? (
                    <span className="text-slate-700">The sandbox key&apos;s plan</span>
                  ) : canEdit ? (
                    <PlanChoice
                      code={plan.code}
                      name={plan.name}
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
      </div>
    </>
  );
}
