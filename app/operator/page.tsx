import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/components/console/page-header";
import { Count, deskText, Section } from "@/components/operator/desk";
import { deskCounts, pendingLicences } from "@/lib/ops/desk/queue";
import { deskMetadata, requireDesk } from "./_lib/desk";
import { LicenceCard } from "./licences/licence-card";

export const generateMetadata = async (): Promise<Metadata> => {
  const metadata = await deskMetadata("Desk");
  return metadata.title ? { ...metadata, title: "Operators' desk" } : metadata;
};

export default async function DeskPage() {
  const { db } = await requireDesk();
  const [counts, pending] = await Promise.all([deskCounts(db), pendingLicences(db)]);
  return (
    <>
      <PageHeader title="Operators' desk">
        What waits for a decision: licence records to check first, since an organisation gets production keys only once
        its record is verified.
      </PageHeader>
      <ul className="mb-8 grid gap-3 sm:grid-cols-3">
        <li>
          <Count href="/operator/licences" label="licence records to check" value={counts.pendingLicences} />
        </li>
        <li>
          <Count href="/operator/plans" label="plan requests" value={counts.planRequests} />
        </li>
        <li>
          <Count href="/operator/incidents" label="open incidents" value={counts.openIncidents} />
        </li>
      </ul>
      <Section id="pending" title="Licence records to check">
        {pending.length === 0 ? (
          <p className={`text-sm ${deskText.muted}`}>
            None waits. Every decision so far is on{" "}
            <Link href="/operator/licences" className={deskText.link}>
              Licences
            </Link>
            .
          </p>
        ) : (
          <ul className="space-y-4">
            {pending.map((licence) => (
              <li key={licence.id}>
                <LicenceCard licence={licence} />
              </li>
            ))}
          </ul>
        )}
      </Section>
    </>
  );
}
