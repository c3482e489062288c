import type { Metadata } from "next";
import Link from "next/link";
import { deskMetadata, requireDesk } from "@/app/operator/_lib/desk";
import { Moment } from "@/components/operator/desk";
import { PageHeader } from "@/components/console/page-header";
import { Badge, cardClass, deskText, Section } from "@/components/operator/desk";
import { now } from "@/lib/clock";
import { recentIncidents } from "@/lib/ops/status/incidents";
import { OpenIncidentForm, UpdateIncidentForm } from "./incident-forms";

export const generateMetadata = (): Promise<Metadata> => deskMetadata("Incidents");

export default async function IncidentsPage() {
  const { db } = await requireDesk();
  const at = now();
  const incidents = await recentIncidents(db, new Date(at.getTime() - 7 * 86_400_000));
  return (
    <>
      <PageHeader title="Incidents">
        What goes wrong, told on the public{" "}
        <Link href="/status" className={deskText.link}>
          status page
        </Link>{" "}
        as it happens: open an incident with the parts it affects, post updates as it moves on, and resolve it.
      </PageHeader>
      <Section id="open-incident" title="Open an incident">
        <OpenIncidentForm />
      </Section>
      <Section id="incidents" title="Open, and resolved in the last 7 days">
        {incidents.length === 0 ? (
          <p className={`text-sm ${deskText.muted}`}>None.</p>
        ) : (
          <ul className="space-y-4" data-testid="desk-incidents">
            {incidents.map((incident) => (
              <li key={incident.id}>
                <article className={cardClass} aria-labelledby={`incident-${incident.id}`}>
                  <div className="mb-2 flex flex-wrap items-center gap-2">
                    <h3 id={`incident-${incident.id}`} className={`font-semibold ${deskText.strong}`}>
                      {incident.title}
                    </h3>
                    <Badge tone={incident.state === "resolved" ? "good" : "waiting"}>{incident.state}</Badge>
                  </div>
                  <p className={`text-sm ${deskText.muted}`}>
                    {incident.components.join(", ")} · since <Moment at={incident.startedAt} />
                    {incident.resolvedAt ? (
                      <>
                        {" · resolved "}
                        <Moment at={incident.resolvedAt} />
                      </>
                    ) : null}
                  </p>
                  <ol className={`mt-2 space-y-1 text-sm ${deskText.strong}`}>
                    {[...incident.updates].reverse().map((update) => (
                      <li key={update.at + update.text}>
                        <span className={deskText.muted}>
                          <Moment at={update.at} />, {update.state}:
                        </span>{" "}
                        {update.text}
                      </li>
                    ))}
                  </ol>
                  {incident.state === "resolved" ? null : (
                    <UpdateIncidentForm incidentId={incident.id} state={incident.state} />
                  )}
                </article>
              </li>
            ))}
          </ul>
        )}
      </Section>
    </>
  );
}
