import { sql } from "drizzle-orm";
import { check, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt } from "./columns.ts";
import type { Sport } from "./values.ts";

export const sports = pgTable("sports", {
  code: text("code").$type<Sport>().primaryKey(),
  name: text("name").notNull(),
  ordinal: integer("ordinal").notNull(),
});

export const competitions = pgTable(
  "competitions",
  {
    id: text("id").primaryKey(),
    sport: text("sport")
      .$type<Sport>()
      .notNull()
      .references(() => sports.code),
    name: text("name").notNull(),
    country: text("country"),
    createdAt: createdAt(),
  },
  // Feeds name competitions; ingest finds them by name within a sport.
  (t) => [uniqueIndex("competitions_sport_name_key").on(t.sport, t.name)],
);

/** A side of an event: a team, or for tennis a single player. */
export const teams = pgTable(
  "teams",
  {
    id: text("id").primaryKey(),
    sport: text("sport")
      .$type<Sport>()
      .notNull()
      .references(() => sports.code),
    name: text("name").notNull(),
    shortName: text("short_name"),
    country: text("country"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("teams_sport_name_key").on(t.sport, t.name)],
);

export const players = pgTable(
  "players",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    number: integer("number"),
    position: text("position"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("players_team_name_key").on(t.teamId, t.name),
    check("players_number_check", sql`${t.number} is null or ${t.number} >= 0`),
  ],
);
