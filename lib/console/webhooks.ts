// The console's webhook changes, in the order of lib/console/actions.ts: the caller's membership and
// role read now, the input checked, then the change, scoped to the caller's organisation.
import "#server-only";
import { z } from "zod";
import type { Database } from "../db/index.ts";
import {
  addEndpoint,
  endpointInput,
  redeliver,
  rotateSecret,
  sendTest,
  setEndpointEnabled,
  setThresholds,
} from "../ops/webhooks/endpoints.ts";
import { newSecret } from "../ops/webhooks/signature.ts";
import { requireStepUp } from "../accounts/factors/step-up.ts";
import { requireAdmin } from "./access.ts";
import type { Fields } from "./actions.ts";

/** A secret as the show-once view receives it: the one response that carries it. */
export type ShownOnceSecret = { endpointId: string; url: string; secret: string };

const endpointRef = z.object({ endpointId: z.string().min(1, "No endpoint given").max(40) });
const deliveryRef = z.object({ deliveryId: z.string().min(1, "No message given").max(40) });
const enabledChoice = endpointRef.extend({ enabled: z.enum(["0", "1"]) });
const thresholdsInput = z.object({
  thresholds: z
    .string()
    .min(1, "Enter one or more percentages, e.g. 80, 95, 100")
    .max(60)
    .transform((text) =>
      text
        .split(/[\s,]+/)
        .filter(Boolean)
        .map(Number),
    ),
});

export async function addWebhookFor(
  db: Database,
  userId: string | null,
  fields: Fields,
  { sessionId, ...options }: { at: Date; allowPrivate: boolean; sessionId?: string | null },
): Promise<ShownOnceSecret> {
  const access = await requireAdmin(db, userId);
  const { url } = endpointInput.parse(fields);
  await requireStepUp(db, access.user.id, sessionId, options.at);
  const { endpoint, secret } = await addEndpoint(db, access.organisation.id, url, {
    actor: access.actor,
    secret: newSecret(),
    ...options,
  });
  return { endpointId: endpoint.id, url: endpoint.url, secret };
}

export async function rotateWebhookSecretFor(
  db: Database,
  userId: string | null,
  fields: Fields,
  options: { at: Date },
): Promise<ShownOnceSecret> {
  const access = await requireAdmin(db, userId);
  const { endpointId } = endpointRef.parse(fields);
  const { endpoint, secret } = await rotateSecret(db, access.organisation.id, endpointId, {
    actor: access.actor,
    secret: newSecret(),
    ...options,
  });
  return { endpointId: endpoint.id, url: endpoint.url, secret };
}

export async function setWebhookEnabledFor(db: Database, userId: string | null, fields: Fields, options: { at: Date }) {
  const access = await requireAdmin(db, userId);
  const { endpointId, enabled } = enabledChoice.parse(fields);
  await setEndpointEnabled(db, access.organisation.id, endpointId, enabled === "1", {
    actor: access.actor,
    ...options,
  });
  return null;
}

export async function sendWebhookTestFor(db: Database, userId: string | null, fields: Fields, options: { at: Date }) {
  const access = await requireAdmin(db, userId);
  const { endpointId } = endpointRef.parse(fields);
  return sendTest(db, access.organisation.id, endpointId, { actor: access.actor, ...options });
}

export async function redeliverFor(db: Database, userId: string | null, fields: Fields, options: { at: Date }) {
  const access = await requireAdmin(db, userId);
  const { deliveryId } = deliveryRef.parse(fields);
  await redeliver(db, access.organisation.id, deliveryId, { actor: access.actor, ...options });
  return null;
}

export async function setThresholdsFor(db: Database, userId: string | null, fields: Fields, options: { at: Date }) {
  const access = await requireAdmin(db, userId);
  const { thresholds } = thresholdsInput.parse(fields);
  return setThresholds(db, access.organisation.id, thresholds, { actor: access.actor, ...options });
}
