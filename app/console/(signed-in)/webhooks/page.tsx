import type { Metadata } from "next";
import { requireConsole } from "@/app/console/_lib/console";
import { PageHeader, ViewerNotice } from "@/components/console/page-header";
import { organisationThresholds } from "@/lib/ops/webhooks/alerts";
import { listDeliveries, listEndpoints, type DeliverySummary } from "@/lib/ops/webhooks/endpoints";
import { AddEndpoint, EndpointActions, SendAgain, ThresholdsForm } from "./webhook-forms";
import { Time } from "@/components/display-settings";

export const metadata: Metadata = { title: "Webhooks" };

const STATE_STYLE = {
  pending: "bg-amber-50 text-amber-950 border-amber-500",
  delivered: "bg-pitch-50 text-pitch-900 border-pitch-600",
  failed: "bg-red-50 text-red-900 border-red-300",
};

export default async function WebhooksPage() {
  const { db, access } = await requireConsole();
  const orgId = access.organisation.id;
  const endpoints = await listEndpoints(db, orgId);
  const logs = await Promise.all(endpoints.map((endpoint) => listDeliveries(db, orgId, endpoint.id, 20)));
  const thresholds = await organisationThresholds(db, orgId);
  const canEdit = access.role === "admin";
  return (
    <>
      <PageHeader title="Webhooks">
        Usage alerts at {thresholds.join(", ")} % of each key&apos;s monthly quota, expiring and revoked keys, posted to
        your endpoints as Standard Webhooks, signed with each endpoint&apos;s secret and tried again for a day.
      </PageHeader>
      {canEdit ? null : <ViewerNotice what="the endpoints and their log" />}
      <div className="mt-6 grid gap-6 lg:grid-cols-2">
        {canEdit ? (
          <section aria-labelledby="add-endpoint-title" className="rounded-lg border border-slate-300 p-4">
            <h2 id="add-endpoint-title" className="text-lg font-semibold text-slate-900">
              Add an endpoint
            </h2>
            <AddEndpoint />
          </section>
        ) : null}
        <section aria-labelledby="thresholds-title" className="rounded-lg border border-slate-300 p-4">
          <h2 id="thresholds-title" className="text-lg font-semibold text-slate-900">
            Usage thresholds
          </h2>
          {canEdit ? (
            <ThresholdsForm thresholds={thresholds} />
          ) : (
            <p className="mt-2 text-sm text-slate-800">{thresholds.join(", ")} % of each key&apos;s monthly quota.</p>
          )}
        </section>
      </div>
      <section aria-labelledby="endpoints-title" className="mt-8">
        <h2 id="endpoints-title" className="text-lg font-semibold text-slate-900">
          Endpoints
        </h2>
        {endpoints.length === 0 ? (
          <p className="mt-2 text-sm text-slate-700">No endpoints yet.</p>
        ) : (
          <ul className="mt-3 space-y-4" data-testid="endpoint-list">
            {endpoints.map((endpoint, i) => (
              <li
                key={endpoint.id}
                className="rounded-lg border border-slate-300 p-4"
                data-testid="endpoint-item"
                data-endpoint-id={endpoint.id}
              >
                <div className="flex flex-wrap items-center justify-between gap-2">
                  <p className="font-mono text-sm font-semibold break-all text-slate-900">{endpoint.url}</p>
                  <span
                    className={`rounded-full border px-2 py-0.5 text-xs font-medium ${endpoint.enabled ? STATE_STYLE.delivered : STATE_STYLE.failed}`}
                    data-testid="endpoint-status"
                  >
                    {endpoint.enabled
                      ? "enabled"
                      : endpoint.autoDisabledAt
                        ? "disabled after a day of failures"
                        : "disabled"}
                  </span>
                </div>
                <p className="mt-1 text-sm text-slate-700">
                  Added <Time at={endpoint.createdAt} />
                  {endpoint.secretRotatedAt ? (
                    <>
                      ; secret rotated <Time at={endpoint.secretRotatedAt} />
                    </>
                  ) : null}
                </p>
                {canEdit ? (
                  <div className="mt-3">
                    <EndpointActions endpointId={endpoint.id} enabled={endpoint.enabled} />
                  </div>
                ) : null}
                <DeliveryLog deliveries={logs[i]!} canEdit={canEdit} />
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}

function DeliveryLog({ deliveries, canEdit }: { deliveries: DeliverySummary[]; canEdit: boolean }) {
  if (deliveries.length === 0) return <p className="mt-3 text-sm text-slate-700">No messages yet.</p>;
  return (
    <div className="mt-4">
      <h3 className="font-medium text-slate-900">Delivery log</h3>
      <ul className="mt-2 space-y-2" data-testid="delivery-log">
        {deliveries.map((delivery) => (
          <li
            key={delivery.id}
            className="rounded-md border border-slate-200 p-3 text-sm"
            data-testid="delivery"
            data-state={delivery.state}
          >
            <div className="flex flex-wrap items-center justify-between gap-2">
              <p className="text-slate-900">
                <span className="font-mono">{delivery.type}</span>{" "}
                <span className="text-slate-700">
                  · <Time at={delivery.createdAt} />
                </span>
              </p>
              <span className={`rounded-full border px-2 py-0.5 text-xs font-medium ${STATE_STYLE[delivery.state]}`}>
                {delivery.state}
              </span>
            </div>
            <p className="mt-1 font-mono text-xs break-all text-slate-700">{delivery.id}</p>
            {delivery.log.length > 0 ? (
              <ol className="mt-2 space-y-1 text-slate-800">
                {delivery.log.map((attempt, n) => (
                  <li key={n}>
                    <Time at={attempt.at} />: {attempt.statusCode ?? attempt.error ?? "no answer"} in{" "}
                    {attempt.latencyMs} ms
                  </li>
                ))}
              </ol>
            ) : null}
            {delivery.state === "pending" && delivery.nextAttemptAt ? (
              <p className="mt-1 text-slate-700">
                Next attempt <Time at={delivery.nextAttemptAt} />
              </p>
            ) : null}
            {canEdit && delivery.state !== "pending" ? (
              <div className="mt-2">
                <SendAgain deliveryId={delivery.id} />
              </div>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}
