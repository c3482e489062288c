// Usage alerts and the organisations' webhook endpoints (docs/webhooks.md): thresholds decided from
// the meter's counts, recorded once across instances, and delivered as Standard Webhooks.
import type { Config } from "../../config.ts";
import type { Database } from "../../db/index.ts";
import { UsageAlerts } from "./alerts.ts";
import { WebhookWorker } from "./worker.ts";

export { alertsThisMonth, storeThresholds, UsageAlerts } from "./alerts.ts";
export { queueEvent, EVENT_TYPES, type EventType } from "./events.ts";
export { DEFAULT_THRESHOLDS, normaliseThresholds } from "./thresholds.ts";
export { WebhookWorker, type WebhookSettings } from "./worker.ts";

/** An instance's usage alerts and webhook worker. */
export type Webhooks = {
  alerts: UsageAlerts;
  worker: WebhookWorker;
  allowPrivate: boolean;
  /** An organisation's thresholds changed: read them again, and judge every key by them. */
  thresholdsChanged(): Promise<void>;
  stop(): Promise<void>;
};

/** The alerts, read before the meter starts (it watches with them); the worker starts with `run`. */
export async function prepareWebhooks(
  db: Database,
  config: Pick<Config, "WEBHOOKS_ALLOW_PRIVATE" | "WEBHOOKS_RETRY_BASE_MS">,
  now: () => Date,
): Promise<Webhooks & { run(rewatch: () => void): void }> {
  const alerts = new UsageAlerts(db);
  await alerts.load();
  const allowPrivate = config.WEBHOOKS_ALLOW_PRIVATE === "1";
  const worker = new WebhookWorker(db, alerts, { allowPrivate, retryBaseMs: config.WEBHOOKS_RETRY_BASE_MS }, now);
  let rewatchKeys = () => {};
  return {
    alerts,
    worker,
    allowPrivate,
    async thresholdsChanged() {
      await alerts.load();
      rewatchKeys();
    },
    run(rewatch) {
      rewatchKeys = rewatch;
      worker.start();
    },
    stop: () => worker.stop(),
  };
}
