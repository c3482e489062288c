import { sql } from "drizzle-orm";
import {
  bigint,
  check,
  date,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  type AnyPgColumn,
} from "drizzle-orm/pg-core";
import { createdAt, sqlList, timestampTz } from "./columns.ts";
import { organisations, users } from "./accounts.ts";
import { sports } from "./sports.ts";
import { ENVIRONMENTS, type Environment, type Sport } from "./values.ts";

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    environment: text("environment").$type<Environment>().notNull(),
    name: text("name"),
    // SHA-256 (hex) of the whole key: the only form of the key that is ever stored.
    keyHash: text("key_hash").notNull(),
    // Prefix and last four characters, for people to recognise a key in lists.
    hint: text("hint").notNull(),
    // The sandbox key's one sport; production keys cover their organisation's plan.
    sport: text("sport")
      .$type<Sport>()
      .references(() => sports.code),
    createdAt: createdAt(),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    expiresAt: timestampTz("expires_at"),
    revokedAt: timestampTz("revoked_at"),
    revokedBy: text("revoked_by").references(() => users.id, { onDelete: "set null" }),
    // Written by the meter's flush, to the minute, at most once a minute (lib/metering/tally.ts).
    lastUsedAt: timestampTz("last_used_at"),
    // A production key's sport scope, a subset of its plan's; null: the plan's sports.
    sports: text("sports").array().$type<Sport[]>(),
    // The networks (CIDR) a production key may be used from; null: any.
    allowedIps: text("allowed_ips").array(),
    // A production key's own lower limits inside its organisation's pool; null: the plan's.
    monthlyQuota: integer("monthly_quota"),
    requestsPerSecond: integer("requests_per_second"),
    // The key that replaced this one when it was rolled.
    replacedBy: text("replaced_by").references((): AnyPgColumn => apiKeys.id, { onDelete: "set null" }),
  },
  (t) => [
    // Every API request resolves its key by hash.
    uniqueIndex("api_keys_key_hash_key").on(t.keyHash),
    // The spec: one sandbox key per organisation, ever, so revoked ones count too.
    uniqueIndex("api_keys_one_sandbox_per_org")
      .on(t.orgId)
      .where(sql`environment = 'sandbox'`),
    index("api_keys_org_idx").on(t.orgId, t.createdAt),
    check("api_keys_environment_check", sql.raw(`environment in (${sqlList(ENVIRONMENTS)})`)),
    check(
      "api_keys_sandbox_shape_check",
      sql`(environment = 'sandbox') = (${t.sport} is not null and ${t.expiresAt} is not null)`,
    ),
    check(
      "api_keys_scope_shape_check",
      sql`environment = 'production' or (${t.sports} is null and ${t.allowedIps} is null)`,
    ),
    check(
      "api_keys_own_limits_check",
      sql`(environment = 'production' or (${t.monthlyQuota} is null and ${t.requestsPerSecond} is null)) and (${t.monthlyQuota} is null or ${t.monthlyQuota} > 0) and (${t.requestsPerSecond} is null or ${t.requestsPerSecond} > 0)`,
    ),
  ],
);

/** Requests counted per key per calendar month (UTC): the quota reads this. */
export const usageMonthly = pgTable(
  "usage_monthly",
  {
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    month: date("month").notNull(), // first day of the month
    requests: bigint("requests", { mode: "number" }).notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.keyId, t.month] }),
    check("usage_monthly_first_day_check", sql`extract(day from ${t.month}) = 1`),
  ],
);

/** Requests counted per key per day (UTC): the console's charts read this. */
export const usageDaily = pgTable(
  "usage_daily",
  {
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    day: date("day").notNull(),
    requests: bigint("requests", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.day] })],
);

/**
 * Requests counted per console member per month (UTC): their reads of the board's endpoints with
 * the session cookie, under the member's own allowance (lib/api/credentials/members.ts).
 */
export const memberUsageMonthly = pgTable(
  "member_usage_monthly",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    month: date("month").notNull(), // first day of the month
    requests: bigint("requests", { mode: "number" }).notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.month] }),
    check("member_usage_monthly_first_day_check", sql`extract(day from ${t.month}) = 1`),
  ],
);

/**
 * Requests counted per organisation per calendar month (UTC): its production keys' and its
 * members' together, against the plan's monthly quota, which the organisation holds as a whole.
 */
export const orgUsageMonthly = pgTable(
  "org_usage_monthly",
  {
    orgId: text("org_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    month: date("month").notNull(), // first day of the month
    requests: bigint("requests", { mode: "number" }).notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.month] }),
    check("org_usage_monthly_first_day_check", sql`extract(day from ${t.month}) = 1`),
  ],
);

/**
 * How far each instance's metering journal (DATA_DIR/meter) has been added to the usage tables,
 * in bytes. Written in the same transaction as the counts, so replaying a journal after a crash
 * adds exactly what was not added yet (lib/metering/journal.ts).
 */
export const meterJournals = pgTable("meter_journals", {
  id: text("id").primaryKey(),
  flushedBytes: bigint("flushed_bytes", { mode: "number" }).notNull().default(0),
  updatedAt: timestampTz("updated_at").notNull().defaultNow(),
});
