import "#server-only";
import { and, desc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import { z } from "zod";
import { recordAudit, type Actor } from "../../accounts/audit.ts";
import { outboxQueued, publish } from "../../bus/index.ts";
import { rowsOf, type Database } from "../../db/index.ts";
import { webhookAttempts, webhookDeliveries, webhookEndpoints, type DeliveryState } from "../../db/schema/index.ts";
import { DomainError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import { storeThresholds } from "./alerts.ts";
import { refusedUrl } from "./addresses.ts";
import { queueEvent } from "./events.ts";
import { ENDPOINTS_PER_ORGANISATION, TEST_SENDS_PER_MINUTE } from "./limits.ts";
import { normaliseThresholds } from "./thresholds.ts";

// An organisation's webhook endpoints, as its admins manage them in the console and the operator
// in the CLI: the same functions, the same rules, each change in the audit log.

export const endpointInput = z.object({
  url: z.string().trim().min(1, "Enter the endpoint's URL").max(2_000, "A URL of at most 2,000 characters"),
});

export type EndpointSummary = {
  id: string;
  url: string;
  enabled: boolean;
  createdAt: Date;
  secretRotatedAt: Date | null;
  /** When the service disabled it after a day of failures (null: enabled, or disabled by an admin). */
  autoDisabledAt: Date | null;
};

type Options = { actor: Actor; at: Date };

const summary = {
  id: webhookEndpoints.id,
  url: webhookEndpoints.url,
  enabled: webhookEndpoints.enabled,
  createdAt: webhookEndpoints.createdAt,
  secretRotatedAt: webhookEndpoints.secretRotatedAt,
  autoDisabledAt: webhookEndpoints.autoDisabledAt,
};

export function listEndpoints(db: Database, orgId: string): Promise<EndpointSummary[]> {
  return db
    .select(summary)
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.orgId, orgId))
    .orderBy(webhookEndpoints.createdAt);
}

/**
 * Holds the organisation's row until the transaction ends: its endpoint count and its minute's
 * test messages are counted and added to by one transaction at a time, across instances.
 */
async function lockOrganisation(tx: Database, orgId: string): Promise<void> {
  const [row] = rowsOf(await tx.execute(sql`select id from organisations where id = ${orgId} for update`));
  if (!row) throw new DomainError("not_found", `No organisation ${orgId}.`);
}

/** Adds an endpoint; its secret is in the answer and never again. */
export async function addEndpoint(
  db: Database,
  orgId: string,
  url: string,
  options: Options & { allowPrivate: boolean; secret: string },
): Promise<{ endpoint: EndpointSummary; secret: string }> {
  const refused = await refusedUrl(url, options.allowPrivate);
  if (refused) throw new DomainError("invalid_input", `The URL ${refused}.`);
  const id = newId("whe");
  const endpoint = await db.transaction(async (tx) => {
    await lockOrganisation(tx, orgId);
    const [{ count }] = (await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.orgId, orgId))) as [{ count: number }];
    if (count >= ENDPOINTS_PER_ORGANISATION)
      throw new DomainError(
        "conflict",
        `An organisation has at most ${ENDPOINTS_PER_ORGANISATION} webhook endpoints: remove one before adding another.`,
      );
    const [row] = await tx
      .insert(webhookEndpoints)
      .values({ id, orgId, url, secret: options.secret, createdAt: options.at, createdBy: options.actor.userId })
      .returning(summary);
    await recordAudit(tx, { orgId, actor: options.actor, action: "webhook.created", target: id, details: { url } });
    return row!;
  });
  return { endpoint, secret: options.secret };
}

async function changeEndpoint(
  db: Database,
  orgId: string | null,
  endpointId: string,
  change: PgUpdateSetSource<typeof webhookEndpoints>,
  audit: { action: "webhook.secret_rotated" | "webhook.disabled" | "webhook.enabled"; actor: Actor },
): Promise<EndpointSummary & { orgId: string }> {
  const scope = orgId
    ? and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.orgId, orgId))
    : eq(webhookEndpoints.id, endpointId);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(webhookEndpoints)
      .set(change)
      .where(scope)
      .returning({ ...summary, orgId: webhookEndpoints.orgId });
    if (!row)
      throw new DomainError("not_found", `No webhook endpoint ${endpointId}${orgId ? " in this organisation" : ""}.`);
    await recordAudit(tx, {
      orgId: row.orgId,
      actor: audit.actor,
      action: audit.action,
      target: endpointId,
      details: { url: row.url },
    });
    return row;
  });
}

/** How long a rotated secret keeps signing beside the new one. */
export const SECRET_OVERLAP_MS = 24 * 3_600_000;

/**
 * A new secret for the endpoint, shown this once: every delivery is signed with it from now on,
 * and with the one it replaces for SECRET_OVERLAP_MS more.
 */
export async function rotateSecret(
  db: Database,
  orgId: string | null,
  endpointId: string,
  options: Options & { secret: string },
): Promise<{ endpoint: EndpointSummary; secret: string }> {
  const endpoint = await changeEndpoint(
    db,
    orgId,
    endpointId,
    {
      secret: options.secret,
      secretRotatedAt: options.at,
      // The value before this update: SET reads the row as it was.
      previousSecret: sql`${webhookEndpoints.secret}`,
      previousSecretUntil: new Date(options.at.getTime() + SECRET_OVERLAP_MS),
    },
    { action: "webhook.secret_rotated", actor: options.actor },
  );
  return { endpoint, secret: options.secret };
}

/** Disables or enables an endpoint: a disabled one is queued nothing and posted nothing. */
export async function setEndpointEnabled(
  db: Database,
  orgId: string | null,
  endpointId: string,
  enabled: boolean,
  options: Options,
): Promise<EndpointSummary> {
  const endpoint = await changeEndpoint(
    db,
    orgId,
    endpointId,
    // Enabled again, or disabled by an admin: a run of failures starts afresh, and no banner.
    { enabled, failingSince: null, autoDisabledAt: null },
    {
      action: enabled ? "webhook.enabled" : "webhook.disabled",
      actor: options.actor,
    },
  );
  // What it held is due again.
  if (enabled) await publish(db, outboxQueued, "webhooks");
  return endpoint;
}

async function endpointOf(
  db: Database,
  orgId: string | null,
  endpointId: string,
): Promise<{ orgId: string; url: string }> {
  const scope = orgId
    ? and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.orgId, orgId))
    : eq(webhookEndpoints.id, endpointId);
  const [row] = await db
    .select({ orgId: webhookEndpoints.orgId, url: webhookEndpoints.url })
    .from(webhookEndpoints)
    .where(scope);
  if (!row)
    throw new DomainError("not_found", `No webhook endpoint ${endpointId}${orgId ? " in this organisation" : ""}.`);
  return row;
}

/** Queues a `webhook.test` message to the endpoint (enabled or not, it is posted once enabled). */
export async function sendTest(
  db: Database,
  orgId: string | null,
  endpointId: string,
  options: Options,
): Promise<string> {
  const endpoint = await endpointOf(db, orgId, endpointId);
  return db.transaction(async (tx) => {
    await lockOrganisation(tx, endpoint.orgId);
    const since = new Date(options.at.getTime() - 60_000);
    const [recent] = rowsOf<{ count: number; oldest: string | Date | null }>(
      await tx.execute(sql`
        select count(*)::int as count, min(d.created_at) as oldest
        from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
        where e.org_id = ${endpoint.orgId} and d.type = 'webhook.test' and d.created_at > ${since.toISOString()}::timestamptz`),
    );
    if (recent && recent.count >= TEST_SENDS_PER_MINUTE) {
      const waitS = Math.max(
        1,
        Math.ceil((new Date(recent.oldest!).getTime() + 60_000 - options.at.getTime()) / 1_000),
      );
      throw new DomainError(
        "throttled",
        `At most ${TEST_SENDS_PER_MINUTE} test messages a minute: try again in ${waitS} s.`,
      );
    }
    const [id] = await queueEvent(tx, {
      orgId: endpoint.orgId,
      type: "webhook.test",
      at: options.at,
      endpointId,
      data: { endpoint_id: endpointId, message: "A test message, sent from the console or the operator CLI." },
    });
    await recordAudit(tx, {
      orgId: endpoint.orgId,
      actor: options.actor,
      action: "webhook.test_sent",
      target: endpointId,
      details: { delivery: id },
    });
    return id!;
  });
}

export type DeliverySummary = {
  id: string;
  endpointId: string;
  type: string;
  createdAt: Date;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: Date | null;
  log: { at: Date; statusCode: number | null; error: string | null; latencyMs: number }[];
};

/** The endpoint's messages, newest first, each with its attempts in order. */
export async function listDeliveries(
  db: Database,
  orgId: string | null,
  endpointId: string,
  limit = 50,
): Promise<DeliverySummary[]> {
  await endpointOf(db, orgId, endpointId);
  const rows = await db
    .select({
      id: webhookDeliveries.id,
      endpointId: webhookDeliveries.endpointId,
      type: webhookDeliveries.type,
      createdAt: webhookDeliveries.createdAt,
      state: webhookDeliveries.state,
      attempts: webhookDeliveries.attempts,
      nextAttemptAt: webhookDeliveries.nextAttemptAt,
    })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.endpointId, endpointId))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit);
  if (rows.length === 0) return [];
  const attempts = await db
    .select()
    .from(webhookAttempts)
    .where(
      inArray(
        webhookAttempts.deliveryId,
        rows.map((row) => row.id),
      ),
    )
    .orderBy(webhookAttempts.at, webhookAttempts.id);
  return rows.map((row) => ({
    ...row,
    log: attempts
      .filter((attempt) => attempt.deliveryId === row.id)
      .map(({ at, statusCode, error, latencyMs }) => ({ at, statusCode, error, latencyMs })),
  }));
}

/** Sends a message again now, with its id and body: one more attempt, retried as a new one would be. */
export async function redeliver(
  db: Database,
  orgId: string | null,
  deliveryId: string,
  options: Options,
): Promise<void> {
  await db.transaction(async (tx) => {
    const scoped = orgId ? sql`and e.org_id = ${orgId}` : sql``;
    const [row] = rowsOf<{ org_id: string; endpoint_id: string }>(
      await tx.execute(sql`
        update webhook_deliveries d set state = 'pending', next_attempt_at = ${options.at.toISOString()}::timestamptz
        from webhook_endpoints e where e.id = d.endpoint_id and d.id = ${deliveryId} ${scoped}
        returning e.org_id, e.id as endpoint_id`),
    );
    if (!row)
      throw new DomainError("not_found", `No webhook message ${deliveryId}${orgId ? " in this organisation" : ""}.`);
    await recordAudit(tx, {
      orgId: row.org_id,
      actor: options.actor,
      action: "webhook.redelivered",
      target: deliveryId,
      details: { endpoint: row.endpoint_id },
    });
    await publish(tx, outboxQueued, "webhooks");
  });
}

/** Sets the organisation's usage thresholds, percent of each key's monthly quota. */
export async function setThresholds(
  db: Database,
  orgId: string,
  values: number[],
  options: Options,
): Promise<number[]> {
  let thresholds: number[];
  try {
    thresholds = normaliseThresholds(values);
  } catch (error) {
    throw new DomainError("invalid_input", (error as Error).message);
  }
  await db.transaction(async (tx) => {
    await storeThresholds(tx, orgId, thresholds);
    await recordAudit(tx, { orgId, actor: options.actor, action: "usage.thresholds_set", details: { thresholds } });
  });
  return thresholds;
}

/** The organisation's endpoints the service disabled after a day of failures, for the console's banner. */
export async function autoDisabledEndpoints(db: Database, orgId: string): Promise<EndpointSummary[]> {
  return db
    .select(summary)
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.orgId, orgId), isNotNull(webhookEndpoints.autoDisabledAt)))
    .orderBy(webhookEndpoints.createdAt);
}
