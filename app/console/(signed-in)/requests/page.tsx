import type { Metadata } from "next";
import Link from "next/link";
import { requireConsole } from "@/app/console/_lib/console";
import { PageHeader } from "@/components/console/page-header";
import { API_ERRORS } from "@/lib/api/request/error-codes";
import { requestLogFor, type RequestSearch } from "@/lib/console/requests";
import { Time } from "@/components/display-settings";

export const metadata: Metadata = { title: "Requests" };

// The form is a GET: a search is a read, and its address can be shared with a colleague.
const fieldClass =
  "mt-1 block w-full rounded-md border border-slate-400 bg-white px-3 py-2 text-base text-slate-900 focus:border-pitch-700 focus:outline-2 focus:outline-pitch-600";
const buttonClass =
  "inline-flex min-h-11 items-center justify-center rounded-md bg-pitch-700 px-4 py-2 font-medium text-white hover:bg-pitch-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-pitch-600";

const STATUSES: [value: string, label: string][] = [
  ["", "Any"],
  ["refused", "Refused (4xx and 5xx)"],
  ["4xx", "4xx"],
  ["5xx", "5xx"],
  ["2xx", "2xx (a sample)"],
  ...[400, 401, 403, 404, 405, 410, 429, 500, 503].map((status): [string, string] => [String(status), String(status)]),
];

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

function statusClass(status: number): string {
  if (status >= 500) return "bg-red-100 text-red-900";
  if (status >= 400) return "bg-amber-100 text-amber-900";
  return "bg-pitch-50 text-pitch-900";
}

// GET /console/requests: the organisation's request log, searched by key, status, code or request id.
export default async function RequestsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { db, access } = await requireConsole();
  const params = await searchParams;
  const search: RequestSearch = {
    id: one(params.id),
    key: one(params.key),
    status: one(params.status),
    code: one(params.code),
  };
  const view = await requestLogFor(db, access.organisation.id, search);
  const filtered = Object.values(search).some((value) => value);
  return (
    <>
      <PageHeader title="Requests">
        Your keys&apos; refused requests (4xx and 5xx), and the first answered request of each key in each minute, kept
        7 days. Paths are shown without keys or tokens. Every error&apos;s{" "}
        <code className="rounded bg-slate-100 px-1">request_id</code> finds its request here.
      </PageHeader>
      <div role="search" aria-label="Search the request log" className="mb-6">
        <form method="get" action="/console/requests" className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          <div className="sm:col-span-2 lg:col-span-4">
            <label htmlFor="request-id" className="block text-sm font-medium text-slate-900">
              Request id
            </label>
            <input
              id="request-id"
              name="id"
              type="search"
              defaultValue={search.id ?? ""}
              placeholder="req_…"
              autoComplete="off"
              spellCheck={false}
              className={`${fieldClass} font-mono`}
            />
          </div>
          <div>
            <label htmlFor="request-key" className="block text-sm font-medium text-slate-900">
              Key
            </label>
            <select id="request-key" name="key" defaultValue={search.key ?? ""} className={fieldClass}>
              <option value="">Any key</option>
              {view.keys.map((key) => (
                <option key={key.id} value={key.id}>
                  {key.label}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor="request-status" className="block text-sm font-medium text-slate-900">
              Status
            </label>
            <select id="request-status" name="status" defaultValue={search.status ?? ""} className={fieldClass}>
              {STATUSES.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor="request-code" className="block text-sm font-medium text-slate-900">
              Code
            </label>
            <select id="request-code" name="code" defaultValue={search.code ?? ""} className={fieldClass}>
              <option value="">Any</option>
              {Object.keys(API_ERRORS).map((code) => (
                <option key={code} value={code}>
                  {code}
                </option>
              ))}
            </select>
          </div>
          <div className="flex items-end gap-4">
            <button type="submit" className={buttonClass}>
              Search
            </button>
            {filtered ? (
              <Link href="/console/requests" className="py-2 text-pitch-700 underline underline-offset-4">
                Clear
              </Link>
            ) : null}
          </div>
        </form>
      </div>
      {view.problem ? (
        <p role="alert" className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900">
          {view.problem}
        </p>
      ) : (
        <p role="status" className="mb-3 text-sm text-slate-700" data-testid="requests-count">
          {view.rows.length === 0
            ? filtered
              ? "No logged request matches."
              : "No requests logged in the last 7 days."
            : `${view.rows.length} ${view.rows.length === 1 ? "request" : "requests"}, newest first${view.rows.length === 100 ? " (the latest 100)" : ""}.`}
        </p>
      )}
      <ol className="divide-y divide-slate-200 border-y border-slate-200" data-testid="request-log">
        {view.rows.map((row) => (
          <li key={row.requestId} className="space-y-1 py-3 text-sm" data-testid="request-entry">
            <p className="flex flex-wrap items-baseline gap-x-2">
              <span
                className={`rounded px-1.5 font-mono font-semibold ${statusClass(row.status)}`}
                data-testid="request-status"
              >
                {row.status}
              </span>
              {row.code ? (
                <a
                  href={`/docs/errors#${row.code}`}
                  className="font-mono text-pitch-700 underline underline-offset-4"
                  data-testid="request-code"
                >
                  {row.code}
                </a>
              ) : null}
              <span className="font-mono break-all text-slate-900" data-testid="request-path">
                {row.method} {row.path}
              </span>
            </p>
            <p className="text-slate-700">
              <Time at={row.at} /> ·{" "}
              <span data-testid="request-key">{row.keyName ? `${row.keyName} (${row.keyHint})` : row.keyHint}</span> ·{" "}
              {row.latencyMs} ms ·{" "}
              <span className="font-mono break-all" data-testid="request-id">
                {row.requestId}
              </span>
            </p>
          </li>
        ))}
      </ol>
    </>
  );
}
