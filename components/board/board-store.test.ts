import { beforeAll, describe, expect, it, vi } from "vitest";
import { BoardStore, type EventWithMarkets } from "./board-store.ts";
import { EventStore, trimTimeline } from "./event-store.ts";
import type { Market } from "./stream-store.ts";

// The stores apply a frame's messages at the next animation frame; Node has no frames, so one is
// a timer here.
beforeAll(() => {
  vi.stubGlobal("requestAnimationFrame", (callback: FrameRequestCallback) =>
    setTimeout(() => callback(performance.now()), 0),
  );
});
const nextFrame = () => new Promise((resolve) => setTimeout(resolve, 5));

const at = "2026-11-23T12:00:00.000Z";
const market = (id: string, prices: number[], status: Market["status"] = "open"): Market => ({
  id: `${id}-mw`,
  type: "match_winner",
  name: "Match winner",
  line: null,
  status,
  outcomes: prices.map((price, i) => ({
    id: `o${i}`,
    name: `O${i}`,
    price,
    status: status === "open" ? "active" : "suspended",
  })),
  updated_at: at,
});
const event = (id: string, status = "live", kickoff = "2026-11-23T11:00:00.000Z"): EventWithMarkets => ({
  id,
  sport: "soccer",
  competition: "League",
  home: "A",
  away: "B",
  status: status as EventWithMarkets["status"],
  feed: "official",
  kickoff,
  score: { home: 0, away: 0 },
  clock: "10:00",
  period: "1st half",
  stats: [],
  updated_at: at,
  sandbox: false,
  markets: [market(id, [2, 3, 4])],
});
const freshness = { sandbox: false, delay_seconds: 0, as_of: at };

describe("BoardStore", () => {
  it("applies a frame's messages together and tells only the rows they touched", async () => {
    const store = new BoardStore();
    store.receive({
      event: "snapshot",
      id: 1,
      data: { events: [event("b", "live", "2026-11-23T11:30:00.000Z"), event("a")], ...freshness },
    });
    await nextFrame();
    expect(store.ids()).toEqual(["a", "b"]);
    const told: string[] = [];
    store.subscribeRow("a", () => told.push("a"));
    store.subscribeRow("b", () => told.push("b"));
    const rowB = store.row("b");
    store.receive({
      event: "markets",
      id: 2,
      data: { event_id: "a", markets: [market("a", [2.5, 3, 3.5])], ...freshness },
    });
    store.receive({
      event: "markets",
      id: 3,
      data: { event_id: "a", markets: [market("a", [2.5, 3, 3.2])], ...freshness },
    });
    expect(told).toEqual([]);
    await nextFrame();
    expect(told).toEqual(["a"]);
    expect(store.row("b")).toBe(rowB);
    expect(store.row("a")!.markets[0]!.outcomes.map((o) => o.price)).toEqual([2.5, 3, 3.2]);
    // The flash shows the last move of each price; an unchanged price does not flash.
    expect(store.flash("a-mw", "o0")?.direction).toBe("up");
    expect(store.flash("a-mw", "o1")).toBeUndefined();
    expect(store.flash("a-mw", "o2")?.direction).toBe("down");
    expect(store.flash("a-mw", "o0", Date.now() + 5_000)).toBeUndefined();
  });

  it("takes an event off the board when its play ends, and puts one on when it starts", async () => {
    const store = new BoardStore();
    store.receive({ event: "snapshot", id: 1, data: { events: [event("a"), event("b")], ...freshness } });
    const { markets, ...finished } = event("a", "finished");
    store.receive({ event: "event", id: 2, data: { event: finished, ...freshness } });
    const { markets: newMarkets, ...starting } = event("c");
    store.receive({ event: "event", id: 3, data: { event: starting, markets: newMarkets, ...freshness } });
    await nextFrame();
    expect(markets).toHaveLength(1);
    expect(store.ids()).toEqual(["b", "c"]);
    expect(store.row("c")!.markets).toEqual(newMarkets);
  });

  it("shows the first state until the stream's snapshot, and never after it", async () => {
    const store = new BoardStore();
    store.seed([event("seeded")], true, 60);
    expect(store.ids()).toEqual(["seeded"]);
    expect(store.freshnessNow()).toMatchObject({ sandbox: true, delaySeconds: 60 });
    store.receive({ event: "snapshot", id: 5, data: { events: [event("live")], ...freshness } });
    await nextFrame();
    store.seed([event("late")], true, 60);
    expect(store.ids()).toEqual(["live"]);
    expect(store.freshnessNow()).toMatchObject({ sandbox: false, delaySeconds: 0 });
  });

  it("says when a snapshot replaced the board after a gap, and when the feed is stale", async () => {
    const store = new BoardStore();
    store.receive({ event: "snapshot", id: 1, data: { events: [], ...freshness } });
    store.receive({ event: "stale", id: null, data: { stale: true, ...freshness } });
    await nextFrame();
    expect(store.freshnessNow().resyncedAt).toBeNull();
    expect(store.freshnessNow().stale).toBe(true);
    store.receive({
      event: "snapshot",
      id: 9,
      data: { events: [], resync: true, reason: "retention_exceeded", ...freshness },
    });
    store.receive({ event: "stale", id: null, data: { stale: false, ...freshness } });
    await nextFrame();
    expect(store.freshnessNow()).toMatchObject({ stale: false, resyncedAt: expect.any(Number) });
  });
});

describe("EventStore", () => {
  it("keeps a timeline of scores, suspensions and the end, newest first", async () => {
    const store = new EventStore();
    const { markets, ...first } = event("a");
    store.receive({
      event: "snapshot",
      id: 1,
      data: { event: first, markets, lineups: { event_id: "a", home: [], away: [], sandbox: false }, ...freshness },
    });
    store.receive({ event: "event", id: 2, data: { event: { ...first, score: { home: 1, away: 0 } }, ...freshness } });
    store.receive({
      event: "markets",
      id: 3,
      data: { event_id: "a", markets: [market("a", [2, 3, 4], "suspended")], ...freshness },
    });
    store.receive({ event: "end", id: null, data: { event_id: "a", status: "finished", ...freshness } });
    await nextFrame();
    const state = store.now();
    expect(state.over).toBe(true);
    expect(state.timeline.map((entry) => entry.text)).toEqual([
      "Full time: markets settled",
      "Match winner suspended",
      "A score: 1–0",
    ]);
  });

  it("keeps each market's states as the stream carried them, for its line movement", async () => {
    const store = new EventStore();
    const { markets, ...first } = event("a");
    const lineups = { event_id: "a", home: [], away: [], sandbox: false };
    store.receive({ event: "snapshot", id: 4, data: { event: first, markets, lineups, ...freshness } });
    store.receive({
      event: "markets",
      id: 5,
      data: { event_id: "a", markets: [market("a", [2.5, 3, 3.5])], ...freshness },
    });
    // A resync's snapshot of an unchanged market adds nothing; an event change touches no line.
    store.receive({
      event: "snapshot",
      id: 6,
      data: { event: first, markets: [market("a", [2.5, 3, 3.5])], lineups, resync: true, ...freshness },
    });
    store.receive({ event: "event", id: 7, data: { event: { ...first, clock: "11:00" }, ...freshness } });
    await nextFrame();
    const line = store.now().movement["a-mw"]!;
    expect(line.map((point) => [point.revision, point.outcomes.map((outcome) => outcome.price)])).toEqual([
      [4, [2, 3, 4]],
      [5, [2.5, 3, 3.5]],
    ]);
  });
});

describe("EventStore, opened on an event already over", () => {
  it("takes the lineups read after the event, and the final markets read from the history, with no stream", () => {
    // The stream of an event that is over answers 204: what the page read is all it has.
    const store = new EventStore();
    const { markets, ...final } = event("a", "finished");
    store.seed(final, null);
    expect(store.now().lineups).toBeNull();
    const lineups = { event_id: "a", home: [{ number: 1, name: "Keeper", position: "GK" }], away: [], sandbox: false };
    store.seed(final, lineups);
    expect(store.now().lineups).toEqual(lineups);
    store.seed(final, lineups, markets);
    expect(store.now().markets).toEqual(markets);
    expect(store.now().event).toEqual(final);
  });

  it("tells each price move among the changes, with the outcome and both prices", async () => {
    const store = new EventStore();
    const { markets, ...first } = event("a");
    const lineups = { event_id: "a", home: [], away: [], sandbox: false };
    store.receive({ event: "snapshot", id: 1, data: { event: first, markets, lineups, ...freshness } });
    store.receive({
      event: "markets",
      id: 2,
      data: { event_id: "a", markets: [market("a", [12, 3, 4.5])], ...freshness },
    });
    await nextFrame();
    expect(store.now().timeline).toEqual([
      expect.objectContaining({
        text: "Match winner",
        moves: [
          { outcome: "O0", from: 2, to: 12 },
          { outcome: "O2", from: 4, to: 4.5 },
        ],
      }),
    ]);
  });

  it("keeps score and status changes when price moves are many", () => {
    const moves = Array.from({ length: 40 }, (_, i) => ({ id: i, at, text: "Match winner", moves: [] }));
    const kept = trimTimeline([{ id: 100, at, text: "A score: 1–0" }, ...moves, { id: 101, at, text: "Full time" }]);
    expect(kept.filter((entry) => !entry.moves).map((entry) => entry.text)).toEqual(["A score: 1–0", "Full time"]);
    expect(kept.length).toBeLessThanOrEqual(30);
  });
});

describe("the board benchmark's frame observer", () => {
  it("is told each batch's arrivals once React committed it, and only then", async () => {
    const reported: number[][] = [];
    vi.stubGlobal("window", { __streamFrameObserver: (arrivals: number[]) => reported.push(arrivals) });
    try {
      const store = new BoardStore();
      let told = 0;
      store.subscribeBatch(() => told++);
      store.receive({ event: "snapshot", id: 1, data: { events: [event("a")], ...freshness } });
      await nextFrame();
      const send = (id: number) =>
        store.receive({
          event: "markets",
          id,
          data: { event_id: "a", markets: [market("a", [2, 3, id])], ...freshness },
        });
      send(2);
      send(3);
      await nextFrame();
      send(4);
      await nextFrame();
      expect([store.appliedBatch(), told]).toEqual([3, 3]);
      // Applied is not painted: nothing is reported before React's commit.
      expect(reported).toEqual([]);
      store.committed(2);
      await nextFrame();
      expect(reported.map((arrivals) => arrivals.length)).toEqual([3]);
      store.committed(2);
      store.committed(3);
      await nextFrame();
      expect(reported.map((arrivals) => arrivals.length)).toEqual([3, 1]);
    } finally {
      vi.unstubAllGlobals();
      vi.stubGlobal("requestAnimationFrame", (callback: FrameRequestCallback) =>
        setTimeout(() => callback(performance.now()), 0),
      );
    }
  });

  it("is not there for viewers: no batch is counted", async () => {
    const store = new BoardStore();
    store.receive({ event: "snapshot", id: 1, data: { events: [event("a")], ...freshness } });
    await nextFrame();
    expect(store.appliedBatch()).toBe(0);
  });
});
