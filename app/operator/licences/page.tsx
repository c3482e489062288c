import type { Metadata } from "next";
import { deskMetadata, requireDesk } from "@/app/operator/_lib/desk";
import { PageHeader } from "@/components/console/page-header";
import { licencesForDesk } from "@/lib/ops/desk/queue";
import { LicenceCard } from "./licence-card";

export const generateMetadata = (): Promise<Metadata> => deskMetadata("Licences");

export default async function LicencesPage() {
  const { db } = await requireDesk();
  const licences = await licencesForDesk(db);
  return (
    <>
      <PageHeader title="Licences">
        Pending records first, the longest waiting at the top, then the latest decisions. Check each record with its
        issuing authority&apos;s register before verifying it: a decision applies to the record exactly as shown here,
        and one the organisation changed since is refused.
      </PageHeader>
      {licences.length === 0 ? (
        <p className="text-sm text-slate-700 dark:text-slate-300">No organisation has recorded a licence yet.</p>
      ) : (
        // One list, so that a card keeps its messages when a decision moves it.
        <ul className="space-y-4" data-testid="desk-licences">
          {licences.map((licence) => (
            <li key={licence.id}>
              <LicenceCard licence={licence} headingLevel={2} />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
