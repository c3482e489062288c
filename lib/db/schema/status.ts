import { sql } from "drizzle-orm";
import { boolean, check, index, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { sqlList, timestampTz } from "./columns.ts";

export const INCIDENT_STATES = ["investigating", "identified", "monitoring", "resolved"] as const;
export type IncidentState = (typeof INCIDENT_STATES)[number];

/**
 * What each instance saw of each minute, for the public status page: whether readiness held,
 * whether each sport's feed was fresh, and its REST latencies and stream lag as bucket counts
 * (lib/ops/status/figures.ts) so that instances' minutes add up. Kept 31 days.
 */
export const statusMinutes = pgTable(
  "status_minutes",
  {
    minute: timestampTz("minute").notNull(),
    instance: text("instance").notNull(),
    ready: boolean("ready").notNull(),
    feeds: jsonb("feeds").$type<Record<string, boolean>>().notNull(),
    // Sparse: bucket index to count.
    rest: jsonb("rest").$type<Record<string, number>>().notNull(),
    streamLag: jsonb("stream_lag").$type<Record<string, number>>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.minute, t.instance] })],
);

/** Incidents an operator opens, updates and resolves with the CLI; shown on the status page. */
export const statusIncidents = pgTable(
  "status_incidents",
  {
    id: text("id").primaryKey(),
    title: text("title").notNull(),
    components: jsonb("components").$type<string[]>().notNull(),
    state: text("state").$type<IncidentState>().notNull(),
    startedAt: timestampTz("started_at").notNull(),
    resolvedAt: timestampTz("resolved_at"),
    updates: jsonb("updates").$type<{ at: string; state: IncidentState; text: string }[]>().notNull(),
  },
  (t) => [
    index("status_incidents_started_at_idx").on(t.startedAt),
    check("status_incidents_state_check", sql.raw(`state in (${sqlList(INCIDENT_STATES)})`)),
  ],
);
