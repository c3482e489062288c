import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { deskMetadata, requireDesk } from "@/app/operator/_lib/desk";
import { Time } from "@/components/display-settings";
import { auditSentence, NO_AUDIT_NAMES } from "@/lib/console/audit-sentences";
import { PageHeader } from "@/components/console/page-header";
import { deskText } from "@/components/operator/desk";
import { auditBefore, listOperatorAudit } from "@/lib/accounts/audit";
import { listOrganisations } from "@/lib/accounts/organisations";

export const generateMetadata = (): Promise<Metadata> => deskMetadata("Operator audit");

const PAGE_SIZE = 50;

export default async function OperatorAuditPage({ searchParams }: { searchParams: Promise<{ before?: string }> }) {
  const { db } = await requireDesk();
  const raw = (await searchParams).before;
  const parsed = raw === undefined ? undefined : auditBefore.safeParse(raw);
  if (parsed && !parsed.success) notFound();
  const [entries, organisations] = await Promise.all([
    listOperatorAudit(db, { limit: PAGE_SIZE, before: parsed?.data }),
    listOrganisations(db),
  ]);
  const names = new Map(organisations.map((o) => [o.id, o.name]));
  return (
    <>
      <PageHeader title="Operator audit">
        What operators did, at the desk and with the CLI, across every organisation; newest first (UTC).
      </PageHeader>
      <ol
        className="divide-y divide-slate-200 border-y border-slate-200 dark:divide-slate-700 dark:border-slate-700"
        data-testid="operator-audit"
      >
        {entries.map((entry) => {
          const d = entry.details as Record<string, unknown>;
          const detail = [d.reference, d.email, d.title, d.reason].filter((v) => typeof v === "string" && v).join(", ");
          return (
            <li key={entry.id} className="py-3 text-sm" data-testid="operator-audit-entry" data-action={entry.action}>
              <p className={deskText.strong}>
                <span className="font-medium">{entry.actor}</span> {auditSentence(entry, NO_AUDIT_NAMES)}
                {entry.orgId ? (
                  <>
                    {" of "}
                    <Link href={`/operator/organisations/${entry.orgId}`} className={deskText.link}>
                      {names.get(entry.orgId) ?? entry.orgId}
                    </Link>
                  </>
                ) : null}
              </p>
              <p className={deskText.muted}>
                <Time at={entry.at} />
                {detail ? ` · ${detail}` : ""}
              </p>
            </li>
          );
        })}
      </ol>
      {entries.length === PAGE_SIZE ? (
        <Link href={`/operator/audit?before=${entries.at(-1)!.id}`} className={`mt-4 inline-block ${deskText.link}`}>
          Older entries
        </Link>
      ) : null}
    </>
  );
}
