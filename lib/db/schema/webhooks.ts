import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  date,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { createdAt, sqlList, timestampTz } from "./columns.ts";
import { organisations, users } from "./accounts.ts";
import { apiKeys } from "./keys.ts";

/** The thresholds (percent of each key's monthly quota) at which an organisation is alerted. */
export const usageAlertSettings = pgTable(
  "usage_alert_settings",
  {
    orgId: text("org_id")
      .primaryKey()
      .references(() => organisations.id, { onDelete: "cascade" }),
    thresholds: integer("thresholds").array().notNull(),
  },
  (t) => [
    check(
      "usage_alert_settings_thresholds_check",
      sql`cardinality(${t.thresholds}) between 1 and 10 and 1 <= all(${t.thresholds}) and 100 >= all(${t.thresholds})`,
    ),
  ],
);

/**
 * A key's count crossed a threshold of its quota in a month, or the organisation's pooled count
 * one of the plan's (key_id null): recorded once per key (or organisation), threshold and month by
 * whichever instance saw it first (the unique indexes), which also queues its deliveries.
 */
export const usageAlerts = pgTable(
  "usage_alerts",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    orgId: text("org_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    keyId: text("key_id").references(() => apiKeys.id, { onDelete: "cascade" }),
    month: date("month").notNull(),
    threshold: integer("threshold").notNull(),
    requests: bigint("requests", { mode: "number" }).notNull(),
    quota: bigint("quota", { mode: "number" }).notNull(),
    reachedAt: timestampTz("reached_at").notNull(),
  },
  (t) => [
    uniqueIndex("usage_alerts_once_key").on(t.keyId, t.month, t.threshold),
    uniqueIndex("usage_alerts_once_org")
      .on(t.orgId, t.month, t.threshold)
      .where(sql`key_id is null`),
    // The console's banner: this month's alerts of an organisation.
    index("usage_alerts_org_month_idx").on(t.orgId, t.month),
  ],
);

/** A key's coming expiry was announced (`key.expiring`): once per key and expiry. */
export const keyExpiryNotices = pgTable(
  "key_expiry_notices",
  {
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    expiresAt: timestampTz("expires_at").notNull(),
    noticedAt: timestampTz("noticed_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.expiresAt] })],
);

/** Where an organisation's events are posted, signed with its secret (Standard Webhooks). */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    // `whsec_<base64>`: kept as it is, since every delivery is signed with it; shown once.
    secret: text("secret").notNull(),
    enabled: boolean("enabled").notNull().default(true),
    createdAt: createdAt(),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    secretRotatedAt: timestampTz("secret_rotated_at"),
    // The secret a rotation replaced, still signing beside the new one until then, so that
    // receivers can change theirs without refusing a message meanwhile.
    previousSecret: text("previous_secret"),
    previousSecretUntil: timestampTz("previous_secret_until"),
    // The first failed attempt since the last answered one: a day of failures disables the endpoint.
    failingSince: timestampTz("failing_since"),
    // Set when the service disabled it (after a day of failures), for the console's banner; an admin's
    // own disabling leaves it null, and enabling clears it.
    autoDisabledAt: timestampTz("auto_disabled_at"),
    // Held by the instance posting to the endpoint now, until its attempt is recorded or this time
    // passes: one attempt at a time per endpoint across every instance (lib/ops/webhooks/outbox.ts).
    leaseUntil: timestampTz("lease_until"),
  },
  (t) => [index("webhook_endpoints_org_idx").on(t.orgId, t.createdAt)],
);

export const DELIVERY_STATES = ["pending", "delivered", "failed"] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/**
 * The outbox: one message to one endpoint, its body fixed when queued (the `webhook-id` is its id),
 * tried until answered 2xx or a day has passed. `next_attempt_at` is also the lease of an instance
 * posting it, so that several instances post it once.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    body: text("body").notNull(),
    createdAt: timestampTz("created_at").notNull(),
    state: text("state").$type<DeliveryState>().notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestampTz("next_attempt_at"),
  },
  (t) => [
    check("webhook_deliveries_state_check", sql.raw(`state in (${sqlList(DELIVERY_STATES)})`)),
    index("webhook_deliveries_due_idx")
      .on(t.nextAttemptAt)
      .where(sql`state = 'pending'`),
    index("webhook_deliveries_endpoint_idx").on(t.endpointId, t.createdAt),
    // The worker's claim: each endpoint's oldest due message, an endpoint at a time.
    index("webhook_deliveries_endpoint_due_idx")
      .on(t.endpointId, t.nextAttemptAt)
      .where(sql`state = 'pending'`),
  ],
);

/** The delivery log: every attempt, with its answer's status or the error, and how long it took. */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    at: timestampTz("at").notNull(),
    statusCode: integer("status_code"),
    error: text("error"),
    latencyMs: integer("latency_ms").notNull(),
  },
  (t) => [index("webhook_attempts_delivery_idx").on(t.deliveryId, t.at)],
);
