import { describe, expect, it } from "vitest";
import type { Revision } from "./history.ts";
import { FeedMirror } from "./mirror.ts";

const event = (id: string, kickoff: string, status = "upcoming") => ({
  updated_at: "2026-11-21T12:00:00.000Z",
  id,
  status,
  sport: "soccer",
  competition: "League",
  home: "Home",
  away: "Away",
  feed: "official",
  kickoff,
  score: { away: 0, home: 0 },
  clock: "",
  period: "",
  stats: [],
});
const market = {
  status: "open",
  id: "m",
  type: "match_winner",
  name: "Result",
  line: null,
  updated_at: "2026-11-21T12:00:00.000Z",
  outcomes: [
    { price: 2.1, id: "h", name: "Home", status: "active" },
    { price: 1.8, id: "a", name: "Away", status: "active" },
  ],
};
let revision = 0;
const rev = (eventId: string, kind: Revision["kind"], state: unknown): Revision => ({
  revision: ++revision,
  eventId,
  kind,
  recordedAt: new Date(Date.UTC(2026, 10, 21, 12, 0, revision)),
  state,
});

describe("FeedMirror", () => {
  it("starts from a snapshot whose markets are older than their event's latest state", () => {
    const markets = rev("e1", "markets", [market]);
    const state = rev("e1", "event", event("e1", "2026-11-21T18:00:00Z", "live"));
    const mirror = new FeedMirror();
    mirror.reset(state.revision, state.recordedAt, [state, markets]);
    expect(mirror.get("e1")?.markets).toHaveLength(1);
    expect(mirror.get("e1")?.event.status).toBe("live");
    expect(mirror.revision).toBe(state.revision);
  });

  it("serves objects in the spec's field order, whatever order the database kept", () => {
    const mirror = new FeedMirror();
    mirror.apply(rev("e2", "event", event("e2", "2026-11-21T18:00:00Z")));
    mirror.apply(rev("e2", "markets", [market]));
    expect(Object.keys(mirror.get("e2")!.event)).toEqual([
      "id",
      "sport",
      "competition",
      "home",
      "away",
      "status",
      "feed",
      "kickoff",
      "score",
      "clock",
      "period",
      "stats",
      "updated_at",
    ]);
    expect(Object.keys(mirror.get("e2")!.event.score)).toEqual(["home", "away"]);
    expect(Object.keys(mirror.get("e2")!.markets[0]!)).toEqual([
      "id",
      "type",
      "name",
      "line",
      "status",
      "outcomes",
      "updated_at",
    ]);
    expect(Object.keys(mirror.get("e2")!.markets[0]!.outcomes[0]!)).toEqual(["id", "name", "price", "status"]);
  });

  it("keeps list order by kickoff then id, re-sorting when a kickoff moves, and ignores revisions it has", () => {
    const mirror = new FeedMirror();
    mirror.apply(rev("b", "event", event("b", "2026-11-21T18:00:00Z")));
    mirror.apply(rev("a", "event", event("a", "2026-11-21T18:00:00Z")));
    const old = rev("c", "event", event("c", "2026-11-21T17:00:00Z"));
    mirror.apply(old);
    expect(mirror.inListOrder().map((d) => d.event.id)).toEqual(["c", "a", "b"]);
    mirror.apply(rev("c", "event", event("c", "2026-11-21T19:00:00Z", "postponed")));
    expect(mirror.inListOrder().map((d) => d.event.id)).toEqual(["a", "b", "c"]);
    const version = mirror.version;
    mirror.apply(old);
    expect(mirror.version).toBe(version);
    expect(mirror.get("c")?.event.status).toBe("postponed");
  });
});
