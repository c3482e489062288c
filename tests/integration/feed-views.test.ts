import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { openDatabase, type DatabaseHandle } from "../../lib/db/index.ts";
import { feedChanges, startChangeBus, type ChangeBus } from "../../lib/bus/index.ts";
import { applyBatch, linesOf } from "../../lib/feed/ingest.ts";
import type { FeedUpdate } from "../../lib/feed/schemas.ts";
import { FeedViews } from "../../lib/feed/views.ts";
import { logger } from "../../lib/log/index.ts";
import { seedReferenceData } from "../../seeds/index.ts";
import { countingStatements, describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { creation } from "../../testing/feed.ts";
import { MemoryBus } from "../../testing/instance-parts.ts";

// The two views the API serves from: the present, and the present of DELAY seconds ago, both
// built from the revision history, with the clock under the test's control.

const DELAY = 60;
const t0 = new Date("2026-11-21T16:00:00Z");
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

const score = (id: string, sequence: number, home: number): FeedUpdate => ({
  event_id: id,
  sequence,
  event: { status: "live", score: { home, away: 0 } },
});

describeEachBackend("the feed views on $name", (backend) => {
  const database = useTestDatabase(backend);
  let handle: DatabaseHandle;
  let bus: ChangeBus;
  let clock = at(0);
  const views: FeedViews[] = [];
  const apply = (recordedAt: Date, ...updates: FeedUpdate[]) => applyBatch(handle.db, linesOf(updates), recordedAt);
  const startViews = async () => {
    const started = new FeedViews(handle.db, DELAY, () => clock);
    await started.start(bus);
    views.push(started);
    return started;
  };

  beforeAll(async () => {
    handle = await openDatabase(database().config);
    await seedReferenceData(handle.db);
    bus = await startChangeBus(handle);
  });
  afterAll(async () => {
    for (const view of views) await view.stop();
    await bus?.close();
    await handle?.close();
  });

  it("follows the present as changes commit, and shows the delayed view only once each change is old enough", async () => {
    const feed = await startViews();
    await apply(at(0), creation("v-1", "2026-11-21T16:30:00Z", "soccer"));
    const { changes } = await apply(at(10), score("v-1", 2, 1));
    expect(await feed.reach(changes[0]!.revision)).toBe(true);
    expect(feed.present.get("v-1")?.event).toMatchObject({ status: "live", score: { home: 1, away: 0 } });

    clock = at(59.999);
    expect(feed.delayed(clock).get("v-1")).toBeUndefined(); // created at 0: not yet 60 s old
    clock = at(60);
    expect(feed.delayed(clock).get("v-1")?.event).toMatchObject({ status: "upcoming" });
    clock = at(69.999);
    expect(feed.delayed(clock).get("v-1")?.event).toMatchObject({ status: "upcoming" });
    clock = at(70);
    expect(feed.delayed(clock).get("v-1")?.event).toMatchObject({ status: "live", score: { home: 1 } });
  });

  it("starts from the history: a new instance's delayed view is the feed as it was a delay ago", async () => {
    await apply(at(80), score("v-1", 3, 2));
    clock = at(100);
    const fresh = await startViews();
    expect(fresh.present.get("v-1")?.event).toMatchObject({ score: { home: 2 } });
    // At 100, a delay ago is 40: after the goal at 10, before the one at 80.
    expect(fresh.delayed(clock).get("v-1")?.event).toMatchObject({ status: "live", score: { home: 1 } });
    clock = at(140);
    expect(fresh.delayed(clock).get("v-1")?.event).toMatchObject({ score: { home: 2 } });
  });

  it("never shows a revision before an earlier-numbered one that was recorded later", async () => {
    clock = at(200);
    const feed = await startViews();
    // Two ingests racing for the revision counter: the later-stamped one committed first.
    const first = await apply(at(205), creation("v-race-a", "2026-11-21T17:00:00Z", "soccer"));
    const second = await apply(at(201), creation("v-race-b", "2026-11-21T17:00:00Z", "soccer"));
    expect(second.changes[0]!.revision).toBeGreaterThan(first.changes[0]!.revision);
    await feed.reach(second.changes[0]!.revision);

    clock = at(262);
    // b is 61 s old, but a (revision before it) only 57 s: neither shows, so nothing is seen early.
    expect(feed.delayed(clock).get("v-race-b")).toBeUndefined();
    expect(feed.delayed(clock).get("v-race-a")).toBeUndefined();
    clock = at(265);
    expect(feed.delayed(clock).get("v-race-a")).toBeDefined();
    expect(feed.delayed(clock).get("v-race-b")).toBeDefined();
  });

  it("lists in kickoff then id order, and a mirror's version moves with every change", async () => {
    const feed = views[0]!;
    const version = feed.present.version;
    const { changes } = await apply(at(300), creation("v-0-early", "2026-11-21T15:00:00Z", "soccer"));
    await feed.reach(changes[0]!.revision);
    expect(feed.present.version).toBeGreaterThan(version);
    const ids = feed.present.inListOrder().map((d) => d.event.id);
    expect(ids[0]).toBe("v-0-early");
    expect(ids.indexOf("v-race-a")).toBeLessThan(ids.indexOf("v-race-b"));
  });

  // The ingest waits for its own commit (`reach`) and the commit's notice wakes the view too: the
  // second wake came while the first read was under way, and read the same revision again.
  it("asks the database once for a revision that two wakes want, and again for one past it", async () => {
    const { db: counted, count } = countingStatements(handle.db);
    const feed = new FeedViews(counted, DELAY, () => clock);
    await feed.start(bus);
    views.push(feed);
    // What one read asks; it also puts the idle look ten seconds away.
    count.statements = 0;
    await feed.advance();
    const once = count.statements;
    expect(once).toBeGreaterThan(0);

    // Whenever the commit's notice comes (it may start the first read), the ingest's wait and
    // another wake for the same revision, sent while a read is under way, cost one read in all.
    count.statements = 0;
    const { changes } = await apply(at(350), score("v-1", 20, 7));
    const revision = changes[0]!.revision;
    await Promise.all([feed.reach(revision), feed.advance(revision)]);
    expect(feed.present.get("v-1")?.event).toMatchObject({ score: { home: 7 } });
    expect(count.statements).toBe(once);

    // A wake for a revision not applied yet reads again, whenever it comes.
    count.statements = 0;
    await Promise.all([feed.advance(revision), feed.advance(revision + 1)]);
    expect(count.statements).toBe(once);
    count.statements = 0;
    await feed.advance(revision);
    expect(count.statements).toBe(0);
  });

  // The ingest hands its commit to its own instance's views (`offer`); a view hears no notice here
  // (a bus of the test's), so only the offer or a read can move it.
  it("applies its own instance's commit without reading it back, and reads when another commit came between", async () => {
    const { db: counted, count } = countingStatements(handle.db);
    const feed = new FeedViews(counted, DELAY, () => clock);
    await feed.start(new MemoryBus());
    views.push(feed);
    count.statements = 0;
    await feed.advance();
    const once = count.statements;

    const own = await apply(at(500), score("v-1", 30, 8));
    count.statements = 0;
    feed.offer(own.revisions);
    expect(await feed.reach(own.changes[0]!.revision, 1_000)).toBe(true);
    expect(count.statements).toBe(0);
    expect(feed.present.get("v-1")?.event).toMatchObject({ score: { home: 8 } });
    // As the history holds it: what a view that read it serves.
    const reader = await startViews();
    expect(JSON.stringify(feed.present.get("v-1")?.event)).toBe(JSON.stringify(reader.present.get("v-1")?.event));
    // The delayed view takes it in its turn.
    clock = at(560);
    expect(feed.delayed(clock).get("v-1")?.event).toMatchObject({ score: { home: 8 } });

    // Offered again (a read brought it first): nothing moves, nothing is read.
    const version = feed.present.version;
    feed.offer(own.revisions);
    await feed.advance(own.changes[0]!.revision);
    expect(feed.present.version).toBe(version);
    expect(count.statements).toBe(0);

    // Another instance's commit came first: the own one does not follow the present, so one read brings both.
    await apply(at(501), score("v-1", 31, 9));
    const after = await apply(at(502), score("v-1", 32, 10));
    count.statements = 0;
    feed.offer(after.revisions);
    expect(await feed.reach(after.changes[0]!.revision, 1_000)).toBe(true);
    expect(count.statements).toBe(once);
    expect(feed.present.get("v-1")?.event).toMatchObject({ score: { home: 10 } });
    clock = at(561);
    expect(feed.delayed(clock).get("v-1")?.event).toMatchObject({ score: { home: 9 } });
  });

  // The embedded database answers a commit before it sends the commit's notice, as a listener on
  // another connection hears it; on PostgreSQL the two race, and a read settles it.
  it.runIf(backend.name === "pglite")(
    "hears its own commit's notice after the commit's answer, so an offered commit leaves nothing to read",
    async () => {
      const { db: counted, count } = countingStatements(handle.db);
      const feed = new FeedViews(counted, DELAY, () => clock);
      await feed.start(bus);
      views.push(feed);
      await feed.advance();
      const heard = Promise.withResolvers<void>();
      const unfollow = await bus.follow(feedChanges, (changes) => {
        if (changes?.some((change) => change.eventId === "v-own")) heard.resolve();
      });
      try {
        count.statements = 0;
        const own = await apply(at(600), creation("v-own", "2026-11-21T19:00:00Z", "soccer"));
        feed.offer(own.revisions);
        await heard.promise;
        expect(await feed.reach(own.changes[0]!.revision, 1_000)).toBe(true);
        expect(feed.present.get("v-own")).toBeDefined();
        expect(count.statements).toBe(0);
      } finally {
        unfollow();
      }
    },
  );

  // The instance closes the database right after the views stop: a read still under way then
  // failed, and was logged as an error, at an ordinary stop.
  it("stops once the read under way has ended, and reads nothing after", async () => {
    const feed = await startViews();
    const errors = vi.spyOn(logger(), "error");
    try {
      await apply(at(400), creation("v-stop-a", "2026-11-21T18:00:00Z", "soccer"));
      let read = false;
      void feed.advance().then(() => (read = true));
      await feed.stop();
      expect(read).toBe(true);

      const { changes } = await apply(at(401), creation("v-stop-b", "2026-11-21T18:00:00Z", "soccer"));
      expect(await feed.reach(changes[0]!.revision, 200)).toBe(false);
      expect(feed.present.get("v-stop-b")).toBeUndefined();
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
  });
});
