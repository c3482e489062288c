import { z } from "zod";
import type { EventStatus, Sport } from "../../db/schema/index.ts";
import type { EventDocument, FeedMirror } from "../../feed/mirror.ts";
import { compareListOrder } from "../../feed/mirror.ts";
import { nextMonthStart } from "../../metering/policies.ts";
import { projectedExhaustion } from "../../metering/projection.ts";
import { servedAt } from "./as-of.ts";
import { decodeCursor, encodeCursor, type ListPosition } from "./cursor.ts";
import { listChanges, marketHistory } from "./history.ts";
import { mintStreamToken, STREAM_ENDPOINTS } from "./streams.ts";
import { coveredSports, eventOf } from "../credentials/entitlement.ts";
import { Payload } from "../request/payload.ts";
import { defineEndpoint, type Reply, type RequestContext } from "../request/pipeline.ts";
import {
  envelope,
  Event,
  EventAnswer,
  EventOddsAnswer,
  EventWithMarkets,
  KeyDescription,
  Lineup,
  LineupAnswer,
  ListMeta,
  OddsAnswer,
} from "./schemas.ts";
import { AsOfQuery, EventOddsQuery, EventPath, EventsQuery, NoQuery, OddsQuery } from "./queries.ts";
import { cachedOn } from "./view-cache.ts";

const LISTED_STATUSES: EventStatus[] = ["live", "upcoming"];
const IN_PLAY: EventStatus[] = ["live", "suspended"];

// GET /api/v1/me: describes the calling key
export const describeKey = defineEndpoint({
  operationId: "describeKey",
  path: "/api/v1/me",
  tag: "Key",
  summary: "Describe the calling key",
  description:
    "The key that made the request, its environment, sports, plan and limits, and its usage this month with when the quota runs out at the month's pace. " +
    "Answered with `Cache-Control: no-store`, since it echoes the key.",
  query: NoQuery,
  response: envelope(KeyDescription),
  errors: [],
  handle(context) {
    const { key, at } = context;
    const resetsAt = nextMonthStart(at);
    const exhaustion = projectedExhaustion(context.requestsUsed, key.monthlyQuota, {
      monthStart: Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1),
      at: at.getTime(),
      monthEnd: resetsAt.getTime(),
    });
    return {
      payload: new Payload({
        key: context.keyValue,
        environment: key.environment,
        sports: key.sports,
        name: key.name ?? null,
        allowed_ips: key.allowList ? [...key.allowList.networks] : null,
        last_used_at: key.lastUsedAt?.toISOString() ?? null,
        expires_at: key.expiresAt?.toISOString() ?? null,
        plan: key.planCode,
        created_at: key.createdAt.toISOString(),
        delay_seconds: context.delaySeconds,
        limits: {
          requests_per_month: key.monthlyQuota,
          requests_per_second: key.requestsPerSecond,
          concurrent_streams: key.concurrentStreams,
        },
        own_limits: key.ownLimits
          ? {
              requests_per_month: key.ownLimits.monthlyQuota,
              requests_per_second: key.ownLimits.requestsPerSecond,
            }
          : null,
        quota_resets_at: resetsAt.toISOString(),
        history_seconds: context.historySeconds,
        usage: {
          requests_used: context.requestsUsed,
          requests_quota: key.monthlyQuota,
          resets_at: resetsAt.toISOString(),
          projected_exhaustion_at: exhaustion === null ? null : new Date(exhaustion).toISOString(),
          organisation:
            key.pool && context.organisationUsed !== null
              ? {
                  requests_used: context.organisationUsed,
                  requests_quota: key.pool.monthlyQuota,
                  requests_per_second: key.pool.requestsPerSecond,
                  concurrent_streams: key.pool.concurrentStreams,
                }
              : null,
        },
      } satisfies z.infer<typeof KeyDescription>),
      cacheControl: "no-store",
    };
  },
});

const served = (context: RequestContext, document: EventDocument): Event => ({
  ...document.event,
  sandbox: context.sandbox,
});

const AS_OF_NOTE =
  "With `as_of` (a time or a revision), the answer is the state at that moment, read from the revision history, " +
  "with `meta.revision` the revision it shows; the objects are the same as now.";

// GET /api/v1/events: lists events, live and upcoming, in kickoff order, a page at a time
export const listEvents = defineEndpoint({
  operationId: "listEvents",
  path: "/api/v1/events",
  tag: "Events",
  summary: "List events",
  description:
    "Live and upcoming events of the sports the key covers, ordered by kickoff, then id, in pages of `limit`. " +
    "Follow `meta.next_cursor` until it is null; paging is by position, so an event is never served twice in one pass. " +
    "Events in other states (finished, postponed, cancelled, suspended) are reachable by id. " +
    `${AS_OF_NOTE} Send the same \`as_of\` with every page.\n\n` +
    '```sh\ncurl -H "Authorization: Bearer $KEY" "http://localhost:3000/api/v1/events?status=live&as_of=$REVISION"\n```',
  query: EventsQuery,
  response: envelope(z.array(Event), ListMeta),
  errors: ["sport_not_covered", "retention_exceeded"],
  handle(context, { query }) {
    const sports = coveredSports(context, query.sport);
    const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
    if (!query.as_of) return eventsPage(context, context.view, sports, after, query);
    return servedAt(context, query.as_of, (view) => eventsPage(context, view, sports, after, query));
  },
});

function eventsPage(
  context: RequestContext,
  view: FeedMirror,
  sports: Sport[],
  after: ListPosition | null,
  query: { status?: EventStatus; limit: number; cursor?: string },
): Reply {
  const statuses = query.status ? [query.status] : LISTED_STATUSES;
  const cacheKey = `events|${sports.join(",")}|${statuses.join(",")}|${query.limit}|${query.cursor ?? ""}`;
  const page = cachedOn(view, cacheKey, () => {
    const ordered = view.inListOrder();
    const items: Event[] = [];
    let more = false;
    for (let i = after ? firstAfter(ordered, after) : 0; i < ordered.length; i++) {
      const document = ordered[i]!;
      if (!sports.includes(document.event.sport) || !statuses.includes(document.event.status)) continue;
      if (items.length === query.limit) {
        more = true;
        break;
      }
      items.push(served(context, document));
    }
    const last = items.at(-1);
    return { payload: new Payload(items), nextCursor: more && last ? encodeCursor(last) : null };
  });
  return { payload: page.payload, meta: { next_cursor: page.nextCursor } };
}

/** Index of the first event after `position` in list order (binary search). */
function firstAfter(ordered: readonly EventDocument[], position: ListPosition): number {
  let low = 0;
  let high = ordered.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareListOrder(ordered[middle]!.event, position) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

// GET /api/v1/events/{id}: one event
export const getEvent = defineEndpoint({
  operationId: "getEvent",
  path: "/api/v1/events/{id}",
  tag: "Events",
  summary: "One event",
  description: `The event in any state, the same object as a list item. ${AS_OF_NOTE}`,
  params: EventPath,
  query: AsOfQuery,
  response: EventAnswer,
  errors: ["not_found", "sport_not_covered", "session_expired", "retention_exceeded"],
  console: true,
  handle(context, { params, query }) {
    const serve = (view: FeedMirror): Reply => {
      const document = eventOf(context, params.id, view);
      return { payload: cachedOn(view, `event|${params.id}`, () => new Payload(served(context, document))) };
    };
    return query.as_of ? servedAt(context, query.as_of, serve, [params.id]) : serve(context.view);
  },
});

// GET /api/v1/events/{id}/lineups: lineups of one event
export const getLineups = defineEndpoint({
  operationId: "getLineups",
  path: "/api/v1/events/{id}/lineups",
  tag: "Events",
  summary: "Lineups of one event",
  description:
    "The players of both sides with their numbers and position codes; for tennis, the two players as the two sides. " +
    `Both lists are empty until the lineups are published (about an hour before kickoff). ${AS_OF_NOTE}`,
  params: EventPath,
  query: AsOfQuery,
  response: LineupAnswer,
  errors: ["not_found", "sport_not_covered", "session_expired", "retention_exceeded"],
  console: true,
  handle(context, { params, query }) {
    const serve = (view: FeedMirror): Reply => {
      const document = eventOf(context, params.id, view);
      return {
        payload: cachedOn(view, `lineups|${params.id}`, () => {
          const lineups = document.lineups ?? { event_id: params.id, home: [], away: [] };
          return new Payload({ ...lineups, sandbox: context.sandbox } satisfies z.infer<typeof Lineup>);
        }),
      };
    };
    return query.as_of ? servedAt(context, query.as_of, serve, [params.id]) : serve(context.view);
  },
});

// GET /api/v1/odds: every event in play with its markets, in one response, for boards
export const listOdds = defineEndpoint({
  operationId: "listOdds",
  path: "/api/v1/odds",
  tag: "Odds",
  summary: "All events in play with their markets",
  description:
    "Every live event, and every suspended one (its markets suspended), with its markets, in one response (not paged), " +
    "in kickoff order. `type` keeps only markets of that type; an event whose sport does not offer it is listed with no markets. " +
    `${AS_OF_NOTE}\n\n` +
    '```sh\ncurl -H "Authorization: Bearer $KEY" "http://localhost:3000/api/v1/odds?sport=soccer&as_of=$REVISION"\n```',
  query: OddsQuery,
  response: OddsAnswer,
  errors: ["sport_not_covered", "session_expired", "retention_exceeded"],
  console: true,
  handle(context, { query }) {
    const sports = coveredSports(context, query.sport);
    const serve = (view: FeedMirror): Reply => {
      const payload = cachedOn(view, `odds|${sports.join(",")}|${query.type ?? ""}`, () => {
        const board: EventWithMarkets[] = [];
        for (const document of view.inListOrder()) {
          if (!IN_PLAY.includes(document.event.status) || !sports.includes(document.event.sport)) continue;
          const markets = query.type ? document.markets.filter((m) => m.type === query.type) : document.markets;
          board.push({ ...document.event, markets, sandbox: context.sandbox });
        }
        return new Payload(board);
      });
      return { payload };
    };
    return query.as_of ? servedAt(context, query.as_of, serve) : serve(context.view);
  },
});

// GET /api/v1/events/{id}/odds: one event with its markets, in any state
export const getEventOdds = defineEndpoint({
  operationId: "getEventOdds",
  path: "/api/v1/events/{id}/odds",
  tag: "Odds",
  summary: "One event with its markets",
  description:
    "One event in any state with its markets, the same object as an item of `GET /api/v1/odds`: an upcoming event's " +
    "pre-match markets (open from the announcement), a live or suspended one's in-play markets, a finished one's " +
    "settled markets. `type` keeps only markets of that type; a sport that does not offer it shows none. " +
    `${AS_OF_NOTE}\n\n` +
    '```sh\ncurl -H "Authorization: Bearer $KEY" "http://localhost:3000/api/v1/events/$EVENT/odds?type=match_winner"\n```',
  params: EventPath,
  query: EventOddsQuery,
  response: EventOddsAnswer,
  errors: ["not_found", "sport_not_covered", "retention_exceeded"],
  handle(context, { params, query }) {
    const serve = (view: FeedMirror): Reply => {
      const document = eventOf(context, params.id, view);
      const payload = cachedOn(view, `event-odds|${params.id}|${query.type ?? ""}`, () => {
        const markets = query.type ? document.markets.filter((m) => m.type === query.type) : document.markets;
        return new Payload({ ...document.event, markets, sandbox: context.sandbox } satisfies EventWithMarkets);
      });
      return { payload };
    };
    return query.as_of ? servedAt(context, query.as_of, serve, [params.id]) : serve(context.view);
  },
});

export const ENDPOINTS = [
  describeKey,
  listEvents,
  getEvent,
  getLineups,
  listOdds,
  getEventOdds,
  ...STREAM_ENDPOINTS,
  mintStreamToken,
  listChanges,
  marketHistory,
];
