import type { Metadata } from "next";
import Link from "next/link";
import { deskMetadata, requireDesk } from "@/app/operator/_lib/desk";
import { buttonClass, inputClass } from "@/components/console/form";
import { formatDay } from "@/components/console/format";
import { PageHeader } from "@/components/console/page-header";
import { Badge, cardClass, deskText } from "@/components/operator/desk";
import { searchOrganisations } from "@/lib/ops/desk/organisations";

export const generateMetadata = (): Promise<Metadata> => deskMetadata("Organisations");

export default async function OrganisationsPage({
  searchParams,
}: {
  searchParams: Promise<{ q?: string | string[] }>;
}) {
  const { db } = await requireDesk();
  const raw = (await searchParams).q;
  const query = typeof raw === "string" ? raw.slice(0, 200) : "";
  const found = await searchOrganisations(db, query);
  return (
    <>
      <PageHeader title="Organisations">
        Find one by its name, its slug, a member&apos;s e-mail or the hint of one of its keys (the characters shown in
        its lists, such as the last four).
      </PageHeader>
      <form role="search" className="mb-6 flex flex-wrap items-end gap-3" action="/operator/organisations">
        <div className="min-w-0 flex-1 basis-64">
          <label htmlFor="organisation-search" className={`block text-sm font-medium ${deskText.strong}`}>
            Search organisations
          </label>
          <input
            id="organisation-search"
            name="q"
            type="search"
            defaultValue={query}
            maxLength={200}
            className={inputClass}
          />
        </div>
        <button type="submit" className={buttonClass}>
          Search
        </button>
      </form>
      <h2 className={`mb-3 text-lg font-semibold ${deskText.strong}`} aria-live="polite">
        {query
          ? `${found.length === 0 ? "No" : found.length} organisation${found.length === 1 ? "" : "s"} found for “${query}”`
          : "The newest organisations"}
      </h2>
      <ul className="space-y-3" data-testid="organisation-results">
        {found.map((organisation) => (
          <li key={organisation.id} className={`${cardClass} text-sm`}>
            <p className="flex flex-wrap items-center gap-2">
              <Link href={`/operator/organisations/${organisation.id}`} className={`font-medium ${deskText.link}`}>
                {organisation.name}
              </Link>
              <Badge
                tone={
                  organisation.verification === "verified"
                    ? "good"
                    : organisation.verification === "pending"
                      ? "waiting"
                      : organisation.verification
                        ? "bad"
                        : "neutral"
                }
              >
                licence {organisation.verification ?? "missing"}
              </Badge>
            </p>
            <p className={deskText.muted}>
              {organisation.slug} · plan {organisation.planCode ?? "none"}
              {organisation.requestedPlanCode ? ` (asks for ${organisation.requestedPlanCode})` : ""} · since{" "}
              {formatDay(organisation.createdAt)}
            </p>
          </li>
        ))}
      </ul>
    </>
  );
}
