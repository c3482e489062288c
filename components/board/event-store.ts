import type { z } from "zod";
import type { Event, Lineup } from "@/lib/api/endpoints/schemas";
import type { EventStreamMessage } from "@/lib/api/endpoints/stream-schemas";
import { appendPoints, type Movement } from "./price-series";
import { notify, StreamStore, subscribe, type Market } from "./stream-store";

// One followed event's state, from its own stream: the event, every market, both lineups, a short
// timeline of what changed (scores, status, suspensions, price moves), newest first, and each
// market's states as the stream carried them, to extend its line movement. An event that was over
// before the page opened has no stream (204): its state is the one read, its final markets from
// the history (`final`).

export type EventState = z.infer<typeof Event>;
export type Lineups = z.infer<typeof Lineup>;
export type EventMessage = z.infer<typeof EventStreamMessage>;
/** A price that moved, for the timeline: the outcome, its price before and after. */
export type PriceMove = { outcome: string; from: number; to: number };
export type TimelineEntry = { id: number; at: string; text: string; moves?: PriceMove[] };
export type FollowedEvent = {
  event: EventState | null;
  markets: Market[];
  lineups: Lineups | null;
  timeline: TimelineEntry[];
  movement: Movement;
  /** The stream said `end`: the event is over and its markets settled. */
  over: boolean;
};

const TIMELINE_LENGTH = 30;
/** Price moves are many: the timeline keeps the latest of them, and every score and status change beside. */
const TIMELINE_MOVES = 15;

export class EventStore extends StreamStore<EventMessage> {
  private state: FollowedEvent = { event: null, markets: [], lineups: null, timeline: [], movement: {}, over: false };
  private listeners = new Set<() => void>();
  private entryId = 0;

  now = (): FollowedEvent => this.state;
  subscribe = (listener: () => void): (() => void) => subscribe(this.listeners, listener);

  /**
   * The first state, from GET /api/v1/events/{id} and its lineups, until the stream's snapshot; the
   * lineups may be read after the event, and an event over before the page opened gets its final
   * markets from the history.
   */
  seed(event: EventState, lineups: Lineups | null, markets?: Market[]): void {
    if (this.snapshotSeen) return;
    const next = {
      ...this.state,
      event: this.state.event ?? event,
      lineups: this.state.lineups ?? lineups,
      markets: markets ?? this.state.markets,
    };
    if (next.event === this.state.event && next.lineups === this.state.lineups && next.markets === this.state.markets) {
      return;
    }
    this.state = next;
    notify(this.listeners);
  }

  protected apply(messages: EventMessage[]): void {
    if (messages.length === 0) return;
    let { event, markets, lineups, timeline, movement, over } = this.state;
    const entries: TimelineEntry[] = [];
    const note = (at: string, text: string) => entries.push({ id: ++this.entryId, at, text });
    for (const { event: name, id, data } of messages) {
      const asOf = data.as_of;
      if (name === "snapshot") {
        event = data.event;
        markets = data.markets;
        if (id !== null) movement = appendPoints(movement, id, data.markets);
        lineups = data.lineups;
        if (data.resync === true) note(asOf, "Caught up with the feed after a gap");
      } else if (name === "event") {
        const next = data.event;
        if (event) for (const text of eventChanges(event, next)) note(next.updated_at, text);
        event = next;
      } else if (name === "markets") {
        const changed = data.markets;
        for (const market of changed) {
          const before = markets.find((m) => m.id === market.id);
          if (before && before.status !== market.status) note(market.updated_at, marketChange(market));
          const moves = before ? priceMoves(before, market) : [];
          if (moves.length > 0) {
            entries.push({ id: ++this.entryId, at: market.updated_at, text: market.name, moves });
          }
        }
        markets = this.mergeMarkets(markets, changed);
        if (id !== null) movement = appendPoints(movement, id, changed);
      } else if (name === "lineups") {
        lineups = data.lineups;
        note(asOf, "Lineups updated");
      } else if (name === "end") {
        over = true;
        note(asOf, data.status === "cancelled" ? "Event cancelled" : "Full time: markets settled");
      }
    }
    timeline = trimTimeline([...entries.reverse(), ...timeline]);
    this.state = { event, markets, lineups, timeline, movement, over };
    notify(this.listeners);
  }
}

/** The outcomes of an open market whose price moved, in the market's order. */
export function priceMoves(before: Market, after: Market): PriceMove[] {
  if (after.status !== "open") return [];
  const prices = new Map(before.outcomes.map((outcome) => [outcome.id, outcome.price]));
  const moves: PriceMove[] = [];
  for (const outcome of after.outcomes) {
    const from = prices.get(outcome.id);
    if (from !== undefined && from !== outcome.price && outcome.status === "active") {
      moves.push({ outcome: outcome.name, from, to: outcome.price });
    }
  }
  return moves;
}

/** The latest entries, newest first: price moves make way for score and status changes. */
export function trimTimeline(entries: readonly TimelineEntry[]): TimelineEntry[] {
  let moves = 0;
  const kept = entries.filter((entry) => !entry.moves || ++moves <= TIMELINE_MOVES);
  return kept.slice(0, TIMELINE_LENGTH);
}

function eventChanges(before: EventState, after: EventState): string[] {
  const texts: string[] = [];
  if (after.score.home !== before.score.home || after.score.away !== before.score.away) {
    const scorer = after.score.home > before.score.home ? after.home : after.away;
    texts.push(`${scorer} score: ${after.score.home}–${after.score.away}`);
  }
  if (after.status !== before.status) texts.push(`Status: ${after.status}`);
  if (after.period !== before.period && after.period) texts.push(after.period);
  return texts;
}

function marketChange(market: Market): string {
  if (market.status === "suspended") return `${market.name} suspended`;
  if (market.status === "settled") {
    const winners = market.outcomes.filter((outcome) => outcome.status === "won").map((outcome) => outcome.name);
    return `${market.name} settled${winners.length ? `: ${winners.join(", ")}` : ""}`;
  }
  return `${market.name} open again`;
}
