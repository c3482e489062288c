import Link from "next/link";
import { requireConsole } from "@/app/console/_lib/console";
import { formatNumber } from "@/components/console/format";
import { now } from "@/lib/clock";
import { alertsThisMonth } from "@/lib/ops/webhooks/alerts";
import { autoDisabledEndpoints, type EndpointSummary } from "@/lib/ops/webhooks/endpoints";
import { ConsoleNav } from "./console-nav";
import { SignOutButton } from "./sign-out-button";

export default async function SignedInLayout({ children }: { children: React.ReactNode }) {
  const { db, access } = await requireConsole();
  const [alerts, disabledEndpoints] = await Promise.all([
    alertsThisMonth(db, access.organisation.id, now()),
    autoDisabledEndpoints(db, access.organisation.id),
  ]);
  return (
    <div className="grid grid-cols-[minmax(0,1fr)] gap-6 md:grid-cols-[13rem_minmax(0,1fr)] md:gap-10">
      {/* A phone gets a compact bar (who, Sign out beside it, the pages below) above the page. */}
      <aside className="grid grid-cols-[minmax(0,1fr)_auto] items-start gap-x-3 border-b border-slate-200 pb-3 md:block md:border-r md:border-b-0 md:pr-6 md:pb-0">
        <div className="min-w-0">
          <p className="truncate font-semibold text-slate-900 md:whitespace-normal" data-testid="organisation-name">
            {access.organisation.name}
          </p>
          <p className="truncate text-sm text-slate-700 md:break-words md:whitespace-normal" title={access.user.email}>
            {access.user.email} · <span data-testid="role">{access.role}</span>
          </p>
        </div>
        <ConsoleNav />
        <SignOutButton className="col-start-2 row-start-1 md:mt-4" />
      </aside>
      <div className="min-w-0">
        {disabledEndpoints.length > 0 ? <DisabledEndpointsBanner endpoints={disabledEndpoints} /> : null}
        {alerts.length > 0 ? <UsageAlertBanner alerts={alerts} /> : null}
        {children}
      </div>
    </div>
  );
}

/** While an endpoint the service disabled after a day of failures is not enabled again. */
function DisabledEndpointsBanner({ endpoints }: { endpoints: EndpointSummary[] }) {
  return (
    <section
      aria-labelledby="disabled-endpoints-title"
      className="mb-6 rounded-lg border-2 border-red-600 bg-red-50 p-4"
      data-testid="disabled-endpoints-banner"
    >
      <h2 id="disabled-endpoints-title" className="font-semibold text-slate-900">
        {endpoints.length === 1 ? "A webhook endpoint was" : `${endpoints.length} webhook endpoints were`} disabled
        after a day of failed deliveries
      </h2>
      <ul className="mt-2 space-y-1 text-sm text-red-950">
        {endpoints.map((endpoint) => (
          <li key={endpoint.id} className="break-all">
            <span className="font-mono">{endpoint.url}</span>
          </li>
        ))}
      </ul>
      <p className="mt-2 text-sm text-slate-800">
        Nothing is posted to it until an admin enables it again on{" "}
        <Link href="/console/webhooks" className="text-pitch-700 underline">
          Webhooks
        </Link>
        , once the receiver answers.
      </p>
    </section>
  );
}

/** While the organisation's pool or any of its keys is past a usage threshold this month. */
function UsageAlertBanner({ alerts }: { alerts: Awaited<ReturnType<typeof alertsThisMonth>> }) {
  return (
    <section
      aria-labelledby="usage-alert-title"
      className="mb-6 rounded-lg border-2 border-amber-500 bg-amber-50 p-4"
      data-testid="usage-alert-banner"
    >
      <h2 id="usage-alert-title" className="font-semibold text-slate-900">
        Usage past a threshold this month
      </h2>
      <ul className="mt-2 space-y-1 text-sm text-amber-950">
        {alerts.map((alert) => (
          <li key={alert.keyId ?? "organisation"}>
            {alert.keyId === null ? (
              "Your organisation, its keys and members together"
            ) : (
              <>
                <span className="font-mono">{alert.hint}</span>
                {alert.name ? ` (${alert.name})` : ""}
              </>
            )}
            : {alert.threshold} % of its quota reached ({formatNumber(alert.requests)} of {formatNumber(alert.quota)}{" "}
            requests)
          </li>
        ))}
      </ul>
      <p className="mt-2 text-sm text-slate-800">
        <Link href="/console/usage" className="text-pitch-700 underline">
          Usage
        </Link>{" "}
        ·{" "}
        <Link href="/console/webhooks" className="text-pitch-700 underline">
          Webhooks
        </Link>
      </p>
    </section>
  );
}
