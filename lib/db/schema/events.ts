import { sql } from "drizzle-orm";
import { bigint, check, index, integer, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { sqlList, timestampTz, updatedAt } from "./columns.ts";
import { competitions, sports, teams } from "./sports.ts";
import {
  EVENT_STATUSES,
  FEEDS,
  REVISION_KINDS,
  type EventStatus,
  type Feed,
  type MarketStatus,
  type MarketType,
  type OutcomeStatus,
  type RevisionKind,
  type Sport,
} from "./values.ts";

export type Stat = { label: string; home: number; away: number };
export type Outcome = { id: string; name: string; price: number; status: OutcomeStatus };
export type Market = {
  id: string;
  type: MarketType;
  name: string;
  line: number | null;
  status: MarketStatus;
  outcomes: Outcome[];
  updated_at: string;
};
export type LineupPlayer = { number: number; name: string; position: string };
export type Lineups = { home: LineupPlayer[]; away: LineupPlayer[] };

/** The current state of every event. The state at earlier moments is in event_revisions. */
export const events = pgTable(
  "events",
  {
    id: text("id").primaryKey(),
    sport: text("sport")
      .$type<Sport>()
      .notNull()
      .references(() => sports.code),
    competitionId: text("competition_id")
      .notNull()
      .references(() => competitions.id),
    homeTeamId: text("home_team_id")
      .notNull()
      .references(() => teams.id),
    awayTeamId: text("away_team_id")
      .notNull()
      .references(() => teams.id),
    status: text("status").$type<EventStatus>().notNull(),
    feed: text("feed").$type<Feed>().notNull(),
    kickoff: timestampTz("kickoff").notNull(),
    scoreHome: integer("score_home").notNull().default(0),
    scoreAway: integer("score_away").notNull().default(0),
    clock: text("clock").notNull().default(""),
    period: text("period").notNull().default(""),
    stats: jsonb("stats").$type<Stat[]>().notNull().default([]),
    // Markets and lineups are documents of their event, written and served whole, as feeds send them.
    markets: jsonb("markets").$type<Market[]>().notNull().default([]),
    lineups: jsonb("lineups").$type<Lineups>(),
    // The feed's own sequence number of the last applied update: ingest is idempotent by it.
    feedSequence: bigint("feed_sequence", { mode: "number" }).notNull().default(0),
    // The revision (event_revisions) that produced this state.
    revision: bigint("revision", { mode: "number" }).notNull().default(0),
    updatedAt: updatedAt(),
  },
  (t) => [
    // Lists are filtered by status (and sport) and ordered by kickoff, then id (the paging order).
    index("events_status_kickoff_idx").on(t.status, t.kickoff, t.id),
    index("events_sport_status_kickoff_idx").on(t.sport, t.status, t.kickoff, t.id),
    check("events_status_check", sql.raw(`status in (${sqlList(EVENT_STATUSES)})`)),
    check("events_feed_check", sql.raw(`feed in (${sqlList(FEEDS)})`)),
    check("events_score_check", sql`${t.scoreHome} >= 0 and ${t.scoreAway} >= 0`),
    check("events_sides_check", sql`${t.homeTeamId} <> ${t.awayTeamId}`),
  ],
);

/**
 * Every change stores the full state after it (the Event, the markets or the lineups object as
 * served), so the state at any moment of the retention window is one indexed read: the sandbox's
 * delayed view and stream resumption read from here. `revision` increases across all events, so
 * it doubles as the stream message id.
 */
export const eventRevisions = pgTable(
  "event_revisions",
  {
    // Assigned by the ingest under the revision_counter row lock, so revisions commit in order and a
    // stream resuming after revision N can never miss one committed later with a smaller number.
    revision: bigint("revision", { mode: "number" }).primaryKey(),
    eventId: text("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    kind: text("kind").$type<RevisionKind>().notNull(),
    recordedAt: timestampTz("recorded_at").notNull().defaultNow(),
    state: jsonb("state").$type<unknown>().notNull(),
  },
  (t) => [
    // "This event (or its markets, or its lineups) as of T": the newest row at or before T.
    index("event_revisions_event_kind_time_idx").on(t.eventId, t.kind, t.recordedAt),
    // "Every event as of revision N": per event and kind, the newest at or below N, one search each.
    index("event_revisions_event_kind_revision_idx").on(t.eventId, t.kind, t.revision),
    // "Every event as of T" and pruning past the retention window.
    index("event_revisions_kind_time_idx").on(t.kind, t.recordedAt),
    check("event_revisions_kind_check", sql.raw(`kind in (${sqlList(REVISION_KINDS)})`)),
  ],
);

/**
 * The updates applied to each event, by their digest, so that a provider's resent line is told
 * apart from a different one with an old sequence. Pruned with the revisions; the newest of each
 * event is always kept.
 */
export const feedLines = pgTable(
  "feed_lines",
  {
    eventId: text("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    sequence: bigint("sequence", { mode: "number" }).notNull(),
    // SHA-256 of the update as validated, so a resend with the same content has the same digest.
    digest: text("digest").notNull(),
    // The event's revision after the update.
    revision: bigint("revision", { mode: "number" }).notNull(),
    appliedAt: timestampTz("applied_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.sequence] }), index("feed_lines_applied_at_idx").on(t.appliedAt)],
);

/** One row: the last revision handed out. Its row lock serialises ingest transactions. */
export const revisionCounter = pgTable(
  "revision_counter",
  {
    id: integer("id").primaryKey(),
    lastRevision: bigint("last_revision", { mode: "number" }).notNull(),
    // Where the history is whole from: the last revision recorded before pruning's cut. A reader
    // resuming after an older one, or a state at one, may lack a row that went.
    prunedThrough: bigint("pruned_through", { mode: "number" }).notNull().default(0),
    // The archive (history_chunks, a migration of its own as it is partitioned) holds every
    // revision after `archive_whole_from` through `archived_through`.
    archivedThrough: bigint("archived_through", { mode: "number" }).notNull().default(0),
    archiveWholeFrom: bigint("archive_whole_from", { mode: "number" }).notNull().default(0),
  },
  (t) => [check("revision_counter_single_row", sql`${t.id} = 1`)],
);
