import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { deskMetadata, requireDesk } from "@/app/operator/_lib/desk";
import { LicenceCard } from "@/app/operator/licences/licence-card";
import { Time } from "@/components/display-settings";
import { formatDay, formatNumber } from "@/components/console/format";
import { PageHeader } from "@/components/console/page-header";
import { Badge, cardClass, deskText, Facts, Moment, Section } from "@/components/operator/desk";
import type { AuditEntry } from "@/lib/accounts/audit";
import { auditSentence, NO_AUDIT_NAMES } from "@/lib/console/audit-sentences";
import { now } from "@/lib/clock";
import { recordOrganisationView } from "@/lib/ops/desk/actions";
import { organisationFile } from "@/lib/ops/desk/organisations";
import { DomainError } from "@/lib/errors";
import { ResetFactorsForm } from "./reset-factors-form";
import { VerifyDomainForm } from "./verify-domain-form";
import { listDomains } from "@/lib/accounts/sso/connections";

export const generateMetadata = (): Promise<Metadata> => deskMetadata("Organisation");

/** An entry as one line: who (an operator by name here), what, and the details worth reading. */
function AuditLine({ entry }: { entry: AuditEntry }) {
  const d = entry.details as Record<string, unknown>;
  const detail = [d.reference, d.email, d.reason, entry.action.startsWith("plan.") ? entry.target : null]
    .filter((v) => typeof v === "string" && v !== "")
    .join(", ");
  return (
    <li className="py-2 text-sm">
      <span className={deskText.strong}>
        <span className="font-medium">{entry.actor}</span> {auditSentence(entry, NO_AUDIT_NAMES)}
        {detail ? `: ${detail}` : ""}
      </span>{" "}
      <span className={deskText.muted}>
        <Time at={entry.at} />
      </span>
    </li>
  );
}

const divided = "divide-y divide-slate-200 border-y border-slate-200 dark:divide-slate-700 dark:border-slate-700";

export default async function OrganisationPage({ params }: { params: Promise<{ orgId: string }> }) {
  const { db, access } = await requireDesk();
  const { orgId } = await params;
  const at = now();
  const file = await organisationFile(db, orgId.slice(0, 40), at).catch((error: unknown) => {
    if (error instanceof DomainError && error.code === "not_found") notFound();
    throw error;
  });
  // Reading a customer's file is on the record, in its log and the operators'.
  await recordOrganisationView(db, access, file.organisation.id);
  const ssoDomains = await listDomains(db, file.organisation.id);
  const { organisation, plan, licence, keys } = file;
  return (
    <>
      <PageHeader title={organisation.name}>
        {organisation.slug} · {organisation.id} · since {formatDay(organisation.createdAt)}
      </PageHeader>

      <Section id="licence" title="Licence">
        {licence ? (
          <LicenceCard
            licence={{
              ...licence,
              organisation: { id: organisation.id, name: organisation.name, slug: organisation.slug },
            }}
          />
        ) : (
          <p className={`text-sm ${deskText.muted}`}>No licence recorded: no production keys.</p>
        )}
        <h3 className={`mt-4 mb-1 font-medium ${deskText.strong}`}>History</h3>
        <ol className={divided} data-testid="licence-history">
          {file.licenceHistory.map((entry) => (
            <AuditLine key={entry.id} entry={entry} />
          ))}
        </ol>
      </Section>

      <Section id="plan" title="Plan and usage this month">
        <Facts
          items={[
            [
              "Plan",
              plan ? `${plan.name} (${formatNumber(plan.monthlyQuota)} requests a month per key)` : "None chosen",
            ],
            [
              "Asks for",
              file.requestedPlan ? (
                <>
                  {file.requestedPlan.name}, since <Moment at={organisation.planRequestedAt} />
                </>
              ) : (
                "—"
              ),
            ],
            [
              "Last declined",
              organisation.declinedPlanCode
                ? `${organisation.declinedPlanCode} on ${formatDay(organisation.planDeclinedAt)}: ${organisation.planDeclinedReason}`
                : "—",
            ],
            ["Requests this month", `${formatNumber(file.requestsThisMonth)} across its keys`],
          ]}
        />
      </Section>

      <Section id="members" title={`Members (${file.members.length})`}>
        <ul className={divided}>
          {file.members.map((member) => (
            <li key={member.userId} className="py-2 text-sm">
              <span className={`font-medium ${deskText.strong}`}>{member.name}</span>{" "}
              <span className={deskText.muted}>
                {member.email} · {member.role} since {formatDay(member.since)}
              </span>
              <ResetFactorsForm userId={member.userId} label={member.email} />
            </li>
          ))}
        </ul>
      </Section>

      {ssoDomains.length > 0 ? (
        <Section id="sso-domains" title="Single sign-on domains">
          <ul className={divided}>
            {ssoDomains.map((domain) => (
              <li key={domain.domain} className="py-2 text-sm">
                <span className={`font-medium ${deskText.strong}`}>{domain.domain}</span>{" "}
                <span className={deskText.muted}>
                  {domain.verifiedAt
                    ? `verified ${domain.verifiedBy === "operator" ? "by an operator" : "by DNS"} on ${formatDay(domain.verifiedAt)}`
                    : "not verified"}
                </span>
                {domain.verifiedAt ? null : <VerifyDomainForm orgId={file.organisation.id} domain={domain.domain} />}
              </li>
            ))}
          </ul>
        </Section>
      ) : null}

      <Section id="keys" title={`Keys (${keys.length})`}>
        {keys.length === 0 ? (
          <p className={`text-sm ${deskText.muted}`}>No keys.</p>
        ) : (
          <ul className="space-y-3" data-testid="organisation-keys">
            {keys.map((key) => (
              <li key={key.id} className={`${cardClass} text-sm`}>
                <p className="flex flex-wrap items-center gap-2">
                  <span className={`font-mono ${deskText.strong}`}>{key.hint}</span>
                  {key.name ? <span className={deskText.strong}>“{key.name}”</span> : null}
                  <Badge tone={key.status === "active" ? "good" : "neutral"}>
                    {key.environment}, {key.status}
                  </Badge>
                </p>
                <p className={deskText.muted}>
                  {formatNumber(key.requestsUsed)}
                  {key.requestsQuota ? ` of ${formatNumber(key.requestsQuota)}` : ""} requests this month · last used{" "}
                  <Moment at={key.lastUsedAt} /> · created {formatDay(key.createdAt)}
                  {key.expiresAt ? ` · expires ${formatDay(key.expiresAt)}` : ""}
                </p>
              </li>
            ))}
          </ul>
        )}
      </Section>

      <Section id="webhooks" title="Webhooks">
        {file.webhooks.length === 0 ? (
          <p className={`text-sm ${deskText.muted}`}>No endpoints.</p>
        ) : (
          <ul className="space-y-3">
            {file.webhooks.map((endpoint) => (
              <li key={endpoint.id} className={`${cardClass} text-sm`}>
                <p className="flex flex-wrap items-center gap-2">
                  <span className={`break-all ${deskText.strong}`}>{endpoint.url}</span>
                  <Badge tone={!endpoint.enabled ? "neutral" : endpoint.lastDay.failed > 0 ? "bad" : "good"}>
                    {!endpoint.enabled ? "disabled" : endpoint.lastDay.failed > 0 ? "failing" : "healthy"}
                  </Badge>
                </p>
                <p className={deskText.muted}>
                  Last day: {endpoint.lastDay.delivered} delivered, {endpoint.lastDay.failed} failed,{" "}
                  {endpoint.lastDay.pending} waiting · last delivered <Moment at={endpoint.lastDeliveredAt} />
                </p>
              </li>
            ))}
          </ul>
        )}
      </Section>

      <Section id="audit" title="Audit log (latest 50)">
        <ol className={divided} data-testid="organisation-audit">
          {file.audit.map((entry) => (
            <AuditLine key={entry.id} entry={entry} />
          ))}
        </ol>
      </Section>
    </>
  );
}
