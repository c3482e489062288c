import { and, eq } from "drizzle-orm";
import { outboxQueued, publish } from "../../bus/index.ts";
import type { Database } from "../../db/index.ts";
import { webhookDeliveries, webhookEndpoints } from "../../db/schema/index.ts";
import { newId } from "../../ids.ts";
import { alertOfEvent } from "../../accounts/mail/alerts.ts";

/** The events an organisation's endpoints receive; `webhook.test` only when an admin sends one. */
export const EVENT_TYPES = ["usage.threshold_reached", "key.expiring", "key.revoked", "webhook.test"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** A message's body as Standard Webhooks shapes it. */
export function eventBody(type: EventType, at: Date, data: Record<string, unknown>): string {
  return JSON.stringify({ type, timestamp: at.toISOString(), data });
}

/**
 * Queues an event for each enabled endpoint of the organisation (or only `endpointId`), due at
 * once, in the caller's transaction: the event and what caused it commit together, and the workers
 * hear of it when they do. Returns the deliveries' ids.
 */
export async function queueEvent(
  db: Database,
  event: { orgId: string; type: EventType; at: Date; data: Record<string, unknown>; endpointId?: string },
): Promise<string[]> {
  const scope = event.endpointId
    ? and(eq(webhookEndpoints.orgId, event.orgId), eq(webhookEndpoints.id, event.endpointId))
    : and(eq(webhookEndpoints.orgId, event.orgId), eq(webhookEndpoints.enabled, true));
  // The admins hear of it by mail too (not of a test message, which only endpoints receive).
  if (event.type !== "webhook.test" && !event.endpointId) await alertOfEvent(db, event);
  const endpoints = await db.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(scope);
  if (endpoints.length === 0) return [];
  const body = eventBody(event.type, event.at, event.data);
  const rows = endpoints.map((endpoint) => ({
    id: newId("msg"),
    endpointId: endpoint.id,
    type: event.type,
    body,
    createdAt: event.at,
    nextAttemptAt: event.at,
  }));
  await db.insert(webhookDeliveries).values(rows);
  await publish(db, outboxQueued, "webhooks");
  return rows.map((row) => row.id);
}
