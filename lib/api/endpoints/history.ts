import type { z } from "zod";
import { freshness } from "../../streams/messages.ts";
import { HistoryGone, REPLAY_REVISIONS, replayed } from "../../streams/replay.ts";
import { beyondHistory, latestMoment, oldestMoment, revisionOf } from "./as-of.ts";
import { coveredSports, eventOf } from "../credentials/entitlement.ts";
import { ApiError } from "../request/errors.ts";
import { marketPoints } from "./market-points.ts";
import { Payload } from "../request/payload.ts";
import { defineEndpoint, type RequestContext } from "../request/pipeline.ts";
import { envelope, MarketHistory } from "./schemas.ts";
import { MarketHistoryPath, MarketHistoryQuery } from "./queries.ts";
import { Change, ChangesMeta, ChangesQuery } from "./stream-schemas.ts";

// What happened before the view's revision, read from the revision history: the same derivation
// as a resuming stream's replay (lib/streams/replay.ts), so a poller and a stream see the same.

function retentionExceeded(context: RequestContext, since: number): ApiError {
  return new ApiError(
    "retention_exceeded",
    `Revision ${since} is older than the history kept (${context.historySeconds} seconds): read the current state ` +
      "(GET /api/v1/odds) and go on from its meta.revision.",
  );
}

// GET /api/v1/changes: the board stream's messages after a revision, a page at a time
export const listChanges = defineEndpoint({
  operationId: "listChanges",
  path: "/api/v1/changes",
  tag: "Streams",
  summary: "What changed since a revision",
  description:
    "The messages a board stream (`GET /api/v1/odds/stream` with the same `sport`, every market type) sent after " +
    "`since`, in order, each as the stream sent it: `event` (an event in play changed, came into play with all its " +
    "markets, or left play) and `markets` (the markets that changed, each whole). For polling instead of a stream: " +
    "read `GET /api/v1/odds`, then ask for `since=<its meta.revision>`, then `since=<meta.next_since>` of each " +
    "answer; nothing is missed or repeated. One answer examines at most " +
    `${REPLAY_REVISIONS.toLocaleString("en")} revisions (of every sport, those filtered out included), so a page ` +
    "may hold fewer than `limit` changes, or none, while more follow: `meta.more` says so; ask again from " +
    "`next_since` at once. An empty page with `more: false` means nothing changed yet. A revision older than the " +
    "history kept (`history_seconds` in `GET /api/v1/me`) is 410 `retention_exceeded`. A sandbox key reads the " +
    'delayed view: nothing younger than its delay.\n\n```sh\ncurl -H "Authorization: Bearer $KEY" ' +
    '"http://localhost:3000/api/v1/changes?since=$REVISION&limit=10"\n```',
  query: ChangesQuery,
  response: envelope(Change.array(), ChangesMeta),
  errors: ["sport_not_covered", "retention_exceeded"],
  async handle(context, { query }) {
    const filter = { sports: coveredSports(context, query.sport), type: null };
    // The view moves on while the history is read: the page goes through the revision it had now,
    // or through the most one answer examines.
    const current = context.view.revision;
    const through = Math.min(current, query.since + REPLAY_REVISIONS);
    if (query.since > context.history.mirror("present").revision) {
      throw new ApiError("invalid_parameter", `There is no revision ${query.since} yet.`, {
        errors: [{ param: "since", message: `at most the current revision, ${current}` }],
      });
    }
    const changes: z.infer<typeof Change>[] = [];
    let last = Math.max(query.since, through);
    const fresh = (revision: { recordedAt: Date }) =>
      freshness(context.sandbox, context.delaySeconds, revision.recordedAt);
    try {
      for await (const { revision, messages } of replayed(
        context.history,
        { kind: "board", filter },
        query.since,
        through,
        fresh,
      )) {
        // A page ends between revisions, so next_since never splits one.
        if (changes.length + messages.length > query.limit) {
          last = revision - 1;
          break;
        }
        for (const message of messages) changes.push(message as z.infer<typeof Change>);
      }
    } catch (error) {
      if (error instanceof HistoryGone) throw retentionExceeded(context, query.since);
      throw error;
    }
    return { payload: new Payload(changes), meta: { next_since: last, revision: last, more: last < current } };
  },
});

// GET /api/v1/events/{id}/markets/{market_id}/history: one market's every change, for a chart
export const marketHistory = defineEndpoint({
  operationId: "getMarketHistory",
  path: "/api/v1/events/{id}/markets/{market_id}/history",
  tag: "Odds",
  summary: "One market's history",
  description:
    "Every change of one market of an event, oldest first, read from the revision history: the market as it was at " +
    "`from` (or, without it, the oldest state kept) as the first point, so a chart starts with a value, then one " +
    "point per change through `to`, each with its price per outcome, the market's status and line, and the revision " +
    "(the `id` of the stream message that carried it). `to` is at most now; for a sandbox key, its delay ago, so it " +
    "never sees a later change. `from` older than the history kept (`history_seconds` in `GET /api/v1/me`): 410 " +
    '`retention_exceeded`.\n\n```sh\ncurl -H "Authorization: Bearer $KEY" ' +
    '"http://localhost:3000/api/v1/events/$EVENT/markets/$MARKET/history"\n```',
  params: MarketHistoryPath,
  query: MarketHistoryQuery,
  response: envelope(MarketHistory),
  errors: ["not_found", "sport_not_covered", "session_expired", "retention_exceeded"],
  console: true,
  async handle(context, { params, query }) {
    // The key's view now: nothing later is read, and meta.revision says where the points end.
    const through = context.view.revision;
    const document = eventOf(context, params.id);
    if (!document.markets.some((market) => market.id === params.market_id)) {
      throw new ApiError("not_found", `Event ${params.id} has no market ${params.market_id}.`);
    }
    const from = query.from === undefined ? null : new Date(query.from);
    const latest = latestMoment(context);
    const to = query.to === undefined || new Date(query.to) > latest ? latest : new Date(query.to);
    if (from && query.to !== undefined && from > new Date(query.to)) {
      throw new ApiError("invalid_parameter", `from=${query.from} is after to=${query.to}.`, {
        errors: [{ param: "from", message: "at most `to`" }],
      });
    }
    if (to < oldestMoment(context)) throw beyondHistory(context, `to=${to.toISOString()}`);
    // Later than the key sees: 400; older than the history holds whole: 410.
    if (from) await revisionOf(context, { at: from }, "from");
    const rows = await context.history.marketRevisions(params.id, params.market_id, { from, to, through });
    const data: z.infer<typeof MarketHistory> = {
      event_id: params.id,
      market_id: params.market_id,
      points: marketPoints(rows, from),
    };
    return { payload: new Payload(data), meta: { revision: through } };
  },
});
