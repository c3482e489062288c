import { afterAll, beforeAll, expect, it } from "vitest";
import { openDatabase } from "../../lib/db/index.ts";
import { archiveClosedBuckets, pruneRevisions } from "../../lib/feed/archive.ts";
import { applyBatch, linesOf } from "../../lib/feed/ingest.ts";
import type { FeedUpdate } from "../../lib/feed/schemas.ts";
import { apiClient } from "../../testing/api.ts";
import { describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { organisationWithKeys } from "../../testing/organisations.ts";
import { startServer, type RunningServer } from "../../testing/processes.ts";
import { openSse, type SseClient } from "../../testing/sse.ts";

// Hours-old history through the real server: a match recorded two hours before the server starts,
// held only by the archive (the recent table pruned to each event's newest), read back by a
// resuming stream, /changes, as_of and a market's history, on both databases.

const HOURS_AGO = 2;
const DAY_MS = 86_400_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const started = new Date(Date.now() - HOURS_AGO * 3_600_000);
const at = (seconds: number) => new Date(started.getTime() + seconds * 1000);

const market = (price: number) => ({
  id: "d-live:match_winner",
  type: "match_winner" as const,
  name: "Match winner",
  line: null,
  status: "open" as const,
  outcomes: [
    { id: "d-live:home", name: "Home", price, status: "active" as const },
    { id: "d-live:away", name: "Away", price: 2.6, status: "active" as const },
  ],
});

/** The match: created live, then a change every 20 seconds for ten minutes, prices and goals in turn. */
function match(): { at: Date; update: FeedUpdate }[] {
  const updates: { at: Date; update: FeedUpdate }[] = [
    {
      at: at(0),
      update: {
        event_id: "d-live",
        sequence: 1,
        event: {
          sport: "soccer",
          competition: "Days cup",
          home: "Days home",
          away: "Days away",
          status: "live",
          feed: "official",
          kickoff: at(0).toISOString(),
        },
        markets: [market(1.9)],
      } as FeedUpdate,
    },
  ];
  for (let i = 1; i <= 30; i++) {
    const update: FeedUpdate =
      i % 5 === 0
        ? { event_id: "d-live", sequence: i + 1, event: { score: { home: i / 5, away: 0 }, clock: `${i}:00` } }
        : { event_id: "d-live", sequence: i + 1, markets: [market(1.5 + i / 100)] };
    updates.push({ at: at(i * 20), update });
  }
  return updates;
}

describeEachBackend("history hours old on $name", (backend) => {
  const database = useTestDatabase(backend);
  let server: RunningServer;
  let keys: Awaited<ReturnType<typeof organisationWithKeys>>;
  /** Each change's revision and moment, as the ingest recorded them two hours ago. */
  const recorded: { revision: number; at: Date; update: FeedUpdate }[] = [];
  const clients: SseClient[] = [];

  /** A match of nine days ago, older than the eight days kept, so the server forgets it on its own; one of seven days ago. */
  const old: { revision: number; at: Date }[] = [];
  const week: { revision: number; at: Date; update: FeedUpdate }[] = [];

  beforeAll(async () => {
    const env = database().env;
    keys = await organisationWithKeys(env, "days-org", { plan: "enterprise", sandboxSport: "soccer" });
    const handle = await openDatabase(database().config);
    for (const { at: moment, update } of match()) {
      if (update.sequence > 4) break;
      const then = new Date(moment.getTime() - 9 * DAY_MS);
      const { results } = await applyBatch(handle.db, linesOf([{ ...update, event_id: "d-old" }]), then);
      old.push({ revision: results[0]!.revision!, at: then });
    }
    for (const { at: moment, update } of match()) {
      if (update.sequence > 6) break;
      const then = new Date(moment.getTime() - 7 * DAY_MS + HOURS_AGO * 3_600_000);
      const { results } = await applyBatch(handle.db, linesOf([{ ...update, event_id: "d-week" }]), then);
      week.push({ revision: results[0]!.revision!, at: then, update });
    }
    for (const { at: moment, update } of match()) {
      const { results } = await applyBatch(handle.db, linesOf([update]), moment);
      recorded.push({ revision: results[0]!.revision!, at: moment, update });
    }
    // As the leader would have done since: archived, and the recent table pruned past its window.
    await archiveClosedBuckets(handle.db, new Date());
    expect(await pruneRevisions(handle.db, new Date(Date.now() - 15 * 60_000))).toBeGreaterThan(20);
    await handle.close();
    server = await startServer({ ...env, SANDBOX_DELAY_SECONDS: "60", HISTORY_SECONDS: String((8 * DAY_MS) / 1000) });
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await server?.stop();
  });

  const call = <T>(path: string, key = keys.production.key) => apiClient(server.url, 50)<T>(path, { key });

  it("replays a stream resumed from a revision two hours old, every change in order, no resync", async () => {
    const from = recorded[3]!;
    const stream = await openSse(`${server.url}/api/v1/events/d-live/stream`, {
      headers: { authorization: `Bearer ${keys.production.key}`, "last-event-id": String(from.revision) },
    });
    clients.push(stream);
    const last = recorded.at(-1)!.revision;
    await stream.waitFor((m) => m.id === last);
    const replayed = stream.messages.filter((m) => m.id !== undefined && m.id <= last);
    expect(replayed.map((m) => m.id)).toEqual(recorded.slice(4).map((r) => r.revision));
    expect(replayed.map((m) => m.event)).toEqual(
      recorded.slice(4).map((r) => (r.update.markets ? "markets" : "event")),
    );
    expect(stream.messages.some((m) => m.event === "snapshot")).toBe(false);
    const prices = replayed
      .filter((m) => m.event === "markets")
      .map((m) => (m.data.markets as { outcomes: { price: number }[] }[])[0]!.outcomes[0]!.price);
    expect(prices).toEqual(
      recorded.slice(4).flatMap((r) => (r.update.markets ? [r.update.markets[0]!.outcomes[0]!.price] : [])),
    );
    stream.close();
  });

  it("pages /changes from two hours ago with the same ids", async () => {
    const answer = await call<{ data: { id: number }[] }>(`/api/v1/changes?since=${recorded[0]!.revision}&limit=1000`);
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((m) => m.id)).toEqual(recorded.slice(1).map((r) => r.revision));
  });

  it("answers as_of two hours ago for a production and a sandbox key, by time and by revision", async () => {
    const goal = recorded.find((r) => r.update.event?.score)!;
    const moment = new Date(goal.at.getTime() + 5_000).toISOString();
    for (const key of [keys.production.key, keys.sandbox.key]) {
      const byTime = await call<{ data: { score: unknown }; meta: { revision: number } }>(
        `/api/v1/events/d-live?as_of=${moment}`,
        key,
      );
      expect([byTime.status, byTime.body.data.score, byTime.body.meta.revision]).toEqual([
        200,
        goal.update.event!.score,
        goal.revision,
      ]);
      const byRevision = await call<{ data: { score: unknown } }>(
        `/api/v1/events/d-live?as_of=${goal.revision - 1}`,
        key,
      );
      expect(byRevision.body.data.score).toEqual({ home: 0, away: 0 });
    }
  });

  it("reads a moment seven days ago: the state then, and the market's changes since", async () => {
    expect((await call<{ data: { history_seconds: number } }>("/api/v1/me")).body.data.history_seconds).toBe(
      8 * 86_400,
    );
    const [, second, third] = week;
    type Board = { data: { id: string; markets: { outcomes: { price: number }[] }[] }[]; meta: { revision: number } };
    const asOf = await call<Board>(`/api/v1/odds?as_of=${new Date(second!.at.getTime() + 1_000).toISOString()}`);
    expect([asOf.status, asOf.body.meta.revision]).toEqual([200, second!.revision]);
    const then = asOf.body.data.find((event) => event.id === "d-week")!;
    expect(then.markets[0]!.outcomes[0]!.price).toBe(second!.update.markets![0]!.outcomes[0]!.price);
    // d-live did not exist yet.
    expect(asOf.body.data.map((event) => event.id)).not.toContain("d-live");
    const history = await call<{ data: { points: { revision: number }[] } }>(
      `/api/v1/events/d-week/markets/d-live:match_winner/history?from=${new Date(second!.at.getTime() + 1_000).toISOString()}&to=${new Date(third!.at.getTime() + 1_000).toISOString()}`,
    );
    expect(history.body.data.points.map((p) => p.revision)).toEqual([second!.revision, third!.revision]);
  });

  it("forgets what is older than the history kept on its own: resync retention_exceeded, 410 for the rest", async () => {
    const since = `/api/v1/changes?since=${old[1]!.revision}`;
    // The server drops the aged partitions when it starts to lead, shortly after it is ready.
    for (let tries = 0; tries < 50 && (await call(since)).status !== 410; tries++) await sleep(200);
    expect((await call(since)).body).toMatchObject({ code: "retention_exceeded" });
    const stream = await openSse(`${server.url}/api/v1/events/d-old/stream`, {
      headers: { authorization: `Bearer ${keys.production.key}`, "last-event-id": String(old[1]!.revision) },
    });
    clients.push(stream);
    const snapshot = await stream.waitFor((m) => m.event === "snapshot");
    expect(snapshot.data).toMatchObject({ resync: true, reason: "retention_exceeded" });
    stream.close();
    const asOf = await call(`/api/v1/events/d-old?as_of=${old[2]!.at.toISOString()}`);
    expect([asOf.status, asOf.body]).toMatchObject([410, { code: "retention_exceeded" }]);
    // The present is kept: the event as its last change left it.
    expect((await call<{ data: { id: string } }>("/api/v1/events/d-old")).body.data.id).toBe("d-old");
  });

  it("gives the market's history from two hours ago as every change recorded", async () => {
    const answer = await call<{ data: { points: { revision: number; outcomes: { price: number }[] }[] } }>(
      `/api/v1/events/d-live/markets/d-live:match_winner/history?from=${at(1).toISOString()}`,
    );
    expect(answer.status).toBe(200);
    const changes = recorded.filter((r) => r.update.markets);
    expect(answer.body.data.points.map((p) => [p.revision, p.outcomes[0]!.price])).toEqual(
      changes.map((r) => [r.revision, r.update.markets![0]!.outcomes[0]!.price]),
    );
  });
});
