import type { Metadata } from "next";
import Link from "next/link";
import { requireConsole } from "@/app/console/_lib/console";
import { formatNumber } from "@/components/console/format";
import { PageHeader } from "@/components/console/page-header";
import { now } from "@/lib/clock";
import { currentMonth, MONTH_PATTERN, usageForMonth } from "@/lib/console/usage";
import { UsageChart } from "./usage-chart";

export const metadata: Metadata = { title: "Usage" };

function shift(month: string, by: number): string {
  const [year, m] = month.split("-").map(Number) as [number, number];
  const date = new Date(Date.UTC(year, m - 1 + by, 1));
  return date.toISOString().slice(0, 7);
}

const monthName = new Intl.DateTimeFormat("en-GB", { month: "long", year: "numeric", timeZone: "UTC" });

export default async function UsagePage({ searchParams }: { searchParams: Promise<{ month?: string }> }) {
  const { db, access } = await requireConsole();
  const thisMonth = currentMonth(now());
  const asked = (await searchParams).month;
  const month = asked && MONTH_PATTERN.test(asked) && asked <= thisMonth ? asked : thisMonth;
  const usage = await usageForMonth(db, access.organisation.id, month);
  const title = monthName.format(new Date(`${month}-01T00:00:00Z`));
  return (
    <>
      <PageHeader title="Usage">
        Requests counted per day (UTC), per key and in total. Every answered request counts, as the quota does.
      </PageHeader>
      <nav aria-label="Month" className="mb-4 flex flex-wrap items-center gap-4 text-sm">
        <Link href={`/console/usage?month=${shift(month, -1)}`} className="text-pitch-700 underline underline-offset-4">
          ← Previous month
        </Link>
        <h2 className="text-lg font-semibold text-slate-900" data-testid="usage-month">
          {title}
        </h2>
        {month < thisMonth ? (
          <Link
            href={`/console/usage?month=${shift(month, 1)}`}
            className="text-pitch-700 underline underline-offset-4"
          >
            Next month →
          </Link>
        ) : null}
      </nav>
      <p className="mb-4 text-slate-800" data-testid="usage-total">
        {formatNumber(usage.total)} requests in {title}.
      </p>
      <p className="mb-4 text-slate-800" data-testid="usage-organisation">
        {usage.organisation.quota === null
          ? `${formatNumber(usage.organisation.requests)} requests counted for the organisation.`
          : `The organisation: ${formatNumber(usage.organisation.requests)} of its plan's ${formatNumber(usage.organisation.quota)} requests this month, shared by its production keys and its members' reads in the console. Each key's own figure is below.`}
      </p>
      <UsageChart usage={usage} today={now().toISOString().slice(0, 10)} />
      <details className="mt-6">
        <summary className="cursor-pointer text-sm font-medium text-pitch-700">Totals per key as a table</summary>
        <table className="mt-2 w-full text-left text-sm" data-testid="usage-table">
          <thead>
            <tr className="border-b border-slate-300">
              <th scope="col" className="py-1 pr-3 font-medium">
                Key
              </th>
              <th scope="col" className="py-1 font-medium">
                Requests
              </th>
            </tr>
          </thead>
          <tbody>
            {usage.keys.map((key) => (
              <tr key={key.keyId} className="border-b border-slate-200">
                <td className="py-1 pr-3">{key.label}</td>
                <td className="py-1">{formatNumber(key.total)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </>
  );
}
