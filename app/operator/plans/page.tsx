import type { Metadata } from "next";
import Link from "next/link";
import { deskMetadata, requireDesk } from "@/app/operator/_lib/desk";
import { Moment } from "@/components/operator/desk";
import { PageHeader } from "@/components/console/page-header";
import { cardClass, deskText, Facts, Section } from "@/components/operator/desk";
import { now } from "@/lib/clock";
import { recentPlanDecisions } from "@/lib/ops/desk/queue";
import { listPlanRequests, listPlans } from "@/lib/accounts/plans";
import { PlanDecision } from "./plan-decision";

export const generateMetadata = (): Promise<Metadata> => deskMetadata("Plans");

export default async function PlansPage() {
  const { db } = await requireDesk();
  const [requests, plans, decided] = await Promise.all([
    listPlanRequests(db),
    listPlans(db),
    recentPlanDecisions(db, new Date(now().getTime() - 7 * 86_400_000)),
  ]);
  const name = (code: string | null) => plans.find((p) => p.code === code)?.name ?? "none";
  return (
    <>
      <PageHeader title="Plans awaiting approval">
        Plans priced on request start once approved here; the organisation keeps its current plan until then. A declined
        request tells the organisation why.
      </PageHeader>
      {requests.length === 0 ? (
        <p className={`text-sm ${deskText.muted}`}>No plan request waits.</p>
      ) : (
        <ul className="space-y-4">
          {requests.map((request) => (
            <li key={request.orgId}>
              <article className={cardClass} aria-labelledby={`request-${request.orgId}`} data-testid="plan-request">
                <h2 id={`request-${request.orgId}`} className={`mb-3 font-semibold ${deskText.strong}`}>
                  <Link href={`/operator/organisations/${request.orgId}`} className={deskText.link}>
                    {request.name}
                  </Link>
                </h2>
                <Facts
                  items={[
                    ["Asks for", name(request.requestedPlanCode)],
                    ["Current plan", name(request.planCode)],
                    ["Asked", <Moment key="asked" at={request.planRequestedAt} />],
                  ]}
                />
                <PlanDecision
                  orgId={request.orgId}
                  organisation={request.name}
                  plan={request.requestedPlanCode}
                  planName={name(request.requestedPlanCode)}
                />
              </article>
            </li>
          ))}
        </ul>
      )}
      {decided.length > 0 ? (
        <Section id="decided" title="Decided in the last 7 days">
          <ul className={`space-y-1 text-sm ${deskText.muted}`} data-testid="plan-decisions">
            {decided.map((entry) => (
              <li key={entry.id}>
                <Moment at={entry.at} />: {entry.organisation ?? entry.orgId}, {name(entry.target)}{" "}
                {entry.action === "plan.approved"
                  ? "approved"
                  : `declined (${String((entry.details as { reason?: string }).reason ?? "")})`}{" "}
                by {entry.actor}
              </li>
            ))}
          </ul>
        </Section>
      ) : null}
    </>
  );
}
