import type { Metadata } from "next";
import { Time } from "@/components/display-settings";
import { currentInstance } from "@/lib/instance";
import type { ComponentState, StatusReport } from "@/lib/ops/status/report";

export const metadata: Metadata = { title: "Status" };

// The public status page: each component's state now, its availability over a day, a week and a
// month, latencies as measured, and incidents. The same document is at /status.json.

const STATE: Record<ComponentState, { label: string; className: string }> = {
  operational: { label: "Operational", className: "bg-emerald-100 text-emerald-900" },
  degraded: { label: "Degraded", className: "bg-amber-100 text-amber-900" },
  down: { label: "Down", className: "bg-red-100 text-red-900" },
};

const HEADLINE: Record<ComponentState, string> = {
  operational: "All systems operational",
  degraded: "Some systems degraded",
  down: "Service disruption",
};

const percent = (value: number | null) => (value === null ? "—" : `${value.toFixed(value === 100 ? 0 : 2)} %`);
const ms = (value: number | null) => (value === null ? "—" : `${value < 10 ? value.toFixed(1) : Math.round(value)} ms`);

function Badge({ state }: { state: ComponentState }) {
  return (
    <span className={`rounded px-2 py-0.5 text-xs font-semibold ${STATE[state].className}`}>{STATE[state].label}</span>
  );
}

type Window = "24h" | "7d" | "30d";
const WINDOWS: { id: Window; label: string; days: number }[] = [
  { id: "24h", label: "24 hours", days: 1 },
  { id: "7d", label: "7 days", days: 7 },
  { id: "30d", label: "30 days", days: 30 },
];

/**
 * The availability columns: each window observed whole, then, when the records begin inside the
 * longest, one column for the time since they begin (every window reaching back further would show
 * the same figure, as if it had been observed).
 */
function columns(report: StatusReport): { id: Window; since: string | null; label: string }[] {
  // Nothing recorded yet (the first minute of a first start): observed since now.
  const since = report.observed_since ?? report.updated_at;
  const now = Date.parse(report.updated_at);
  const whole = WINDOWS.filter((w) => Date.parse(since) <= now - w.days * 86_400_000);
  if (whole.length === WINDOWS.length) return WINDOWS.map((w) => ({ ...w, since: null }));
  return [...whole.map((w) => ({ ...w, since: null })), { id: "30d", label: "Since", since }];
}

export default async function StatusPage() {
  const report: StatusReport = await currentInstance().status.report();
  const shown = columns(report);
  return (
    <div className="space-y-8">
      <header className="space-y-2">
        <h1 className="text-3xl font-semibold tracking-tight">Status</h1>
        <p className="flex flex-wrap items-center gap-3 text-lg" data-testid="status-headline">
          <Badge state={report.status} /> {HEADLINE[report.status]}
        </p>
        <p className="text-sm text-slate-600">
          Updated <Time at={report.updated_at} />. Figures from each instance&apos;s minute records; the same document
          is at{" "}
          <a className="underline" href="/status.json">
            /status.json
          </a>
          .
        </p>
        {report.database_reachable ? null : (
          <p role="alert" className="rounded border border-red-300 bg-red-50 p-3 text-sm text-red-900">
            This instance cannot reach its database: the figures below are from its last reading.
          </p>
        )}
      </header>

      <section aria-labelledby="components" className="space-y-3">
        <h2 id="components" className="text-xl font-semibold">
          Components
        </h2>
        {/* Scrolls on a narrow screen, so the keyboard can reach it too. */}
        <div className="overflow-x-auto" tabIndex={0} role="region" aria-label="Components">
          <table className="w-full text-left text-sm" data-testid="status-components">
            <caption className="sr-only">Each component&apos;s state now and its availability</caption>
            <thead className="border-b border-slate-200 text-slate-600">
              <tr>
                <th scope="col" className="py-2 pr-4 font-medium">
                  Component
                </th>
                <th scope="col" className="py-2 pr-4 font-medium">
                  Now
                </th>
                {shown.map((column, index) => (
                  <th
                    key={column.label}
                    scope="col"
                    className={`py-2 text-right font-medium ${index < shown.length - 1 ? "pr-4" : ""}`}
                  >
                    {column.since ? (
                      <>
                        Since <Time at={column.since} />
                      </>
                    ) : (
                      column.label
                    )}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {report.components.map((component) => (
                <tr key={component.id} data-component={component.id} className="border-b border-slate-100">
                  <th scope="row" className="py-2 pr-4 font-medium">
                    {component.name}
                  </th>
                  <td className="py-2 pr-4">
                    <Badge state={component.state} />
                  </td>
                  {shown.map((column, index) => (
                    <td
                      key={column.label}
                      className={`py-2 text-right tabular-nums ${index < shown.length - 1 ? "pr-4" : ""}`}
                    >
                      {percent(component.availability[column.id])}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p className="text-xs text-slate-600">
          A minute counts as available when readiness held on every instance and, for a sport&apos;s feed, its newest
          change was no older than the sport allows while it had events in play: a minute for the clock sports, longer
          for those that are quiet by nature (three minutes for tennis and baseball, five and a half for Counter-Strike
          2, between maps); an event in a break (half time, an intermission, between innings) is not expected to change.
        </p>
      </section>

      <section aria-labelledby="latency" className="space-y-3">
        <h2 id="latency" className="text-xl font-semibold">
          Measured in the last hour
        </h2>
        <dl className="grid grid-cols-1 gap-3 sm:grid-cols-3" data-testid="status-latency">
          <div className="rounded border border-slate-200 p-3">
            <dt className="text-sm text-slate-600">REST latency, median</dt>
            <dd className="text-2xl font-semibold tabular-nums">{ms(report.latency.rest_p50_ms)}</dd>
          </div>
          <div className="rounded border border-slate-200 p-3">
            <dt className="text-sm text-slate-600">REST latency, 95th percentile</dt>
            <dd className="text-2xl font-semibold tabular-nums">{ms(report.latency.rest_p95_ms)}</dd>
          </div>
          <div className="rounded border border-slate-200 p-3">
            <dt className="text-sm text-slate-600">Stream lag, 95th percentile</dt>
            <dd className="text-2xl font-semibold tabular-nums">{ms(report.latency.stream_lag_p95_ms)}</dd>
          </div>
        </dl>
        <p className="text-xs text-slate-600">
          Latency is the server&apos;s time to answer; stream lag runs from a change&apos;s commit to the streams of the
          instance.
        </p>
      </section>

      <section aria-labelledby="incidents" className="space-y-3">
        <h2 id="incidents" className="text-xl font-semibold">
          Incidents
        </h2>
        {report.incidents.length === 0 ? (
          <p className="text-sm text-slate-600">No incidents in the last 7 days.</p>
        ) : (
          <ol className="space-y-4" data-testid="status-incidents">
            {report.incidents.map((incident) => (
              <li key={incident.id} className="rounded border border-slate-200 p-4">
                <h3 className="font-semibold">{incident.title}</h3>
                <p className="text-sm text-slate-600">
                  {incident.state === "resolved" ? "Resolved" : `Ongoing (${incident.state})`} · affects{" "}
                  {incident.components.join(", ")} · since <Time at={incident.started_at} />
                </p>
                <ol className="mt-2 space-y-1 text-sm">
                  {[...incident.updates].reverse().map((update) => (
                    <li key={update.at}>
                      <span className="font-medium">
                        <Time at={update.at} />
                      </span>
                      , {update.state}: {update.text}
                    </li>
                  ))}
                </ol>
              </li>
            ))}
          </ol>
        )}
      </section>
    </div>
  );
}
