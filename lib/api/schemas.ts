import { z } from "zod";
import { ENVIRONMENTS, MARKET_TYPES, SPORTS } from "../db/schema/index.ts";
import {
  eventIdSchema,
  eventStateSchema,
  lineupsStateSchema,
  marketSchema,
  outcomeSchema,
  playerSchema,
  scoreSchema,
  statSchema,
} from "../feed/schemas.ts";
import { API_ERRORS } from "./errors.ts";

// The API's request and response shapes: these validate requests, type the handlers and are the
// OpenAPI document's components (lib/api/openapi.ts), so the three cannot drift apart. Objects are
// registered here under their component names; a registry of our own, not zod's global one,
// because Next bundles a second copy of this module into the route handlers.

export const components = z.registry<{ id: string }>();
function component<T extends z.ZodType>(id: string, schema: T): T {
  components.add(schema, { id });
  return schema;
}

const timestamp = z.iso.datetime().describe("ISO 8601 timestamp, UTC");

export const Sport = component("Sport", z.enum(SPORTS).describe("A sport the service covers"));
export const MarketType = component(
  "MarketType",
  z.enum(MARKET_TYPES).describe("A kind of market; each sport offers the ones that make sense for it"),
);
export const Score = component("Score", scoreSchema);
export const Stat = component("Stat", statSchema);
export const Outcome = component("Outcome", outcomeSchema);
export const Market = component("Market", marketSchema);
export const Player = component("Player", playerSchema);

const sandbox = z.boolean().describe("true when served to a sandbox key (the state of 60 seconds ago)");

export const Event = component("Event", eventStateSchema.extend({ sandbox }));
export type Event = z.infer<typeof Event>;

export const EventWithMarkets = component(
  "EventWithMarkets",
  eventStateSchema.extend({
    markets: z.array(Market).describe("The event's markets, filtered by `type` when given"),
    sandbox,
  }),
);

export const Lineup = component(
  "Lineup",
  lineupsStateSchema.extend({ sandbox }).describe("For tennis the two players are the two sides"),
);

const limits = z.strictObject({
  requests_per_month: z.int().describe("Monthly request quota"),
  requests_per_second: z.int().describe("Requests admitted per second"),
  concurrent_streams: z.int().describe("Streams open at once"),
});

export const KeyDescription = component(
  "KeyDescription",
  z.strictObject({
    key: z.string().describe("The key that made the request, `<prefix><random part>`"),
    environment: z.enum(ENVIRONMENTS),
    sports: z.array(Sport).describe("Sports the key covers"),
    expires_at: timestamp.nullable().describe("Expiry of a sandbox key; null for production keys"),
    plan: z.string().nullable().describe('Code of the plan (such as "pro"); null for a sandbox key'),
    created_at: timestamp,
    delay_seconds: z.int().describe("How far behind real time the key sees the feed"),
    limits,
    quota_resets_at: timestamp.describe("When the monthly count starts again (the next month, UTC)"),
  }),
);

export const Meta = component(
  "Meta",
  z.strictObject({
    sandbox: z.boolean().describe("true when the key is a sandbox key"),
    delay_seconds: z.int().describe("Seconds the data lags real time: 60 for sandbox keys, 0 for production"),
    requests_used: z.int().describe("Requests counted this month for the key, this one included"),
    requests_quota: z.int().describe("Monthly request quota of the key"),
  }),
);

export const ListMeta = component(
  "ListMeta",
  Meta.extend({
    next_cursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page"),
  }),
);

export const Problem = component(
  "Problem",
  z
    .object({
      type: z.string().describe("URI of the problem type"),
      title: z.string(),
      status: z.int(),
      detail: z.string().describe("What went wrong, for people"),
      code: z
        .enum(Object.keys(API_ERRORS) as [keyof typeof API_ERRORS])
        .describe("Stable code for clients to switch on"),
      request_id: z.string().describe("Equal to the X-Request-Id header"),
      errors: z
        .array(z.strictObject({ param: z.string(), message: z.string() }))
        .optional()
        .describe("One entry per invalid or unknown parameter"),
      "violated-policies": z
        .array(z.enum(["second", "month"]))
        .optional()
        .describe("On 429: the rate-limit policy that was exceeded"),
    })
    .describe("RFC 9457 problem details"),
);

/** The `{data, meta}` envelope of every successful answer. */
export function envelope<T extends z.ZodType>(data: T, meta: z.ZodType = Meta) {
  return z.strictObject({ data, meta });
}

// Requests. Query objects are strict: a parameter they do not name is refused.

const cursor = z.string().min(1).max(200).describe("Opaque cursor from `meta.next_cursor` of the previous page");

export const EventsQuery = z.strictObject({
  sport: Sport.optional().describe("Default: every sport the key covers"),
  status: z.enum(["live", "upcoming"]).optional().describe("Default: both"),
  limit: z.coerce.number().int().min(1).max(100).default(50).describe("Page size, 1 to 100"),
  cursor: cursor.optional(),
});

export const OddsQuery = z.strictObject({
  sport: Sport.optional().describe("Default: every sport the key covers"),
  type: MarketType.optional().describe("Only markets of this type; a sport that does not offer it shows none"),
});

export const NoQuery = z.strictObject({});

export const EventPath = z.strictObject({ id: eventIdSchema });
