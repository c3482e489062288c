import { sql } from "drizzle-orm";
import { check, integer, pgTable, text } from "drizzle-orm/pg-core";
import { sqlList } from "./columns.ts";
import { ENVIRONMENTS, type Environment, type Sport } from "./values.ts";

/** Plans are data: the seed writes them, keys and the metering read their limits from here. */
export const plans = pgTable(
  "plans",
  {
    code: text("code").primaryKey(),
    name: text("name").notNull(),
    environment: text("environment").$type<Environment>().notNull(),
    description: text("description").notNull(),
    // Empty for the sandbox plan: a sandbox key covers the one sport chosen at its creation.
    sports: text("sports").array().$type<Sport[]>().notNull(),
    monthlyQuota: integer("monthly_quota").notNull(),
    requestsPerSecond: integer("requests_per_second").notNull(),
    concurrentStreams: integer("concurrent_streams").notNull(),
    monthlyPriceCents: integer("monthly_price_cents"),
    ordinal: integer("ordinal").notNull(),
  },
  (t) => [
    check("plans_environment_check", sql.raw(`environment in (${sqlList(ENVIRONMENTS)})`)),
    check(
      "plans_limits_check",
      sql`${t.monthlyQuota} > 0 and ${t.requestsPerSecond} > 0 and ${t.concurrentStreams} > 0`,
    ),
  ],
);
