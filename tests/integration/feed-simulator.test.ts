import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openDatabase, rowsOf, type DatabaseHandle } from "../../lib/db/index.ts";
import { SPORTS, type EventStatus } from "../../lib/db/schema/index.ts";
import { canMove } from "../../lib/feed/status.ts";
import { Simulator } from "../../lib/sim/simulator.ts";
import { seedReferenceData } from "../../seeds/index.ts";
import { describeEachBackend, useTestDatabase } from "../../testing/databases.ts";

// The simulator through the real ingest into a real database, at 600 simulated seconds per real
// second on a test clock: a few ticks run whole matches.
const SPEED = 600;
// Six hours of schedule ahead rather than three days keeps the test's database small.
const HORIZON = 6 * 3600;
const start = new Date("2026-11-21T12:00:00Z").getTime();

describeEachBackend("the simulator on $name", (backend) => {
  const database = useTestDatabase(backend);
  let handle: DatabaseHandle;
  let clock = start;
  const now = () => new Date(clock);

  beforeAll(async () => {
    handle = await openDatabase(database().config);
    await seedReferenceData(handle.db);
  });
  afterAll(() => handle?.close());

  const statusCounts = async () =>
    rowsOf<{ sport: string; status: EventStatus; n: number }>(
      await handle.db.execute(sql`select sport, status, count(*)::int as n from events group by sport, status`),
    );

  it("schedules every sport, keeps events live, and runs them to the end without a rejected update", async () => {
    const simulator = new Simulator(handle.db, { speed: SPEED, seed: 7, now, horizon: HORIZON });
    const first = await simulator.tick();
    expect(first.rejections).toEqual([]);
    const counts = await statusCounts();
    for (const sport of SPORTS) {
      expect(
        counts.some((c) => c.sport === sport && c.status === "upcoming"),
        sport,
      ).toBe(true);
      // Matches already under way when the schedule starts are live at once.
      expect(
        counts.some((c) => c.sport === sport && c.status === "live"),
        sport,
      ).toBe(true);
    }
    const rejections: string[] = [];
    for (let i = 0; i < 30; i++) {
      clock += 2_000;
      rejections.push(...(await simulator.tick()).rejections);
    }
    expect(rejections).toEqual([]);
    const after = await statusCounts();
    for (const sport of SPORTS)
      expect(
        after.some((c) => c.sport === sport && c.status === "finished"),
        sport,
      ).toBe(true);
  });

  it("stores pre-match markets on upcoming events, and their history from before kickoff, through the same ingest", async () => {
    const upcoming = rowsOf<{ sport: string; markets: { type: string; status: string }[] }>(
      await handle.db.execute(sql`select sport, markets from events where status = 'upcoming'`),
    );
    for (const sport of SPORTS) {
      const offered = upcoming.filter((e) => e.sport === sport && e.markets.length > 0);
      expect(offered.length, sport).toBeGreaterThan(0);
      for (const event of offered)
        expect(event.markets.filter((m) => m.type === "match_winner" && m.status === "open").length, sport).toBe(1);
    }
    // Events that went live during the run: their markets' history starts before the kickoff revision.
    const [{ n }] = rowsOf<{ n: number }>(
      await handle.db.execute(
        sql`select count(distinct m.event_id)::int as n from event_revisions m join event_revisions l
              on l.event_id = m.event_id and l.kind = 'event' and l.state->>'status' = 'live'
            where m.kind = 'markets' and m.revision < l.revision`,
      ),
    ) as [{ n: number }];
    expect(n).toBeGreaterThan(10);
  });

  it("stores a history in which every event moves only along the contract's transitions", async () => {
    const rows = rowsOf<{ event_id: string; status: EventStatus }>(
      await handle.db.execute(
        sql`select event_id, state->>'status' as status from event_revisions where kind = 'event' order by revision`,
      ),
    );
    const last = new Map<string, EventStatus>();
    for (const row of rows) {
      const previous = last.get(row.event_id);
      if (previous) expect(canMove(previous, row.status), `${row.event_id}: ${previous} -> ${row.status}`).toBe(true);
      last.set(row.event_id, row.status);
    }
    expect(last.size).toBeGreaterThan(100);
  });

  it("is carried on by a new leader from where the world is, as a restart would", async () => {
    const before = await statusCounts();
    clock += 2_000;
    const successor = new Simulator(handle.db, { speed: SPEED, seed: 7, now, horizon: HORIZON });
    const report = await successor.tick();
    // Replaying to now only repeats what is stored (counted as replayed, not refused) or moves it on.
    expect(report.applied).toBeGreaterThan(0);
    expect(report.replayed).toBeGreaterThan(0);
    expect(report.rejections).toEqual([]);
    expect(report.rejected).toBe(0);
    const after = await statusCounts();
    const total = (counts: typeof before) => counts.reduce((sum, c) => sum + c.n, 0);
    expect(total(after)).toBeGreaterThanOrEqual(total(before));
    const live = after.filter((c) => c.status === "live").reduce((sum, c) => sum + c.n, 0);
    expect(live).toBeGreaterThan(0);
  });

  it("cancels the open events of another world (another seed or speed) when it starts", async () => {
    const other = new Simulator(handle.db, { speed: SPEED, seed: 8, now, horizon: HORIZON });
    await other.tick();
    const open = rowsOf<{ n: number }>(
      await handle.db.execute(
        sql`select count(*)::int as n from events where id like ${`%-${new Simulator(handle.db, { speed: SPEED, seed: 7, now, horizon: HORIZON }).world}-%`} and status in ('upcoming', 'live', 'suspended', 'postponed')`,
      ),
    )[0]!.n;
    expect(open).toBe(0);
  });
});
