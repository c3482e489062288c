import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openDatabase, rowsOf, type DatabaseHandle } from "../../lib/db/index.ts";
import type { RevisionKind } from "../../lib/db/schema/index.ts";
import { historyAt, revisionsAfter, snapshotThrough } from "../../lib/feed/history.ts";
import type { EventState } from "../../lib/feed/schemas.ts";
import { applyBatch, linesOf } from "../../lib/feed/ingest.ts";
import { archiveClosedBuckets, dropArchiveBefore, pruneRevisions } from "../../lib/feed/archive.ts";
import type { FeedUpdate } from "../../lib/feed/schemas.ts";
import { seedReferenceData } from "../../seeds/index.ts";
import { countingStatements, describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { creation } from "../../testing/feed.ts";

const t0 = new Date("2026-11-21T16:00:00Z");
const later = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

describeEachBackend("the revision history on $name", (backend) => {
  const database = useTestDatabase(backend);
  let handle: DatabaseHandle;
  const apply = (at: Date, ...updates: FeedUpdate[]) => applyBatch(handle.db, linesOf(updates), at);
  // The feed as it was at a moment: its revision then, and each event's states at that revision.
  const statesAt = async (at: Date, eventIds?: string[]) =>
    snapshotThrough(handle.db, (await historyAt(handle.db, at, Number.MAX_SAFE_INTEGER)).revision, eventIds);
  const stateAt = async <T>(eventId: string, kind: RevisionKind, at: Date) =>
    ((await statesAt(at, [eventId])).find((r) => r.kind === kind)?.state ?? null) as T | null;
  const eventAsOf = (eventId: string, at: Date) => stateAt<EventState>(eventId, "event", at);
  const marketsAsOf = (eventId: string, at: Date) =>
    stateAt<{ outcomes: { price: number }[] }[]>(eventId, "markets", at);
  const lineupsAsOf = (eventId: string, at: Date) => stateAt<unknown>(eventId, "lineups", at);
  const eventsAsOf = async (at: Date, filter: { sports?: string[]; statuses?: string[] } = {}) =>
    (await statesAt(at))
      .filter((r) => r.kind === "event")
      .map((r) => r.state as EventState)
      .filter(
        (e) =>
          (!filter.sports || filter.sports.includes(e.sport)) &&
          (!filter.statuses || filter.statuses.includes(e.status)),
      )
      .sort((a, b) => a.kickoff.localeCompare(b.kickoff) || a.id.localeCompare(b.id));

  beforeAll(async () => {
    handle = await openDatabase(database().config);
    await seedReferenceData(handle.db);
  });
  afterAll(() => handle?.close());

  it("answers the state of an event as of 60 seconds ago with exactly what it was then", async () => {
    await apply(t0, creation("hist-1", "2026-11-21T16:00:30Z"), creation("hist-2", "2026-11-21T17:00:00Z"));
    await apply(later(30), {
      event_id: "hist-1",
      sequence: 2,
      event: { status: "live", period: "Q1", clock: "12:00" },
    });
    const then = await eventAsOf("hist-1", later(30));
    await apply(later(60), { event_id: "hist-1", sequence: 3, event: { score: { home: 2, away: 0 }, clock: "11:31" } });
    await apply(later(90), { event_id: "hist-1", sequence: 4, event: { score: { home: 2, away: 3 }, clock: "11:02" } });

    expect(then).toMatchObject({ status: "live", score: { home: 0, away: 0 }, clock: "12:00" });
    // At t0+90, "60 seconds ago" is t0+30: the state right after the update recorded then.
    expect(await eventAsOf("hist-1", later(90 - 60))).toEqual(then);
    expect(await eventAsOf("hist-1", later(89))).toMatchObject({ score: { home: 2, away: 0 } });
    expect(await eventAsOf("hist-1", later(90))).toMatchObject({ score: { home: 2, away: 3 } });
    // Before it existed, there was no such event.
    expect(await eventAsOf("hist-1", later(-1))).toBeNull();
  });

  it("answers a list as of a moment: what existed then, with the statuses it had then", async () => {
    await apply(later(100), creation("hist-3", "2026-11-21T16:30:00Z", "soccer"));
    const asOf = async (seconds: number, statuses?: ("live" | "upcoming")[]) =>
      (await eventsAsOf(later(seconds), { statuses, sports: ["basketball", "soccer"] })).map(
        (e) => `${e.id}:${e.status}`,
      );

    expect(await asOf(10)).toEqual(["hist-1:upcoming", "hist-2:upcoming"]);
    expect(await asOf(10, ["live"])).toEqual([]);
    expect(await asOf(40, ["live"])).toEqual(["hist-1:live"]);
    // Kickoff order, then id: hist-3 kicks off between the two.
    expect(await asOf(100)).toEqual(["hist-1:live", "hist-3:upcoming", "hist-2:upcoming"]);
    expect((await eventsAsOf(later(100), { sports: ["soccer"] })).map((e) => e.id)).toEqual(["hist-3"]);
  });

  it("keeps markets and lineups in the history too", async () => {
    const market = (price: number) => ({
      id: "hist-1-mw",
      type: "match_winner" as const,
      name: "Winner",
      line: null,
      status: "open" as const,
      outcomes: [
        { id: "h", name: "Home", price, status: "active" as const },
        { id: "a", name: "Away", price: 2.2, status: "active" as const },
      ],
    });
    await apply(later(110), { event_id: "hist-1", sequence: 5, markets: [market(1.7)] });
    await apply(later(120), {
      event_id: "hist-1",
      sequence: 6,
      markets: [market(1.5)],
      lineups: { home: [{ number: 7, name: "Guard", position: "PG" }], away: [] },
    });
    expect((await marketsAsOf("hist-1", later(115)))![0]!.outcomes[0]!.price).toBe(1.7);
    expect((await marketsAsOf("hist-1", later(120)))![0]!.outcomes[0]!.price).toBe(1.5);
    expect(await lineupsAsOf("hist-1", later(115))).toBeNull();
    expect(await lineupsAsOf("hist-1", later(120))).toMatchObject({
      event_id: "hist-1",
      home: [{ name: "Guard" }],
    });
  });

  it("replays the revisions after a given one, in order, as a resuming stream needs", async () => {
    const all = await revisionsAfter(handle.db, 0);
    expect(all.complete).toBe(true);
    const numbers = all.revisions.map((r) => r.revision);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    const third = numbers[2]!;
    // From the recent table, in one statement: a view following the present reads it at every change.
    const { db: counted, count } = countingStatements(handle.db);
    const rest = await revisionsAfter(counted, third, { eventIds: ["hist-1"] });
    expect(count.statements).toBe(1);
    expect(rest.revisions.every((r) => r.revision > third && r.eventId === "hist-1")).toBe(true);
    expect(rest.revisions.map((r) => r.kind)).toEqual(["event", "event", "markets", "markets", "lineups"]);
    // A sandbox reader sees only what was recorded 60 seconds before its moment.
    const behind = await revisionsAfter(handle.db, third, { eventIds: ["hist-1"], until: later(100) });
    expect(behind.revisions.map((r) => r.recordedAt.getTime())).toEqual([later(60).getTime(), later(90).getTime()]);
  });

  it("prunes archived revisions past the recent window but keeps what every moment in it needs", async () => {
    const moments = [0, 30, 45, 60, 89, 90, 100, 115, 120].map(later);
    const read = async () =>
      Promise.all(
        moments.map(async (at) => [
          await eventAsOf("hist-1", at),
          await eventsAsOf(at),
          await marketsAsOf("hist-1", at),
        ]),
      );
    const count = async () =>
      rowsOf<{ n: number }>(await handle.db.execute(sql`select count(*)::int as n from event_revisions`))[0]!.n;
    // A window that starts at t0+45: moments from there on must read the same after pruning.
    const before = (await read()).slice(2);
    const total = await count();
    // Nothing is pruned that the archive does not hold yet.
    expect(await pruneRevisions(handle.db, later(45))).toBe(0);
    const everything = await revisionsAfter(handle.db, 0);
    await archiveClosedBuckets(handle.db, later(3_600));
    const deleted = await pruneRevisions(handle.db, later(45));
    // hist-1's event revisions of t0 (superseded by t0+30) went; t0+30 stays as the state at t0+45.
    expect(deleted).toBe(1);
    expect(await count()).toBe(total - 1);
    expect((await read()).slice(2)).toEqual(before);
    expect(await pruneRevisions(handle.db, later(45))).toBe(0);
    // The archive holds what went: a reader resuming from the start is replayed all of it.
    expect(await revisionsAfter(handle.db, 0)).toEqual(everything);
    // Once the archive's hour is dropped, a reader that resumes from before its last revision may
    // miss a state that went, and is told so.
    const newest = everything.revisions.at(-1)!.revision;
    expect(await dropArchiveBefore(handle.db, later(3_600))).toBe(1);
    expect((await revisionsAfter(handle.db, 0)).complete).toBe(false);
    expect((await revisionsAfter(handle.db, newest - 1)).complete).toBe(false);
    expect((await revisionsAfter(handle.db, newest)).complete).toBe(true);
    const all = await pruneRevisions(handle.db, later(1000));
    expect(all).toBeGreaterThan(0);
    // The newest of each event and kind always stays: the present is never pruned.
    expect(await eventAsOf("hist-1", later(1000))).toMatchObject({ score: { home: 2, away: 3 } });
    expect(await marketsAsOf("hist-1", later(1000))).toHaveLength(1);
  });
});
