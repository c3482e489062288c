import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { requireConsole } from "@/app/console/_lib/console";
import { PageHeader } from "@/components/console/page-header";
import { Time } from "@/components/display-settings";
import { auditBefore, listAudit } from "@/lib/accounts/audit";
import { now } from "@/lib/clock";
import { auditSentence, type AuditNames } from "@/lib/console/audit-sentences";
import { listMembers } from "@/lib/console/members";
import { listKeys } from "@/lib/keys";
import { listEndpoints } from "@/lib/ops/webhooks/endpoints";

export const metadata: Metadata = { title: "Audit log" };

const PAGE_SIZE = 50;

export default async function AuditPage({ searchParams }: { searchParams: Promise<{ before?: string }> }) {
  const { db, access } = await requireConsole();
  const raw = (await searchParams).before;
  const parsed = raw === undefined ? undefined : auditBefore.safeParse(raw);
  // A page that cannot exist (not an entry's id): not found, rather than a failed query.
  if (parsed && !parsed.success) notFound();
  const before = parsed?.data;
  const entries = await listAudit(db, access.organisation.id, { limit: PAGE_SIZE, before });
  // Keys by name and hint, as everywhere else in the console; members by e-mail, endpoints by URL.
  const orgId = access.organisation.id;
  const [keys, members, endpoints] = await Promise.all([
    listKeys(db, orgId, now()),
    listMembers(db, orgId),
    listEndpoints(db, orgId),
  ]);
  const keyNames = new Map(keys.map((k) => [k.id, k.name ? `“${k.name}” (${k.hint})` : k.hint]));
  const memberNames = new Map(members.map((m) => [m.userId, m.email]));
  const endpointNames = new Map(endpoints.map((e) => [e.id, e.url]));
  const names: AuditNames = {
    key: (id) => keyNames.get(id),
    member: (id) => memberNames.get(id),
    endpoint: (id) => endpointNames.get(id),
  };
  return (
    <>
      <PageHeader title="Audit log">Who did what, and when, newest first.</PageHeader>
      <ol className="divide-y divide-slate-200 border-y border-slate-200" data-testid="audit-log">
        {entries.map((entry) => (
          <li key={entry.id} className="py-3 text-sm" data-testid="audit-entry" data-action={entry.action}>
            <p className="text-slate-900" data-testid="audit-sentence">
              {/* Which of our operators it was is ours to know; that an operator acted is the organisation's. */}
              <span className="font-medium">{entry.operator ? "An operator" : entry.actor}</span>{" "}
              {auditSentence(entry, names)}.
            </p>
            <p className="text-slate-700">
              <Time at={entry.at} />
            </p>
          </li>
        ))}
      </ol>
      {entries.length === PAGE_SIZE ? (
        <Link
          href={`/console/audit?before=${entries.at(-1)!.id}`}
          className="mt-4 inline-block text-pitch-700 underline underline-offset-4"
        >
          Older entries
        </Link>
      ) : null}
    </>
  );
}
