import { z } from "zod";
import { eventIdSchema } from "../../feed/schemas.ts";
import { MarketType, Sport, timestamp } from "./schemas.ts";

// Requests. Query objects are strict: a parameter they do not name is refused.

// A whole number in a query string: plain decimal digits only. `Number()` would also take hex, binary,
// octal, exponents, a plus sign and surrounding spaces, and a leading zero reads as octal in some
// languages, so each is refused with one message naming the range rather than being guessed at.
// Every integer query parameter is one of these.
const DECIMAL_INTEGER = /^(?:0|-?[1-9][0-9]*)$/;

export function wholeNumber(min: number, max: number, fallback?: number, missing?: string) {
  const message = `must be a whole number from ${min} to ${max}, in decimal digits`;
  const int = z
    .int({ error: (issue) => (issue.input === undefined && missing) || message })
    .min(min, message)
    .max(max, message);
  return z.preprocess(
    (value) => (typeof value === "string" && DECIMAL_INTEGER.test(value) ? Number(value) : value),
    // The default inside, so that the OpenAPI document shows it beside the range.
    fallback === undefined ? int : int.default(fallback),
  );
}

/** A moment of the history: a time, or a revision. */
export type Moment = { at: Date; revision?: never } | { revision: number; at?: never };

const REVISION_DIGITS = /^(?:0|[1-9][0-9]{0,14})$/;

const asOf = z
  .union(
    [
      z.iso.datetime().describe("A time: ISO 8601, UTC (`Z`), seconds required, fractions allowed"),
      z
        .string()
        .regex(REVISION_DIGITS)
        .describe("A revision: `meta.revision` of an answer, or a stream message's `id`"),
    ],
    { error: "must be an ISO 8601 UTC time (such as 2026-11-21T15:41:07Z) or a revision (decimal digits)" },
  )
  .transform((value): Moment => (REVISION_DIGITS.test(value) ? { revision: Number(value) } : { at: new Date(value) }))
  .describe(
    "The state at this moment instead of now: a time (the newest revision recorded at or before it; nothing " +
      "recorded later) or a revision. `meta.revision` is the revision shown. Older than the history kept " +
      "(`history_seconds` in `GET /api/v1/me`): 410 `retention_exceeded`; later than the key sees (the future, or " +
      "for a sandbox key anything younger than its delay): 400",
  )
  .meta({ examples: ["2026-11-21T15:41:07Z", "48213"] });

const cursor = z.string().min(1).max(200).describe("Opaque cursor from `meta.next_cursor` of the previous page");

export const EventsQuery = z.strictObject({
  sport: Sport.optional().describe("Default: every sport the key covers"),
  status: z.enum(["live", "upcoming"]).optional().describe("Default: both"),
  limit: wholeNumber(1, 100, 50).describe(
    "Page size, 1 to 100, in decimal digits (no sign, spaces, exponent or leading zeros)",
  ),
  cursor: cursor.optional(),
  as_of: asOf.optional(),
});

const boardFilter = {
  sport: Sport.optional().describe("Default: every sport the key covers"),
  type: MarketType.optional().describe("Only markets of this type; a sport that does not offer it shows none"),
};

/** What the board stream is filtered by; GET /odds adds `as_of`. */
export const BoardQuery = z.strictObject(boardFilter);

export const OddsQuery = z.strictObject({ ...boardFilter, as_of: asOf.optional() });

/** One event's markets, now or at a moment of the history. */
export const EventOddsQuery = z.strictObject({ type: boardFilter.type, as_of: asOf.optional() });

export const NoQuery = z.strictObject({});

/** One event or its lineups, now or at a moment of the history. */
export const AsOfQuery = z.strictObject({ as_of: asOf.optional() });

export const EventPath = z.strictObject({ id: eventIdSchema });

export const MarketHistoryPath = EventPath.extend({
  market_id: z.string().min(1).max(64).describe("A market of the event: its `id` in `markets`"),
});

export const MarketHistoryQuery = z.strictObject({
  from: timestamp
    .optional()
    .describe("From this time: the first point is the market as it was then. Default: the oldest state kept"),
  to: timestamp.optional().describe("Through this time. Default, and at most: now (for a sandbox key, its delay ago)"),
});
