import { z } from "zod";
import { ENVIRONMENTS, MARKET_TYPES, SPORTS } from "../../db/schema/values.ts";
import {
  eventIdSchema,
  eventStateSchema,
  lineupsStateSchema,
  marketSchema,
  outcomeSchema,
  playerSchema,
  scoreSchema,
  statSchema,
} from "../../feed/schemas.ts";
import { API_ERRORS } from "../request/error-codes.ts";

// The API's request and response shapes: these validate requests, type the handlers and are the
// OpenAPI document's components (lib/api/documents/openapi.ts), so the three cannot drift apart. Objects are
// registered here under their component names; a registry of our own, not zod's global one,
// because Next bundles a second copy of this module into the route handlers.

export const components = z.registry<{ id: string }>();
export function component<T extends z.ZodType>(id: string, schema: T): T {
  components.add(schema, { id });
  return schema;
}

export const timestamp = z.iso.datetime().describe("ISO 8601 timestamp, UTC");

export const Sport = component("Sport", z.enum(SPORTS).describe("A sport the service covers"));
export const MarketType = component(
  "MarketType",
  z.enum(MARKET_TYPES).describe("A kind of market; each sport offers the ones that make sense for it"),
);
export const Score = component("Score", scoreSchema);
export const Stat = component("Stat", statSchema);
export const Outcome = component("Outcome", outcomeSchema);
const MARKET_EXAMPLE = {
  id: "soc-bdrn-983512:match_winner",
  type: "match_winner",
  name: "Match result",
  line: null,
  status: "open",
  outcomes: [
    { id: "soc-bdrn-983512:match_winner:home", name: "Harbour Town", price: 1.62, status: "active" },
    { id: "soc-bdrn-983512:match_winner:draw", name: "Draw", price: 3.9, status: "active" },
    { id: "soc-bdrn-983512:match_winner:away", name: "River City", price: 5.5, status: "active" },
  ],
  updated_at: "2026-11-21T15:41:07.214Z",
};
export const Market = component("Market", marketSchema.meta({ examples: [MARKET_EXAMPLE] }));
export const Player = component("Player", playerSchema);

const sandbox = z.boolean().describe("true when served to a sandbox key (the state of 60 seconds ago)");

const EVENT_EXAMPLE = {
  id: "soc-bdrn-983512",
  sport: "soccer",
  competition: "Premier Division",
  home: "Harbour Town",
  away: "River City",
  status: "live",
  feed: "official",
  kickoff: "2026-11-21T14:30:00.000Z",
  score: { home: 1, away: 0 },
  clock: "67:12",
  period: "2nd half",
  stats: [
    { label: "Possession %", home: 54, away: 46 },
    { label: "Shots", home: 11, away: 6 },
  ],
  updated_at: "2026-11-21T15:41:07.214Z",
  sandbox: false,
};
export const Event = component("Event", eventStateSchema.extend({ sandbox }).meta({ examples: [EVENT_EXAMPLE] }));
export type Event = z.infer<typeof Event>;

export const EventWithMarkets = component(
  "EventWithMarkets",
  eventStateSchema
    .extend({
      markets: z.array(Market).describe("The event's markets, filtered by `type` when given"),
      sandbox,
    })
    .meta({ examples: [{ ...EVENT_EXAMPLE, markets: [MARKET_EXAMPLE] }] }),
);
export type EventWithMarkets = z.infer<typeof EventWithMarkets>;

export const Lineup = component(
  "Lineup",
  lineupsStateSchema
    .extend({ sandbox })
    .describe("For tennis the two players are the two sides")
    .meta({
      examples: [
        {
          event_id: "soc-bdrn-983512",
          home: [
            { number: 1, name: "Tomas Varga", position: "GK" },
            { number: 9, name: "Leon Achterberg", position: "ST" },
          ],
          away: [{ number: 10, name: "Rui Carvalho", position: "CAM" }],
          sandbox: false,
        },
      ],
    }),
);

const limits = z.strictObject({
  requests_per_month: z.int().describe("Monthly request quota"),
  requests_per_second: z.int().describe("Requests admitted per second"),
  concurrent_streams: z.int().describe("Streams open at once"),
});

export const OrganisationUsage = component(
  "OrganisationUsage",
  z
    .strictObject({
      requests_used: z
        .int()
        .describe("Requests counted this month for the organisation: all its production keys and its members' reads"),
      requests_quota: z.int().describe("The plan's monthly quota, which the organisation's keys and members share"),
      requests_per_second: z.int().describe("The plan's per-second limit, shared likewise"),
      concurrent_streams: z.int().describe("The plan's concurrent streams, shared likewise"),
    })
    .describe(
      "The organisation's count this month and its plan's limits, which hold for all its production keys and its " +
        "members' reads together; a request is admitted within both the key's limits and these",
    ),
);

export const KeyUsage = component(
  "KeyUsage",
  z
    .strictObject({
      requests_used: z.int().describe("Requests counted this month for this key, this one included"),
      requests_quota: z.int().describe("Requests the key may make this month"),
      resets_at: timestamp.describe("When the monthly count starts again (the next month, UTC)"),
      projected_exhaustion_at: timestamp
        .nullable()
        .describe(
          "When the quota runs out at the month's pace so far; null when that pace does not reach it before `resets_at`",
        ),
      organisation: OrganisationUsage.nullable().describe(
        "The organisation's figures beside the key's, for a production key; null for a sandbox key, whose limits are its own",
      ),
    })
    .describe("The key's monthly count, as the request was counted, and its organisation's"),
);

export const KeyDescription = component(
  "KeyDescription",
  z
    .strictObject({
      key: z.string().describe("The key that made the request, `<prefix><random part>`"),
      environment: z.enum(ENVIRONMENTS),
      sports: z
        .array(Sport)
        .describe(
          "Sports the key covers: the sandbox key's one, or the plan's, narrowed to the key's sport scope when it has one",
        ),
      name: z.string().nullable().describe("The production key's name, as set in the console; null when it has none"),
      allowed_ips: z
        .array(z.string())
        .nullable()
        .describe(
          "The networks (CIDR) a production key may be used from, as set in the console; null: any address. Others are answered 403 `ip_not_allowed`",
        ),
      last_used_at: timestamp
        .nullable()
        .describe(
          "The minute the key was last used, to the minute, as last recorded: it may be a minute or two behind, and this request may not be in it yet; null when never",
        ),
      expires_at: timestamp
        .nullable()
        .describe(
          "When the key stops working: always for a sandbox key; for a production key, the expiry set in the console or the end of a roll's overlap, else null",
        ),
      plan: z.string().nullable().describe('Code of the plan (such as "pro"); null for a sandbox key'),
      created_at: timestamp,
      delay_seconds: z.int().describe("How far behind real time the key sees the feed"),
      limits: limits.describe(
        "The key's limits: its plan's, lowered by its own where it has them; a production key is also held to its organisation's (`usage.organisation`)",
      ),
      own_limits: z
        .strictObject({
          requests_per_month: z.int().nullable().describe("The key's own monthly quota; null: the plan's"),
          requests_per_second: z.int().nullable().describe("The key's own per-second limit; null: the plan's"),
        })
        .nullable()
        .describe(
          "A production key's own lower limits inside its organisation's pool, as set in the console; null for other credentials",
        ),
      quota_resets_at: timestamp.describe("When the monthly count starts again (the next month, UTC)"),
      history_seconds: z
        .int()
        .describe(
          "How far back the revision history reaches: streams resume and `GET /api/v1/changes` pages within it",
        ),
      usage: KeyUsage,
    })
    .meta({
      examples: [
        {
          key: "svc_sb_3YeWOuRAwr1LcfmOtnh7RqkQr53gFRLm",
          environment: "sandbox",
          sports: ["soccer"],
          name: null,
          allowed_ips: null,
          last_used_at: "2026-11-21T10:42:00.000Z",
          expires_at: "2026-12-21T09:00:00.000Z",
          plan: null,
          created_at: "2026-11-21T09:00:00.000Z",
          delay_seconds: 60,
          limits: { requests_per_month: 1000, requests_per_second: 2, concurrent_streams: 2 },
          own_limits: null,
          quota_resets_at: "2026-12-01T00:00:00.000Z",
          history_seconds: 604_800,
          usage: {
            requests_used: 412,
            requests_quota: 1000,
            resets_at: "2026-12-01T00:00:00.000Z",
            projected_exhaustion_at: null,
            organisation: null,
          },
        },
      ],
    }),
);

export const Meta = component(
  "Meta",
  z.strictObject({
    sandbox: z.boolean().describe("true when the key is a sandbox key"),
    delay_seconds: z.int().describe("Seconds the data lags real time: 60 for sandbox keys, 0 for production"),
    requests_used: z
      .int()
      .describe(
        "Requests counted this month, this one included: the key's, or its organisation's when that is nearer its quota (a production key's plan quota is shared by the organisation's keys and members)",
      ),
    requests_quota: z.int().describe("The monthly quota `requests_used` is counted against"),
    revision: z
      .int()
      .describe(
        "The feed revision the answer shows (a sandbox key's: the delayed view's). A stream opened with `last_event_id` set to it, or `GET /api/v1/changes?since=` it, misses nothing after this answer",
      ),
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
      type: z
        .string()
        .meta({ format: "uri-reference", examples: ["/docs/errors#invalid_parameter"] })
        .describe(
          "The problem type: `/docs/errors#<code>`, a reference resolved against the request's URL (RFC 9457) to this service's page of error codes, at the section for the code",
        ),
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
        .array(z.enum(["second", "month", "streams", "unknown_keys"]))
        .optional()
        .describe(
          "On 429: the policy that was exceeded (`streams`: the plan's concurrent streams; `unknown_keys`: too many keys no one holds from the client's address)",
        ),
    })
    .describe("RFC 9457 problem details"),
);

/** The `{data, meta}` envelope of every successful answer. */
export function envelope<T extends z.ZodType, M extends z.ZodType = typeof Meta>(data: T, meta?: M) {
  return z.strictObject({ data, meta: meta ?? Meta });
}

// The answers the board reads as well as the endpoints (lib/api/endpoints/index.ts).
export const EventAnswer = envelope(Event);
export const LineupAnswer = envelope(Lineup);
export const OddsAnswer = envelope(z.array(EventWithMarkets));
export const EventOddsAnswer = envelope(EventWithMarkets);

const PricePoint = component(
  "PricePoint",
  z
    .strictObject({
      at: timestamp.describe("When the market changed to this state; for the first point, `from` if given"),
      revision: z.int().describe("The feed revision of this state: the `id` of the stream message that carried it"),
      status: marketSchema.shape.status,
      line: marketSchema.shape.line,
      outcomes: z.array(outcomeSchema.pick({ id: true, price: true, status: true })),
    })
    .describe("One state of a market"),
);

export const MarketHistory = component(
  "MarketHistory",
  z
    .strictObject({
      event_id: eventIdSchema,
      market_id: z.string(),
      points: z
        .array(PricePoint)
        .describe("The market's state at the start of the window, then one point per change of it, oldest first"),
    })
    .meta({
      examples: [
        {
          event_id: "soc-bdrn-983512",
          market_id: "soc-bdrn-983512:match_winner",
          points: [
            {
              at: "2026-11-21T15:30:00.000Z",
              revision: 48102,
              status: "open",
              line: null,
              outcomes: [
                { id: "soc-bdrn-983512:match_winner:home", price: 1.8, status: "active" },
                { id: "soc-bdrn-983512:match_winner:draw", price: 3.6, status: "active" },
                { id: "soc-bdrn-983512:match_winner:away", price: 4.75, status: "active" },
              ],
            },
            {
              at: "2026-11-21T15:41:07.214Z",
              revision: 48213,
              status: "open",
              line: null,
              outcomes: [
                { id: "soc-bdrn-983512:match_winner:home", price: 1.62, status: "active" },
                { id: "soc-bdrn-983512:match_winner:draw", price: 3.9, status: "active" },
                { id: "soc-bdrn-983512:match_winner:away", price: 5.5, status: "active" },
              ],
            },
          ],
        },
      ],
    }),
);
