import { coveredSports, eventOf } from "../credentials/entitlement.ts";
import { ApiError } from "../request/errors.ts";
import { Payload } from "../request/payload.ts";
import { defineEndpoint, defineStreamEndpoint, type StreamContext, type StreamReply } from "../request/pipeline.ts";
import { streamCurl } from "../documents/stream-curl.ts";
import type { EventDocument } from "../../feed/mirror.ts";
import type { StreamProblem } from "../../streams/errors.ts";
import type { StreamRequest } from "../../streams/hub.ts";
import { TERMINAL } from "../../streams/messages.ts";
import { envelope } from "./schemas.ts";
import {
  BoardSnapshotMessage,
  BoardStreamMessage,
  BoardStreamQuery,
  EventSnapshotMessage,
  EventStreamMessage,
  EventStreamPath,
  EventStreamQuery,
  messagesOf,
  StreamToken,
  StreamTokenQuery,
} from "./stream-schemas.ts";

// The two streams, as endpoints of the API's one pipeline: the same credentials, counting (one
// request to open), limits and errors as every /api/v1 answer, then the stream.

/**
 * The problem a stream's last `error` message carries: the API's answer to the ending's code (its
 * status, title and type), so an ended stream says what a refused request would.
 */
export const streamProblem: StreamProblem = (ending, requestId) =>
  new ApiError(ending.code, ending.message).toProblem(requestId);

type Resume = { last_event_id?: string | undefined; lastEventId?: string | undefined };

// What a client's EventSource updates by itself on each reconnect is the newer: the header, then
// the polyfills' `lastEventId` (a URL opened with `last_event_id` keeps it).
const resumeId = (context: StreamContext, query: Resume) =>
  context.stream.lastEventId ?? query.lastEventId ?? query.last_event_id;

/** Whether a client resuming from `lastEventId` missed changes of the event: they come before `end`. */
function missedChanges(document: EventDocument, lastEventId: string | undefined): boolean {
  if (lastEventId === undefined || !/^\d{1,15}$/.test(lastEventId)) return false;
  return Number(lastEventId) < Math.max(...Object.values(document.changedAt));
}

function opening(context: StreamContext, query: Resume, open: (request: StreamRequest) => void) {
  const stream = context.stream;
  const request = {
    principal: stream.principal,
    view: context.sandbox ? ("delayed" as const) : ("present" as const),
    lastEventId: resumeId(context, query),
    requestId: stream.requestId,
    slot: stream.slot,
  };
  return { stream: (sink) => open({ ...request, sink }) } satisfies StreamReply;
}

/** What both streams share, and a curl command that follows this one. */
function streamNotes(path: string): string {
  return (
    "Server-Sent Events (`text/event-stream`): `snapshot` first, then changes. Each message's `id` is the feed revision, " +
    "strictly increasing; reconnect with `Last-Event-ID` (or `lastEventId`, or `last_event_id`) to get every change " +
    "missed, in order, none repeated, over the whole history kept (`history_seconds` in `GET /api/v1/me`, 7 days by default). " +
    "When that is impossible the stream starts with a `snapshot` marked `resync: true` and a `reason`: a gap is never " +
    "silent. A `: ping` comment comes at least every 15 s; `stale` says when the instance cannot hear the feed, and again " +
    "when it can. A stream the service ends sends a last `error` with the problem (for example `key_revoked`, within a " +
    "second of the revocation), or, when the instance stops, a short `retry:`. Opening a stream counts as one request; " +
    'the plan sets how many can be open at once (429 `rate_limited` with `violated-policies: ["streams"]`). Sandbox ' +
    "keys get each message 60 s after the change, never earlier. A console member's browser may use the session cookie " +
    `instead of a key.\n\n\`\`\`sh\n${streamCurl(path)}\n\`\`\``
  );
}

/** The event stream's example path: an event's id is the reader's own, from the list of events. */
export const EVENT_STREAM_EXAMPLE = "/api/v1/events/$EVENT/stream";
export const BOARD_STREAM_EXAMPLE = "/api/v1/odds/stream?sport=soccer";

// GET /api/v1/events/{id}/stream: follow one event closely
export const streamEvent = defineStreamEndpoint({
  operationId: "streamEvent",
  path: "/api/v1/events/{id}/stream",
  tag: "Streams",
  summary: "Follow one event",
  description:
    "The event, its markets and lineups as they change, until it is over: then `end`, sent with `retry:` of an hour, " +
    "and the stream closes; an EventSource that reconnects anyway is answered 204, on which it stops. An event already " +
    "over is answered 204 at once, unless the client resumes from before its end: then it is sent what it missed, and " +
    "`end`. `$EVENT` below is an event's `id`, from `GET /api/v1/events?status=live` for one in play.\n\n" +
    streamNotes(EVENT_STREAM_EXAMPLE),
  params: EventStreamPath,
  query: EventStreamQuery,
  response: EventSnapshotMessage,
  errors: ["not_found", "sport_not_covered", "session_expired", "token_expired"],
  stream: { messages: messagesOf(EventStreamMessage), example: EVENT_STREAM_EXAMPLE },
  handle(context, { params, query }) {
    const { onlyEvent } = context.stream;
    if (onlyEvent !== null && onlyEvent !== params.id) throw outsideToken(`the stream of event ${onlyEvent}`);
    const document = eventOf(context, params.id);
    // Nothing more will come: 204, on which every EventSource stops instead of reconnecting. A
    // client that dropped before the end is still sent what it missed, then `end`.
    if (TERMINAL.includes(document.event.status) && !missedChanges(document, resumeId(context, query))) {
      return { stream: null };
    }
    return opening(context, query, (request) => context.stream.hub.openEventStream(request, document.event));
  },
});

// GET /api/v1/odds/stream: every event in play with its markets, as they change, for boards
export const streamOdds = defineStreamEndpoint({
  operationId: "streamOdds",
  path: "/api/v1/odds/stream",
  tag: "Streams",
  summary: "Follow every event in play (the odds board)",
  description:
    "Every event in play with its markets, as `GET /api/v1/odds` (same `sport` and `type`), then each change: an event " +
    "coming into play (with all its markets), its changes, the change that ends its play, and changed markets. A client " +
    "that falls behind is not sent the backlog: once it reads again it gets the latest state of each event and each " +
    `event's markets that changed, marked \`conflated: true\`.\n\n${streamNotes(BOARD_STREAM_EXAMPLE)}`,
  query: BoardStreamQuery,
  response: BoardSnapshotMessage,
  errors: ["sport_not_covered", "session_expired", "token_expired"],
  stream: { messages: messagesOf(BoardStreamMessage), example: BOARD_STREAM_EXAMPLE },
  handle(context, { query }) {
    const { onlyEvent } = context.stream;
    if (onlyEvent !== null) throw outsideToken(`the stream of event ${onlyEvent}`);
    const filter = { sports: coveredSports(context, query.sport), type: query.type ?? null };
    return opening(context, query, (request) => context.stream.hub.openBoardStream(request, filter));
  },
});

/** A stream token used beyond what it was minted for. */
function outsideToken(scope: string): ApiError {
  return new ApiError("sport_not_covered", `This stream token opens ${scope} only.`);
}

// GET /api/v1/stream-token: a short-lived token for a browser's EventSource
export const mintStreamToken = defineEndpoint({
  operationId: "mintStreamToken",
  path: "/api/v1/stream-token",
  tag: "Streams",
  summary: "Mint a browser stream token",
  description:
    "A browser's EventSource cannot send headers, and a key never goes in a URL; so your server mints a token for " +
    "the page, which opens `/api/v1/odds/stream?token=…` or `/api/v1/events/{id}/stream?token=…`. Nothing is stored: " +
    "the token is signed, opens streams only (anywhere else: 401 `invalid_api_key`), from any origin, until " +
    "`expires_at` (then 401 `token_expired`; a stream already open goes on), and only what the key sees, narrowed to " +
    "`sport` or to one event (outside it: 403 `sport_not_covered`). A stream opened with it counts against the key " +
    "(one request), holds one of the key's concurrent streams, sees the key's view (a sandbox key's delay included) " +
    "and ends when the key is revoked. Answered with `Cache-Control: no-store`.\n\n" +
    '```sh\ncurl -H "Authorization: Bearer $KEY" "http://localhost:3000/api/v1/stream-token?sport=soccer&ttl=600"\n```',
  query: StreamTokenQuery,
  response: envelope(StreamToken),
  errors: ["not_found", "sport_not_covered"],
  handle(context, { query }) {
    let sport = query.sport === undefined ? null : coveredSports(context, query.sport)[0]!;
    if (query.event_id !== undefined) {
      const { event } = eventOf(context, query.event_id);
      if (sport !== null && event.sport !== sport) {
        throw new ApiError("invalid_parameter", `Event ${event.id} is ${event.sport}, not ${sport}.`, {
          errors: [{ param: "event_id", message: `an event of ${sport}` }],
        });
      }
      sport = event.sport;
    }
    const expiresAt = new Date(Math.floor(context.at.getTime() / 1000) * 1000 + query.ttl * 1000);
    const eventId = query.event_id ?? null;
    const token = context.tokens.mint({
      keyId: context.key.id,
      sport,
      eventId,
      expiresAt,
      mintedFrom: context.clientAddress,
    });
    return {
      payload: new Payload({ token, expires_at: expiresAt.toISOString(), sport, event_id: eventId }),
      cacheControl: "no-store",
    };
  },
});

export const STREAM_ENDPOINTS = [streamEvent, streamOdds];
