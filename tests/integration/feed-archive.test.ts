import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openDatabase, rowsOf, type DatabaseHandle } from "../../lib/db/index.ts";
import {
  archiveClosedBuckets,
  BUCKET_MS,
  dropArchiveBefore,
  PARTITION_MS,
  pruneRevisions,
} from "../../lib/feed/archive.ts";
import { historyAt, marketRevisions, revisionsAfter, snapshotThrough, type Revision } from "../../lib/feed/history.ts";
import { decodedChunks } from "../../lib/feed/archive-reads.ts";
import { applyBatch, linesOf } from "../../lib/feed/ingest.ts";
import type { FeedUpdate } from "../../lib/feed/schemas.ts";
import { seedReferenceData } from "../../seeds/index.ts";
import { describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { creation } from "../../testing/feed.ts";

// The archive against the recent table it takes over from: a few simulated hours are recorded,
// every read is taken while the recent table still holds it all, and after archiving and pruning
// the same reads must answer exactly the same.

const t0 = new Date("2026-11-20T10:00:00Z");
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
const HOURS = 3;
const STEP_SECONDS = 20;
const EVENTS = ["arc-1", "arc-2", "arc-3", "arc-4"];

function market(eventId: string, index: number, home: number, status: "open" | "suspended" = "open") {
  return {
    id: `${eventId}-m${index}`,
    type: "match_winner" as const,
    name: `Market ${index}`,
    line: null,
    status,
    outcomes: [
      { id: "h", name: "Home", price: home, status: "active" as const },
      { id: "a", name: "Away", price: Math.round((1 / (1.05 - 1 / home)) * 100) / 100, status: "active" as const },
    ],
  };
}

/** A deterministic run: scores and clocks move, prices move, lineups arrive, an event is created late. */
function* run(): Generator<{ at: Date; updates: FeedUpdate[] }> {
  const sequence = new Map<string, number>();
  const next = (id: string) => {
    const n = (sequence.get(id) ?? 1) + 1;
    sequence.set(id, n);
    return n;
  };
  // arc-quiet's markets change once more after 2.5 hours: between 1 and 1.5 hours, their state at
  // a moment is in no chunk of its hour or of the next, only in one further on.
  yield {
    at: t0,
    updates: [
      ...[...EVENTS, "arc-quiet"].map((id) => creation(id, "2026-11-20T10:05:00Z")),
      { event_id: "arc-quiet", sequence: next("arc-quiet"), markets: [market("arc-quiet", 0, 2.5)] },
    ],
  };
  let seed = 7;
  const random = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
  for (let s = STEP_SECONDS; s < HOURS * 3600; s += STEP_SECONDS) {
    const updates: FeedUpdate[] = [];
    if (s === 5_000) updates.push(creation("arc-late", "2026-11-20T12:00:00Z", "soccer"));
    if (s === 9_000)
      updates.push({ event_id: "arc-quiet", sequence: next("arc-quiet"), markets: [market("arc-quiet", 0, 1.8)] });
    for (const id of [...EVENTS, ...(s > 5_000 ? ["arc-late"] : [])]) {
      const roll = random();
      if (roll < 0.3) {
        updates.push({
          event_id: id,
          sequence: next(id),
          event: { status: "live", clock: `${Math.floor(s / 60) % 48}:00` },
        });
      } else if (roll < 0.8) {
        const count = 1 + Math.floor(random() * 3);
        updates.push({
          event_id: id,
          sequence: next(id),
          markets: Array.from({ length: count }, (_, i) =>
            market(id, i, 1.2 + Math.round(random() * 300) / 100, random() < 0.1 ? "suspended" : "open"),
          ),
        });
      } else if (roll < 0.83) {
        updates.push({
          event_id: id,
          sequence: next(id),
          lineups: { home: [{ number: Math.floor(random() * 99), name: "Guard", position: "PG" }], away: [] },
        });
      }
    }
    if (updates.length) yield { at: at(s), updates };
  }
}

const byPair = (revisions: Revision[]) =>
  [...revisions].sort((a, b) => `${a.eventId}${a.kind}`.localeCompare(`${b.eventId}${b.kind}`));

/** Markets' histories read before and after archiving: windows, whole, a market that came late or rarely moves. */
function marketWindows(last: number) {
  return [
    ["arc-3 m1, 1,000 to 8,000 s", "arc-3", "arc-3-m1", { from: at(1_000), to: at(8_000), through: last }],
    ["arc-2 m2, whole, to 2.5 h", "arc-2", "arc-2-m2", { from: null, to: at(9_000), through: last }],
    ["arc-1 m0, an hour, through a revision", "arc-1", "arc-1-m0", { from: at(3_600), to: at(7_200), through: 900 }],
    ["arc-late m0, whole", "arc-late", "arc-late-m0", { from: null, to: at(HOURS * 3600), through: last }],
    ["arc-quiet m0, whole", "arc-quiet", "arc-quiet-m0", { from: null, to: at(HOURS * 3600), through: last }],
  ] as const;
}

/** Each pair's newest revision at or before `r` in a whole replay: the board's state at `r`. */
function stateAt(all: readonly Revision[], r: number): Revision[] {
  const newest = new Map<string, Revision>();
  for (const x of all) if (x.revision <= r) newest.set(`${x.eventId}\u0000${x.kind}`, x);
  return byPair([...newest.values()].filter((x) => x.state !== null));
}

describeEachBackend("the archive on $name", (backend) => {
  const database = useTestDatabase(backend);
  let handle: DatabaseHandle;
  let last = 0;
  const samples: number[] = [];
  const moments: Date[] = [];
  const truth = {
    snapshots: new Map<number, Revision[]>(),
    moments: new Map<number, number>(),
    all: [] as Revision[],
    markets: new Map<string, unknown[]>(),
    fromEvent: [] as Revision[],
  };
  const end = at(HOURS * 3600);

  beforeAll(async () => {
    handle = await openDatabase(database().config);
    await seedReferenceData(handle.db);
    for (const batch of run()) await applyBatch(handle.db, linesOf(batch.updates), batch.at);
    last = (await revisionsAfter(handle.db, 0, { limit: 1_000_000 })).revisions.at(-1)!.revision;
    for (let r = 1; r <= last; r += 97) samples.push(r);
    for (let s = 7; s < HOURS * 3600; s += 611) moments.push(at(s));
    // Everything read while the recent table holds every revision.
    for (const r of samples) truth.snapshots.set(r, byPair(await snapshotThrough(handle.db, r)));
    truth.all = (await revisionsAfter(handle.db, 0, { limit: 1_000_000 })).revisions;
    // The replay and the snapshots agree, so a state at any revision can be taken from the replay.
    for (const r of samples) expect(stateAt(truth.all, r), `revision ${r}`).toEqual(truth.snapshots.get(r));
    for (const m of moments) truth.moments.set(m.getTime(), (await historyAt(handle.db, m, last)).revision);
    truth.fromEvent = (await revisionsAfter(handle.db, 300, { eventIds: ["arc-2"], limit: 1_000_000 })).revisions;
    for (const [key, eventId, marketId, window] of marketWindows(last)) {
      truth.markets.set(key, await marketRevisions(handle.db, eventId, marketId, window));
    }
  }, 240_000);
  afterAll(() => handle?.close());

  it("prunes nothing the archive does not hold yet", async () => {
    expect(await pruneRevisions(handle.db, end)).toBe(0);
  });

  it("archives the closed buckets of the run in hourly partitions", async () => {
    const buckets = await archiveClosedBuckets(handle.db, new Date(end.getTime() + 3_600_000), 1_000);
    expect(buckets).toBe((HOURS * 3_600_000) / BUCKET_MS);
    const [counts] = rowsOf<{ chunks: number; partitions: number; archived: number }>(
      await handle.db.execute(sql`
        select (select count(*)::int from history_chunks) as chunks,
          (select count(*)::int from pg_inherits i join pg_class p on p.oid = i.inhparent
            where p.relname = 'history_chunks') as partitions,
          (select archived_through::int from revision_counter) as archived`),
    );
    expect(counts).toMatchObject({ partitions: HOURS, archived: last });
    expect(counts!.chunks).toBeGreaterThan(0);
    // The recent table keeps only each event and kind's newest once pruned: the archive answers.
    expect(await pruneRevisions(handle.db, end)).toBeGreaterThan(last / 2);
  });

  it("answers every state at every sampled revision exactly as the recent table did", async () => {
    for (const r of samples)
      expect(byPair(await snapshotThrough(handle.db, r)), `revision ${r}`).toEqual(truth.snapshots.get(r));
  });

  it("answers a moment just before or after one read, from the decoded chunks kept, as decoded afresh", async () => {
    // Later first: a chunk decoded as far as a later revision then serves the earlier ones; then
    // earlier first: a chunk decoded part way goes on from where it stopped.
    const later = samples.slice(1, 12).flatMap((r) => [r + 20, r + 10, r + 1, r, r - 1].filter((x) => x <= last));
    const afresh = new Map<number, unknown>();
    for (const x of later) {
      decodedChunks.clear();
      afresh.set(x, byPair(await snapshotThrough(handle.db, x)));
    }
    for (const scrub of [later, [...later].reverse()]) {
      decodedChunks.clear();
      for (const x of scrub)
        expect(byPair(await snapshotThrough(handle.db, x)), `revision ${x}`).toEqual(afresh.get(x));
      expect(decodedChunks.stats.entries).toBeGreaterThan(0);
    }
    // A replay after the moments read, from the chunks they decoded part way, as from the truth.
    const from = samples[1]!;
    expect((await revisionsAfter(handle.db, from, { limit: 1_000_000 })).revisions).toEqual(
      truth.all.filter((r) => r.revision > from),
    );
  });

  it("replays every revision in order with its state, for all events and for one", async () => {
    expect(await revisionsAfter(handle.db, 0, { limit: 1_000_000 })).toEqual({ complete: true, revisions: truth.all });
    const page = await revisionsAfter(handle.db, 100, { limit: 250 });
    expect(page.revisions.slice(0, 250)).toEqual(truth.all.filter((r) => r.revision > 100).slice(0, 250));
    expect((await revisionsAfter(handle.db, 300, { eventIds: ["arc-2"], limit: 1_000_000 })).revisions).toEqual(
      truth.fromEvent,
    );
  });

  it("finds the revision of every sampled moment and a market's history as before", async () => {
    for (const m of moments) {
      expect((await historyAt(handle.db, m, last)).revision, m.toISOString()).toBe(truth.moments.get(m.getTime()));
    }
    for (const [key, eventId, marketId, window] of marketWindows(last)) {
      const points = await marketRevisions(handle.db, eventId, marketId, window);
      expect(points.length, key).toBeGreaterThan(0);
      expect(points, key).toEqual(truth.markets.get(key));
    }
  });

  it("drops whole partitions as they age out while readers read, and says what the history no longer holds", async () => {
    // Readers of the last hour, at the same time as the first hour goes: no error, every answer exact.
    const lastHour = truth.all.find((r) => r.recordedAt >= at(2 * 3600))!.revision;
    const [dropped, states, replayed] = await Promise.all([
      dropArchiveBefore(handle.db, new Date(t0.getTime() + PARTITION_MS + 1)),
      Promise.all(samples.filter((r) => r >= lastHour).map(async (r) => byPair(await snapshotThrough(handle.db, r)))),
      revisionsAfter(handle.db, lastHour, { limit: 1_000_000 }),
    ]);
    expect(dropped).toBe(1);
    expect(states).toEqual(samples.filter((r) => r >= lastHour).map((r) => truth.snapshots.get(r)));
    expect(replayed).toEqual({ complete: true, revisions: truth.all.filter((r) => r.revision > lastHour) });
    const { prunedThrough } = await historyAt(handle.db, at(4_000), last);
    expect(prunedThrough).toBeGreaterThan(0);
    expect((await revisionsAfter(handle.db, prunedThrough - 1)).complete).toBe(false);
    const rest = await revisionsAfter(handle.db, prunedThrough, { limit: 1_000_000 });
    expect(rest).toEqual({ complete: true, revisions: truth.all.filter((r) => r.revision > prunedThrough) });
    for (const r of samples.filter((s) => s >= prunedThrough)) {
      expect(byPair(await snapshotThrough(handle.db, r)), `revision ${r}`).toEqual(truth.snapshots.get(r));
    }
    // The oldest moment kept is before the first bucket left: each state is where its first chunk starts.
    for (const r of [prunedThrough, prunedThrough + 1]) {
      expect(byPair(await snapshotThrough(handle.db, r)), `revision ${r}`).toEqual(stateAt(truth.all, r));
    }
    expect((await historyAt(handle.db, at(100), last)).revision).toBeLessThan(prunedThrough);
  });
});
