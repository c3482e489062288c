// The operator CLI's webhook commands: the console's Webhooks page, for any organisation, with the
// same functions and rules.
import { OPERATOR } from "../../accounts/audit.ts";
import type { Database } from "../../db/index.ts";
import { findOrganisation } from "../../accounts/organisations.ts";
import {
  addEndpoint,
  listDeliveries,
  listEndpoints,
  redeliver,
  rotateSecret,
  sendTest,
  setEndpointEnabled,
  setThresholds,
  type DeliverySummary,
  type EndpointSummary,
} from "../webhooks/endpoints.ts";
import { newSecret } from "../webhooks/signature.ts";
import { organisationThresholds } from "../webhooks/alerts.ts";

export const WEBHOOK_USAGE = `  webhook add --org ORG --url URL
  webhook list --org ORG
  webhook rotate --id ENDPOINT_ID
  webhook disable --id ENDPOINT_ID
  webhook enable --id ENDPOINT_ID
  webhook test --id ENDPOINT_ID
  webhook log --id ENDPOINT_ID
  webhook resend --id MESSAGE_ID
  webhook thresholds --org ORG [--set 80,95,100]`;

type Output = { json: unknown; text: string };
type Arg = (name: string) => string;
type Optional = (name: string) => string | undefined;

const time = (date: Date | null) => (date ? date.toISOString() : "-");

function endpointLine(endpoint: EndpointSummary): string {
  return `${endpoint.id}  ${endpoint.url}  ${endpoint.enabled ? "enabled" : "disabled"}  created=${time(endpoint.createdAt)}  secret-rotated=${time(endpoint.secretRotatedAt)}`;
}

function deliveryLines(delivery: DeliverySummary): string {
  const attempts = delivery.log.map(
    (a) => `    ${time(a.at)}  ${a.statusCode ?? a.error ?? "no answer"}  ${a.latencyMs} ms`,
  );
  const next = delivery.state === "pending" ? `  next=${time(delivery.nextAttemptAt)}` : "";
  return [
    `${delivery.id}  ${delivery.type}  ${delivery.state}  created=${time(delivery.createdAt)}${next}`,
    ...attempts,
  ].join("\n");
}

function shownSecret(endpoint: EndpointSummary, secret: string, what: string): Output {
  return {
    json: { ...endpoint, secret },
    text: [
      `${what} ${endpoint.id} (${endpoint.url}). Its signing secret:`,
      "",
      `  ${secret}`,
      "",
      "This is the only time the secret is shown: give it to the receiver now.",
    ].join("\n"),
  };
}

/** Runs a `webhook …` command, or answers undefined for any other. */
export async function runWebhookCommand(
  db: Database,
  command: string,
  arg: { required: Arg; optional: Optional },
  settings: { at: Date; allowPrivate: boolean },
): Promise<Output | undefined> {
  const context = { actor: OPERATOR, at: settings.at };
  switch (command) {
    case "webhook add": {
      const org = await findOrganisation(db, arg.required("org"));
      const { endpoint, secret } = await addEndpoint(db, org.id, arg.required("url"), {
        ...context,
        allowPrivate: settings.allowPrivate,
        secret: newSecret(),
      });
      return shownSecret(endpoint, secret, `Added endpoint for ${org.name}:`);
    }
    case "webhook list": {
      const org = await findOrganisation(db, arg.required("org"));
      const endpoints = await listEndpoints(db, org.id);
      return { json: endpoints, text: endpoints.map(endpointLine).join("\n") || `${org.name} has no endpoints.` };
    }
    case "webhook rotate": {
      const { endpoint, secret } = await rotateSecret(db, null, arg.required("id"), {
        ...context,
        secret: newSecret(),
      });
      return shownSecret(endpoint, secret, "New secret for");
    }
    case "webhook disable":
    case "webhook enable": {
      const enabled = command === "webhook enable";
      const endpoint = await setEndpointEnabled(db, null, arg.required("id"), enabled, context);
      return { json: endpoint, text: `${enabled ? "Enabled" : "Disabled"} ${endpointLine(endpoint)}` };
    }
    case "webhook test": {
      const id = await sendTest(db, null, arg.required("id"), context);
      return { json: { messageId: id }, text: `Queued test message ${id}.` };
    }
    case "webhook log": {
      const deliveries = await listDeliveries(db, null, arg.required("id"));
      return { json: deliveries, text: deliveries.map(deliveryLines).join("\n") || "No messages yet." };
    }
    case "webhook resend": {
      const id = arg.required("id");
      await redeliver(db, null, id, context);
      return { json: { messageId: id }, text: `Message ${id} is sent again now.` };
    }
    case "webhook thresholds": {
      const org = await findOrganisation(db, arg.required("org"));
      const set = arg.optional("set");
      const thresholds = set
        ? await setThresholds(
            db,
            org.id,
            set
              .split(/[\s,]+/)
              .filter(Boolean)
              .map(Number),
            context,
          )
        : await organisationThresholds(db, org.id);
      return {
        json: { orgId: org.id, thresholds },
        // Running instances read thresholds every half minute.
        text: `${org.name}'s usage thresholds: ${thresholds.join(", ")} % of each key's monthly quota.`,
      };
    }
    default:
      return undefined;
  }
}
