import { afterAll, beforeAll, expect, it } from "vitest";
import { openDatabase } from "../../lib/db/index.ts";
import { revisionsAfter } from "../../lib/feed/history.ts";
import { applyBatch, linesOf } from "../../lib/feed/ingest.ts";
import type { FeedUpdate } from "../../lib/feed/schemas.ts";
import { REPLAY_REVISIONS } from "../../lib/streams/replay.ts";
import { apiClient } from "../../testing/api.ts";
import { describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { organisationWithKeys } from "../../testing/organisations.ts";
import { startServer, type RunningServer } from "../../testing/processes.ts";
import { openSse } from "../../testing/sse.ts";

// One request's work on the history is bounded: `/changes` without `since` is refused, a page
// examines at most REPLAY_REVISIONS revisions (the sport filter in the query, so other sports'
// revisions are not read), and a stream resumed from further back gets a fresh snapshot instead
// of a replay. A long run of basketball prices between two soccer changes is what an attacker's
// `?since=1&sport=soccer` would have read through.

const market = (id: string, price: number) => ({
  id: `${id}:match_winner`,
  type: "match_winner" as const,
  name: "Match winner",
  line: null,
  status: "open" as const,
  outcomes: [
    { id: `${id}:home`, name: "Home", price, status: "active" as const },
    { id: `${id}:away`, name: "Away", price: 2.6, status: "active" as const },
  ],
});

const created = (id: string, sport: string): FeedUpdate =>
  ({
    event_id: id,
    sequence: 1,
    event: {
      sport,
      competition: "Bound cup",
      home: `${id} home`,
      away: `${id} away`,
      status: "live",
      feed: "official",
      kickoff: new Date().toISOString(),
    },
    markets: [market(id, 1.9)],
  }) as FeedUpdate;

const priced = (id: string, sequence: number): FeedUpdate => ({
  event_id: id,
  sequence,
  markets: [market(id, 1.5 + (sequence % 50) / 100)],
});

describeEachBackend("one request's share of the history on $name", (backend) => {
  const database = useTestDatabase(backend);
  let server: RunningServer;
  let key: string;
  /** Revisions: the soccer event's creation, its later change, and the last basketball price between. */
  const at = { soccerCreated: 0, soccerChanged: 0, lastBasketball: 0 };
  let soccerFromDatabase: number[] = [];

  beforeAll(async () => {
    const env = database().env;
    key = (await organisationWithKeys(env, "bound-org", { plan: "enterprise", sandboxSport: "soccer" })).production.key;
    const handle = await openDatabase(database().config);
    const now = new Date();
    const apply = async (updates: FeedUpdate[]) => (await applyBatch(handle.db, linesOf(updates), now)).results;
    at.soccerCreated = (await apply([created("b-soccer", "soccer")]))[0]!.revision!;
    await apply([created("b-basket", "basketball")]);
    // More revisions of another sport than one request examines, in batches of a realistic size.
    for (let sequence = 2; sequence <= REPLAY_REVISIONS + 100; sequence += 500) {
      const batch = Array.from({ length: 500 }, (_, i) => priced("b-basket", sequence + i));
      at.lastBasketball = (await apply(batch)).at(-1)!.revision!;
    }
    at.soccerChanged = (await apply([priced("b-soccer", 2)]))[0]!.revision!;
    const { revisions } = await revisionsAfter(handle.db, at.soccerCreated - 1, { sports: ["soccer"], limit: 10 });
    soccerFromDatabase = revisions.map((r) => r.revision);
    await handle.close();
    server = await startServer(env);
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
  });

  it("reads only the sport asked for from the database", () => {
    expect(soccerFromDatabase).toEqual([at.soccerCreated, at.soccerChanged]);
  });

  it("refuses /changes without since, saying it is required and where to find one", async () => {
    const refused = await apiClient(server.url)<{ code: string; detail: string; errors: { param: string }[] }>(
      "/api/v1/changes?sport=soccer",
      { key },
    );
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe("invalid_parameter");
    expect(refused.body.errors[0]!.param).toBe("since");
    expect(refused.body.detail).toMatch(/required/);
    expect(refused.body.detail).toContain("meta.revision");
  });

  it("ends a page after the revisions one answer examines, at next_since, and goes on from there", async () => {
    type Changes = { data: { id: number }[]; meta: { next_since: number; revision: number; more: boolean } };
    const since = at.soccerCreated;
    const first = await apiClient(server.url)<Changes>(`/api/v1/changes?since=${since}&sport=soccer&limit=1000`, {
      key,
    });
    expect(first.status).toBe(200);
    // The soccer change lies beyond the first page's reach: an empty page that says more follows.
    expect(first.body.data).toEqual([]);
    expect(first.body.meta).toMatchObject({ next_since: since + REPLAY_REVISIONS, more: true });
    const second = await apiClient(server.url)<Changes>(
      `/api/v1/changes?since=${first.body.meta.next_since}&sport=soccer&limit=1000`,
      { key },
    );
    expect(second.body.data.map((change) => change.id)).toEqual([at.soccerChanged]);
    expect(second.body.meta.more).toBe(false);
  });

  it("sends a stream resumed from further back than a replay reaches a fresh snapshot; a nearer one its replay", async () => {
    const far = await openSse(`${server.url}/api/v1/odds/stream?sport=soccer`, {
      headers: { authorization: `Bearer ${key}`, "last-event-id": String(at.soccerCreated) },
    });
    const snapshot = await far.waitFor((m) => m.event === "snapshot");
    far.close();
    expect(snapshot.data).toMatchObject({ resync: true, reason: "retention_exceeded" });
    const near = await openSse(`${server.url}/api/v1/odds/stream?sport=soccer`, {
      headers: { authorization: `Bearer ${key}`, "last-event-id": String(at.lastBasketball) },
    });
    const replayed = await near.waitFor((m) => m.id === at.soccerChanged);
    near.close();
    expect(replayed.event).toBe("markets");
    expect(near.messages.some((m) => m.event === "snapshot")).toBe(false);
  });
});
