import type { EventStatus, Market, Sport } from "../db/schema/index.ts";
import type { Revision } from "../feed/history.ts";
import { orderedState, type EventDocument, type FeedMirror } from "../feed/mirror.ts";
import type { EventState, LineupsState } from "../feed/schemas.ts";

// What each stream message says, built the same way for live delivery and for a replay from the
// revision history, so a client resuming gets exactly the messages it would have got live.

export const IN_PLAY: readonly string[] = ["live", "suspended"] satisfies EventStatus[];
/** After these an event changes no more: its stream sends `end` and closes. */
export const TERMINAL: readonly string[] = ["finished", "cancelled"] satisfies EventStatus[];

/** What every message's data carries, so a client always knows how old it is. */
export type Freshness = { sandbox: boolean; delay_seconds: number; as_of: string };

/** A message before it is written: its SSE event name, data, and revision (the SSE id), if any. */
export type StreamMessage = { event: string; data: Record<string, unknown>; id?: number; retry?: number };

// An ended stream has nothing more to send: a client that reconnects anyway (every EventSource
// does when a stream closes) waits an hour, and is then answered 204, on which it stops.
export const END_RETRY_MS = 3_600_000;

/** What a board stream shows: events of these sports, markets of this type (all when null). */
export type BoardFilter = { sports: readonly Sport[]; type: string | null };

export type ResyncReason = "retention_exceeded" | "unknown_id" | "slow_client" | "bus_reconnected";

const servedEvent = (event: EventState, sandbox: boolean) => ({ ...event, sandbox });
const servedLineups = (lineups: LineupsState | null, eventId: string, sandbox: boolean) => ({
  ...(lineups ?? { event_id: eventId, home: [], away: [] }),
  sandbox,
});

/** The markets a revision changed: the ingest stamps each changed market with the revision's time. */
export function changedMarkets(revision: Revision): Market[] {
  const at = revision.recordedAt.toISOString();
  return (orderedState(revision) as Market[]).filter((market) => market.updated_at === at);
}

const ofType = (markets: Market[], type: string | null) =>
  type === null ? markets : markets.filter((market) => market.type === type);

export function freshness(sandbox: boolean, delaySeconds: number, asOf: Date): Freshness {
  return { sandbox, delay_seconds: delaySeconds, as_of: asOf.toISOString() };
}

/** The messages of one event's stream for one revision of it. */
export function eventStreamMessages(revision: Revision, eventId: string, fresh: Freshness): StreamMessage[] {
  const id = revision.revision;
  switch (revision.kind) {
    case "event":
      return [
        { event: "event", id, data: { event: servedEvent(revision.state as EventState, fresh.sandbox), ...fresh } },
      ];
    case "markets":
      return [
        { event: "markets", id, data: { event_id: revision.eventId, markets: changedMarkets(revision), ...fresh } },
      ];
    case "lineups":
      return [
        {
          event: "lineups",
          id,
          data: { lineups: servedLineups(orderedState(revision) as LineupsState, eventId, fresh.sandbox), ...fresh },
        },
      ];
  }
}

/**
 * The messages of a board stream for one revision: an event's changes while it is in play and the
 * change that takes it off the board; the changed markets of its sports (of the type asked for).
 * An event coming into play brings all its markets, since the board had none of them.
 */
export function boardMessages(
  filter: BoardFilter,
  revision: Revision,
  document: EventDocument,
  statusBefore: string | undefined,
  fresh: Freshness,
): StreamMessage[] {
  if (!filter.sports.includes(document.event.sport)) return [];
  const id = revision.revision;
  if (revision.kind === "event") {
    const state = orderedState(revision) as EventState;
    const inPlay = IN_PLAY.includes(state.status);
    const wasInPlay = statusBefore !== undefined && IN_PLAY.includes(statusBefore);
    if (!inPlay && !wasInPlay) return [];
    const data: Record<string, unknown> = { event: servedEvent(state, fresh.sandbox), ...fresh };
    if (inPlay && !wasInPlay) data.markets = ofType(document.markets, filter.type);
    return [{ event: "event", id, data }];
  }
  if (revision.kind === "markets" && IN_PLAY.includes(document.event.status)) {
    const markets = ofType(changedMarkets(revision), filter.type);
    if (markets.length === 0) return [];
    return [{ event: "markets", id, data: { event_id: revision.eventId, markets, ...fresh } }];
  }
  return [];
}

/** `end`: the event is over and its stream closes after this. */
export function endMessage(document: EventDocument, fresh: Freshness): StreamMessage {
  return {
    event: "end",
    data: { event_id: document.event.id, status: document.event.status, ...fresh },
    retry: END_RETRY_MS,
  };
}

type Resync = { reason: ResyncReason } | null;
const resyncFields = (resync: Resync) => (resync ? { resync: true, reason: resync.reason } : {});

/** The full current state of one event: what its stream starts with, and starts again from. */
export function eventSnapshot(
  mirror: FeedMirror,
  document: EventDocument,
  fresh: Freshness,
  resync: Resync,
): StreamMessage {
  return {
    event: "snapshot",
    id: mirror.revision,
    data: {
      event: servedEvent(document.event, fresh.sandbox),
      markets: document.markets,
      lineups: servedLineups(document.lineups, document.event.id, fresh.sandbox),
      ...fresh,
      ...resyncFields(resync),
    },
  };
}

/** Every event in play of the board's sports with its markets, in list order: as GET /odds says. */
export function boardSnapshot(
  mirror: FeedMirror,
  filter: BoardFilter,
  fresh: Freshness,
  resync: Resync,
): StreamMessage {
  const events = [];
  for (const document of mirror.inListOrder()) {
    if (!IN_PLAY.includes(document.event.status) || !filter.sports.includes(document.event.sport)) continue;
    events.push({ ...document.event, markets: ofType(document.markets, filter.type), sandbox: fresh.sandbox });
  }
  return { event: "snapshot", id: mirror.revision, data: { events, ...fresh, ...resyncFields(resync) } };
}

/**
 * What a board client that fell behind after `after` needs, instead of the backlog: the latest
 * state of every event and every event's markets that changed since, each once, marked
 * `conflated`, in revision order (so ids still increase).
 */
export function boardCatchUp(
  mirror: FeedMirror,
  filter: BoardFilter,
  after: number,
  fresh: Freshness,
): StreamMessage[] {
  const messages: StreamMessage[] = [];
  for (const document of mirror.inListOrder()) {
    const { event, changedAt } = document;
    if (!filter.sports.includes(event.sport)) continue;
    const inPlay = IN_PLAY.includes(event.status);
    if (changedAt.event > after && (inPlay || TERMINAL.includes(event.status))) {
      messages.push({
        event: "event",
        id: changedAt.event,
        data: { event: servedEvent(event, fresh.sandbox), ...fresh, conflated: true },
      });
    }
    if (inPlay && changedAt.markets > after) {
      messages.push({
        event: "markets",
        id: changedAt.markets,
        data: { event_id: event.id, markets: ofType(document.markets, filter.type), ...fresh, conflated: true },
      });
    }
  }
  return messages.sort((a, b) => a.id! - b.id!);
}
