import type { Received } from "./sse.ts";

// What a client of a stream holds after each message, built from the messages it received as a
// client would build it: for comparing with what the API says the feed was at a revision.

type Json = Record<string, unknown>;
export type StreamedMarket = {
  id: string;
  status: string;
  line: number | null;
  outcomes: { id: string; price: number; status: string }[];
};
export type BoardItem = Json & { id: string; kickoff: string; status: string; markets: StreamedMarket[] };
export type EventHeld = { event: Json; markets: StreamedMarket[]; lineups: Json };

/** A client's state after each message with an id; `at(revision)` is what it held right after it. */
export class Recorded<S> {
  private readonly states: { id: number; state: S }[] = [];

  record(id: number, state: S): void {
    this.states.push({ id, state: structuredClone(state) });
  }

  get ids(): number[] {
    return this.states.map((s) => s.id);
  }

  at(revision: number): S {
    const held = this.states.filter((s) => s.id <= revision).at(-1);
    if (!held) throw new Error(`nothing recorded at or before revision ${revision}`);
    return held.state;
  }
}

/** Changed markets replace theirs, new ones come last: the order the service keeps. */
const merged = (markets: StreamedMarket[], changed: StreamedMarket[]) => [
  ...markets.map((m) => changed.find((c) => c.id === m.id) ?? m),
  ...changed.filter((c) => !markets.some((m) => m.id === c.id)),
];

const listOrder = (a: BoardItem, b: BoardItem) =>
  Date.parse(a.kickoff) - Date.parse(b.kickoff) || (a.id < b.id ? -1 : 1);

/** An event stream's client: the event, its markets and its lineups. */
export function eventStates(messages: readonly Received[]): Recorded<EventHeld> {
  const recorded = new Recorded<EventHeld>();
  let state: EventHeld = { event: {}, markets: [], lineups: {} };
  for (const m of messages) {
    if (m.event === "snapshot") {
      const { event, markets, lineups } = m.data as EventHeld;
      state = { event, markets, lineups };
    } else if (m.event === "event") state.event = m.data.event as Json;
    else if (m.event === "markets") state.markets = merged(state.markets, m.data.markets as StreamedMarket[]);
    else if (m.event === "lineups") state.lineups = m.data.lineups as Json;
    if (m.id !== undefined) recorded.record(m.id, state);
  }
  return recorded;
}

/** The board stream's client: every event in play with its markets, in list order, as GET /odds. */
export function boardStates(messages: readonly Received[]): Recorded<BoardItem[]> {
  const recorded = new Recorded<BoardItem[]>();
  const board = new Map<string, BoardItem>();
  for (const m of messages) {
    if (m.event === "snapshot") for (const item of m.data.events as BoardItem[]) board.set(item.id, item);
    if (m.event === "event") {
      const event = m.data.event as BoardItem;
      const markets = (m.data.markets as StreamedMarket[] | undefined) ?? board.get(event.id)?.markets ?? [];
      if (["live", "suspended"].includes(event.status)) board.set(event.id, { ...event, markets });
      else board.delete(event.id);
    }
    if (m.event === "markets") {
      const item = board.get(m.data.event_id as string)!;
      item.markets = merged(item.markets, m.data.markets as StreamedMarket[]);
    }
    if (m.id !== undefined) recorded.record(m.id, [...board.values()].sort(listOrder));
  }
  return recorded;
}
