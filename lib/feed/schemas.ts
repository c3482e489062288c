import { z } from "zod";
import { EVENT_STATUSES, FEEDS, MARKET_STATUSES, MARKET_TYPES, OUTCOME_STATUSES, SPORTS } from "../db/schema/values.ts";

// The shapes the API serves, the ingest accepts and the revision history stores: one definition.
// The API adds `sandbox` when it serves an object; everything else is stored as served.

const text = (max: number) => z.string().trim().min(1).max(max);
const timestamp = z.iso.datetime({ offset: true }).describe("ISO 8601 timestamp, UTC");

export const eventIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/, "an event id is 1 to 64 letters, digits, '_', '.', ':' or '-'")
  .describe("Event identifier");

export const sportSchema = z.enum(SPORTS);
export const eventStatusSchema = z.enum(EVENT_STATUSES);
export const feedSchema = z.enum(FEEDS);
export const marketTypeSchema = z.enum(MARKET_TYPES);

export const scoreSchema = z.strictObject({ home: z.int().min(0).max(10_000), away: z.int().min(0).max(10_000) });
export const statSchema = z.strictObject({
  label: text(60),
  // Some statistics go below zero (yards lost).
  home: z.number().min(-1e9).max(1e9),
  away: z.number().min(-1e9).max(1e9),
});

export const eventStateSchema = z.strictObject({
  id: eventIdSchema,
  sport: sportSchema,
  competition: text(120),
  home: text(120).describe("Home side (for tennis, the first player)"),
  away: text(120).describe("Away side (for tennis, the second player)"),
  status: eventStatusSchema,
  feed: feedSchema,
  kickoff: timestamp,
  score: scoreSchema,
  clock: z.string().max(16).describe("Game clock in the sport's own form; empty when the sport has none"),
  period: z.string().max(40).describe("Period label in the sport's own terms"),
  stats: z.array(statSchema).max(60),
  updated_at: timestamp,
});
export type EventState = z.infer<typeof eventStateSchema>;

const price = z
  .number()
  .gt(1, "a decimal price is above 1.0")
  .max(1000)
  .refine((value) => Math.abs(value * 1000 - Math.round(value * 1000)) < 1e-6, "a price has at most 3 decimals");

export const outcomeSchema = z.strictObject({
  id: text(64),
  name: text(120),
  price,
  status: z
    .enum(OUTCOME_STATUSES)
    .describe(
      "won, lost or void once its market is settled; void returns the stake (the event was abandoned or cancelled, or a two-way market ended in a tie)",
    ),
});

export const marketSchema = z
  .strictObject({
    id: text(64),
    type: marketTypeSchema,
    name: text(120),
    line: z.number().min(-1000).max(1000).nullable(),
    status: z.enum(MARKET_STATUSES).describe("settled once every outcome is won, lost or void"),
    outcomes: z.array(outcomeSchema).min(2).max(40),
    updated_at: timestamp,
  })
  .describe(
    "A market of an event. Markets open before kickoff too (pre-match: the result, the handicap, the main total, " +
      "both teams to score), and at kickoff the same market, with the same id, carries on in play from its last " +
      "pre-match price; markets such as the next goal open in play. A market has no phase of its own: the event's " +
      "`status` says whether it is pre-match (`upcoming`, suspended while `postponed`) or in play. GET /odds and the " +
      "board stream list events in play only; an event's pre-match markets are on its own stream and in its market history.",
  );
export type MarketState = z.infer<typeof marketSchema>;

export const playerSchema = z.strictObject({
  number: z.int().min(0).max(999),
  name: text(120),
  position: z.string().trim().min(1).max(5).describe("Short position code"),
});
export const lineupsStateSchema = z.strictObject({
  event_id: eventIdSchema,
  home: z.array(playerSchema).max(60),
  away: z.array(playerSchema).max(60),
});
export type LineupsState = z.infer<typeof lineupsStateSchema>;

/**
 * One line of an ingest batch. `event` carries the fields that changed (all of them, but for
 * `updated_at`, when it creates the event); `markets` the markets that changed, each whole;
 * `lineups` both sides whole. The service sets `id`s' owners and every `updated_at`.
 */
export const feedUpdateSchema = z
  .strictObject({
    event_id: eventIdSchema,
    sequence: z
      .int()
      .min(1)
      .max(Number.MAX_SAFE_INTEGER)
      .describe("The provider's sequence for this event; increasing"),
    event: eventStateSchema.omit({ id: true, updated_at: true }).partial().optional(),
    markets: z
      .array(marketSchema.omit({ updated_at: true }))
      .max(60)
      .optional(),
    lineups: lineupsStateSchema.omit({ event_id: true }).optional(),
  })
  .refine((update) => update.event || update.markets || update.lineups, {
    message: "an update carries at least one of event, markets or lineups",
  });
export type FeedUpdate = z.infer<typeof feedUpdateSchema>;

export const CREATION_FIELDS = ["sport", "competition", "home", "away", "status", "feed", "kickoff"] as const;
