import { z } from "zod";
import { EVENT_STATUSES } from "../../db/schema/values.ts";
import { eventIdSchema } from "../../feed/schemas.ts";
import { REPLAY_REVISIONS } from "../../streams/replay.ts";
import { component, Event, EventWithMarkets, Lineup, Market, Meta, Problem, Sport } from "./schemas.ts";
import { wholeNumber } from "./queries.ts";
import { EventPath, BoardQuery } from "./queries.ts";

// The streams' parameters and the data of each message they send: they validate the requests and
// are the OpenAPI document's description of the streams (lib/api/documents/openapi.ts).

const lastEventId = z
  .string()
  .max(64)
  .optional()
  .describe(
    "The `id` of the last message received, to resume after it. Same as the `Last-Event-ID` header, which wins when both are sent; " +
      "for a browser's EventSource that was closed by an error and must be opened again.",
  );

// What EventSource polyfills (event-source-polyfill) append on each reconnect, so it is the newer
// of the two query parameters.
const lastEventIdAlias = z
  .string()
  .max(64)
  .optional()
  .describe(
    "Alias of `last_event_id`, the name EventSource polyfills (event-source-polyfill) send when they reconnect. " +
      "The `Last-Event-ID` header wins over it, and it wins over `last_event_id`.",
  );
// A browser's EventSource cannot send a header: a page opens the stream with a token its server
// minted, never with the key.
const token = z
  .string()
  .max(512)
  .optional()
  .describe(
    "A browser stream token (`svc_st_…`) from `GET /api/v1/stream-token`, instead of a key, for a browser's EventSource, " +
      "which cannot send headers. Accepted on the two streams only, from any origin; checked when the stream opens.",
  );
const resume = { last_event_id: lastEventId, lastEventId: lastEventIdAlias, token };

export const EventStreamQuery = z.strictObject(resume);
export const EventStreamPath = EventPath;
export const BoardStreamQuery = BoardQuery.extend(resume);

export const StreamTokenQuery = z.strictObject({
  sport: Sport.optional().describe("Narrows the token to one of the key's sports. Default: every sport the key covers"),
  event_id: eventIdSchema.optional().describe("Narrows the token to this event's stream (and its sport)"),
  ttl: wholeNumber(60, 3600, 900).describe("Seconds the token can open streams for, 60 to 3600"),
});

export const StreamToken = component(
  "StreamToken",
  z
    .strictObject({
      token: z.string().describe("Pass as `?token=` on `/api/v1/odds/stream` or `/api/v1/events/{id}/stream`"),
      expires_at: z.iso.datetime().describe("After this a stream cannot be opened with it (one already open goes on)"),
      sport: Sport.nullable().describe("The one sport it opens streams of; null: every sport the key covers"),
      event_id: z.string().nullable().describe("The one event whose stream it opens; null: any"),
    })
    .meta({
      examples: [
        {
          token: "svc_st_eyJrIjoia2V5XzRacTEiLCJzIjoic29jY2VyIiwiZSI6bnVsbCwieCI6MTc5NTcxNDAwMH0.Xq0V…",
          expires_at: "2026-11-21T15:56:07.000Z",
          sport: "soccer",
          event_id: null,
        },
      ],
    }),
);

const freshness = {
  sandbox: z.boolean().describe("true for a sandbox key (or a console member without a production plan)"),
  delay_seconds: z.int().describe("How far behind real time this stream is: 60 for sandbox, 0 for production"),
  as_of: z.iso.datetime().describe("The moment of the feed this message shows"),
};
const resync = {
  resync: z.literal(true).optional().describe("Present when this snapshot replaces what the client had: a gap"),
  reason: z
    .enum(["retention_exceeded", "unknown_id", "slow_client", "bus_reconnected"])
    .optional()
    .describe(
      "Why there was a gap: the last id is older than the history kept, or more than " +
        `${REPLAY_REVISIONS.toLocaleString("en")} revisions behind, more than a resume replays (\`retention_exceeded\`), or not one this instance ` +
        "can place (`unknown_id`); the client did not read fast enough (`slow_client`); the instance lost the feed " +
        "for longer than the history holds (`bus_reconnected`)",
    ),
};
const conflated = z
  .literal(true)
  .optional()
  .describe("The client fell behind: this is the latest state, not every change in between");

export const EventSnapshotMessage = component(
  "EventSnapshotMessage",
  z
    .strictObject({ event: Event, markets: z.array(Market), lineups: Lineup, ...freshness, ...resync })
    .describe("`snapshot` of an event's stream: the event, its markets and lineups, as of the message's id"),
);
export const BoardSnapshotMessage = component(
  "BoardSnapshotMessage",
  z
    .strictObject({ events: z.array(EventWithMarkets), ...freshness, ...resync })
    .describe("`snapshot` of the board stream: every event in play with its markets, as GET /api/v1/odds"),
);
export const EventMessage = component(
  "EventMessage",
  z
    .strictObject({
      event: Event,
      markets: z
        .array(Market)
        .optional()
        .describe("Board stream: all the event's markets, when the event has just come into play"),
      ...freshness,
      conflated,
    })
    .describe("`event`: the event after a change (on the board: while in play, and the change that ends its play)"),
);
export const MarketsMessage = component(
  "MarketsMessage",
  z
    .strictObject({ event_id: z.string(), markets: z.array(Market), ...freshness, conflated })
    .describe("`markets`: the markets that changed, each whole (conflated: all the event's markets)"),
);
export const LineupsMessage = component(
  "LineupsMessage",
  z.strictObject({ lineups: Lineup, ...freshness }).describe("`lineups`: both lineups after a change"),
);
export const EndMessage = component(
  "EndMessage",
  z
    .strictObject({ event_id: z.string(), status: z.enum(EVENT_STATUSES), ...freshness })
    .describe("`end`: the event is finished (or cancelled); the event's stream closes after it"),
);
export const StaleMessage = component(
  "StaleMessage",
  z
    .strictObject({
      stale: z.boolean().describe("true: the instance cannot hear the feed; false: it can again"),
      since: z.iso.datetime().optional().describe("When it last heard the feed"),
      ...freshness,
    })
    .describe("`stale`: whether what the stream shows may be out of date; the missed changes follow when it clears"),
);
export const ErrorMessage = component(
  "ErrorMessage",
  Problem.extend(freshness).describe(
    "`error`: the stream's last message when the service ends it (`key_revoked`, `key_expired`, `sport_not_covered`, `unavailable`)",
  ),
);

/** One message as a client reads it: its `event:` name, its `id:` (none on `end`, `stale`, `error`) and its data. */
function message<E extends string, D extends z.ZodType>(event: E, data: D) {
  return z.strictObject({ event: z.literal(event), id: z.int().nullable(), data });
}

/** The messages of an event's stream (`GET /api/v1/events/{id}/stream`). */
export const EventStreamMessage = z.discriminatedUnion("event", [
  message("snapshot", EventSnapshotMessage),
  message("event", EventMessage),
  message("markets", MarketsMessage),
  message("lineups", LineupsMessage),
  message("end", EndMessage),
  message("stale", StaleMessage),
  message("error", ErrorMessage),
]);

/** The messages of the board stream (`GET /api/v1/odds/stream`). */
export const BoardStreamMessage = z.discriminatedUnion("event", [
  message("snapshot", BoardSnapshotMessage),
  message("event", EventMessage),
  message("markets", MarketsMessage),
  message("stale", StaleMessage),
  message("error", ErrorMessage),
]);

/** A stream's data schemas by message name, in the order the API reference lists them. */
export function messagesOf(stream: typeof EventStreamMessage | typeof BoardStreamMessage): Record<string, z.ZodType> {
  const options: readonly z.ZodObject<{ event: z.ZodLiteral<string>; data: z.ZodType }>[] = stream.options;
  return Object.fromEntries(options.map((option) => [option.shape.event.value, option.shape.data]));
}

export const ChangesQuery = z.strictObject({
  since: wholeNumber(
    0,
    Number.MAX_SAFE_INTEGER,
    undefined,
    "required: the revision to go on from; any answer's meta.revision will do (GET /api/v1/odds gives the current one)",
  ).describe(
    "Required. A revision: `meta.revision` of an answer, the `id` of a stream message, or `meta.next_since` of the " +
      "previous page",
  ),
  sport: Sport.optional().describe("Default: every sport the key covers"),
  limit: wholeNumber(1, 1000, 100).describe("At most this many changes, 1 to 1000"),
});

export const Change = component(
  "Change",
  z
    .discriminatedUnion("event", [
      z.strictObject({ id: z.int(), event: z.literal("event"), data: EventMessage }),
      z.strictObject({ id: z.int(), event: z.literal("markets"), data: MarketsMessage }),
    ])
    .describe(
      "One message of the board stream: its `id` (the revision), `event` name and `data`, as the stream sent it",
    ),
);

export const ChangesMeta = component(
  "ChangesMeta",
  Meta.extend({
    next_since: z
      .int()
      .describe(
        "Pass as `since` for what comes next; equal to `revision`, the last revision this page examined (it ends at " +
          `\`limit\` changes, or after ${REPLAY_REVISIONS.toLocaleString("en")} revisions examined)`,
      ),
    more: z
      .boolean()
      .describe("true when later revisions exist already (the page ended early): ask again from `next_since` at once"),
  }),
);
