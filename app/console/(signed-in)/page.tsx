import type { Metadata } from "next";
import { sportNames } from "@/lib/sports";
import Link from "next/link";
import { requireConsole } from "@/app/console/_lib/console";
import { formatDay, formatNumber } from "@/components/console/format";
import { PageHeader } from "@/components/console/page-header";
import { now } from "@/lib/clock";
import { currentMonth, usageForMonth } from "@/lib/console/usage";
import { listKeys, productionKeyBlockers } from "@/lib/keys";
import { getLicence, licenceStatus } from "@/lib/accounts/licences";
import { licenceStatusText } from "./licence/status-text";
import { getPlan } from "@/lib/accounts/plans";

export const metadata: Metadata = { title: "Console" };

function Step({
  done,
  title,
  href,
  children,
}: {
  done: boolean;
  title: string;
  href: string;
  children: React.ReactNode;
}) {
  return (
    <li className="rounded-lg border border-slate-300 p-4">
      <div className="flex items-center gap-2">
        <span
          aria-hidden="true"
          className={`inline-flex h-6 w-6 items-center justify-center rounded-full text-sm ${done ? "bg-pitch-700 text-white" : "bg-slate-200 text-slate-800"}`}
        >
          {done ? "✓" : "•"}
        </span>
        <h2 className="font-semibold text-slate-900">
          <Link href={href} className="underline-offset-4 hover:underline">
            {title}
          </Link>
          <span className="sr-only">{done ? " (done)" : " (to do)"}</span>
        </h2>
      </div>
      <p className="mt-2 text-sm text-slate-800">{children}</p>
    </li>
  );
}

export default async function ConsoleOverview() {
  const { db, access } = await requireConsole();
  const at = now();
  const orgId = access.organisation.id;
  const [licence, keys, blockers, usage] = await Promise.all([
    getLicence(db, orgId),
    listKeys(db, orgId, at),
    productionKeyBlockers(db, orgId, at),
    usageForMonth(db, orgId, currentMonth(at)),
  ]);
  const plan = access.organisation.planCode ? await getPlan(db, access.organisation.planCode) : undefined;
  const status = licenceStatus(licence, at);
  const sandbox = keys.find((k) => k.environment === "sandbox");
  const activeProduction = keys.filter((k) => k.environment === "production" && k.status === "active").length;
  return (
    <>
      <PageHeader title="Console">
        {access.organisation.name}: from a sandbox key to production keys in four steps.
      </PageHeader>
      <ol className="grid gap-4 sm:grid-cols-2">
        <Step done={!!sandbox} title="Sandbox key" href="/console/keys">
          {sandbox
            ? `Created (${sandbox.hint}, ${sportNames(sandbox.sports)}); ${sandbox.status === "active" ? "expires" : sandbox.status} ${formatDay(sandbox.expiresAt)}.`
            : "Not created yet: one per organisation, for building your integration."}
        </Step>
        <Step done={status === "valid"} title="Licence record" href="/console/licence">
          {licenceStatusText(licence, status)}
        </Step>
        <Step done={!!plan} title="Plan" href="/console/plan">
          {plan ? `${plan.name}: ${formatNumber(plan.monthlyQuota)} requests a month.` : "Not chosen yet."}
        </Step>
        <Step done={activeProduction > 0} title="Production keys" href="/console/keys">
          {blockers.length > 0
            ? blockers.map((b) => b.message).join(" ")
            : `${activeProduction} active. ${formatNumber(usage.total)} requests this month across all keys.`}
        </Step>
      </ol>
    </>
  );
}
