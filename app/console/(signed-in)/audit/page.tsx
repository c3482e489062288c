import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { requireConsole } from "@/app/console/_lib/console";
import { formatDateTime } from "@/components/console/format";
import { AUDIT_ACTIONS as ACTIONS } from "@/components/console/audit-actions";
import { PageHeader } from "@/components/console/page-header";
import { auditBefore, listAudit, type AuditEntry } from "@/lib/audit";
import { now } from "@/lib/clock";
import { listKeys } from "@/lib/keys";

export const metadata: Metadata = { title: "Audit log" };

const PAGE_SIZE = 50;

/** A setting's value as the log shows it: lists joined, nothing as "none". */
function shown(value: unknown): string {
  if (value === null || value === undefined) return "none";
  return Array.isArray(value) ? value.join(", ") : String(value);
}

/** The details worth reading, as short text; the licence's previous version is in `previous`. */
function describe(entry: AuditEntry, hints: Map<string, string>): string {
  const d = entry.details as Record<string, unknown>;
  switch (entry.action) {
    case "licence.set":
      return (
        `${d.reference}, ${d.authority}, ${d.holder}, valid ${d.validFrom} to ${d.validUntil}` +
        (d.previous
          ? ` (was ${(d.previous as Record<string, unknown>).reference}, until ${(d.previous as Record<string, unknown>).validUntil})`
          : "")
      );
    case "plan.declined":
      return `${entry.target}: ${d.reason}`;
    case "licence.verified":
    case "licence.rejected":
    case "licence.revoked":
      return `${d.reference}${d.reason ? `: ${d.reason}` : ""}`;
    case "plan.set":
      return `${entry.target}${d.previous ? ` (was ${d.previous})` : ""}`;
    case "key.revoked":
      return hints.get(entry.target ?? "") ?? entry.target ?? "";
    case "key.created":
      return `${hints.get(entry.target ?? "") ?? entry.target}, ${d.environment}${d.sport ? `, ${d.sport}` : ""}${d.name ? `, “${d.name}”` : ""}`;
    case "key.updated":
      return `${hints.get(entry.target ?? "") ?? entry.target}: ${Object.entries(d)
        .map(
          ([field, change]) =>
            `${field} ${shown((change as { from: unknown }).from)} → ${shown((change as { to: unknown }).to)}`,
        )
        .join("; ")}`;
    case "key.rolled":
      return `${hints.get(entry.target ?? "") ?? entry.target} → ${hints.get(String(d.successor)) ?? d.successor}, overlap until ${d.expiresAt}`;
    case "member.added":
    case "member.removed":
      return `${d.email ?? entry.target}${d.role ? ` as ${d.role}` : ""}`;
    case "member.invited":
      return `as ${d.role}`;
    case "member.role_changed":
      return `${entry.target}: ${d.from} → ${d.to}`;
    default:
      return entry.target ?? "";
  }
}

export default async function AuditPage({ searchParams }: { searchParams: Promise<{ before?: string }> }) {
  const { db, access } = await requireConsole();
  const raw = (await searchParams).before;
  const parsed = raw === undefined ? undefined : auditBefore.safeParse(raw);
  // A page that cannot exist (not an entry's id): not found, rather than a failed query.
  if (parsed && !parsed.success) notFound();
  const before = parsed?.data;
  const entries = await listAudit(db, access.organisation.id, { limit: PAGE_SIZE, before });
  // Keys are named by their hint, as everywhere else in the console.
  const hints = new Map((await listKeys(db, access.organisation.id, now())).map((k) => [k.id, k.hint]));
  return (
    <>
      <PageHeader title="Audit log">Who did what, and when (UTC), newest first.</PageHeader>
      <ol className="divide-y divide-slate-200 border-y border-slate-200" data-testid="audit-log">
        {entries.map((entry) => (
          <li key={entry.id} className="py-3 text-sm" data-testid="audit-entry" data-action={entry.action}>
            <p className="text-slate-900">
              {/* Which of our operators it was is ours to know; that an operator acted is the organisation's. */}
              <span className="font-medium">{entry.operator ? "An operator" : entry.actor}</span>{" "}
              {ACTIONS[entry.action] ?? entry.action}
            </p>
            <p className="text-slate-700">
              <time dateTime={entry.at.toISOString()}>{formatDateTime(entry.at)}</time>
              {describe(entry, hints) ? ` · ${describe(entry, hints)}` : ""}
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
