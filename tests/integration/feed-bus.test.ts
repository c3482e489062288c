import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "../../lib/db/index.ts";
import { sql } from "drizzle-orm";
import {
  feedChanges,
  keyChanges,
  publish,
  startChangeBus,
  type ChangeBus,
  type EventChange,
  type KeyChange,
} from "../../lib/bus/index.ts";
import { applyBatch, linesOf } from "../../lib/feed/ingest.ts";
import { startLeadership, type Leadership } from "../../lib/feed/leader.ts";
import { seedReferenceData } from "../../seeds/index.ts";
import { describeEachBackend, POSTGRES, useTestDatabase } from "../../testing/databases.ts";

const creation = (id: string) => ({
  event_id: id,
  sequence: 1,
  event: {
    sport: "tennis",
    competition: "Bus Open",
    home: `${id} One`,
    away: `${id} Two`,
    status: "upcoming",
    feed: "official",
    kickoff: "2026-11-22T10:00:00Z",
  },
});

async function until(condition: () => boolean, timeoutMs = 5_000, between?: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await between?.();
    await new Promise((resolve) => setTimeout(resolve, between ? 250 : 10));
  }
}

describeEachBackend("the change bus on $name", (backend) => {
  const database = useTestDatabase(backend);
  let handle: DatabaseHandle;
  let bus: ChangeBus;

  beforeAll(async () => {
    handle = await openDatabase(database().config);
    await seedReferenceData(handle.db);
    bus = await startChangeBus(handle);
  });
  afterAll(async () => {
    await bus?.close();
    await handle?.close();
  });

  it("tells subscribers of each committed change: the event, its revision and what changed", async () => {
    const heard: EventChange[] = [];
    const unsubscribe = await bus.subscribe(feedChanges, (changes) => heard.push(...changes));
    const result = await applyBatch(handle.db, linesOf([creation("bus-1"), creation("bus-2")]), new Date());
    await until(() => heard.length >= 2);
    expect(heard).toEqual(result.changes);
    expect(heard.map((c) => [c.eventId, c.kinds])).toEqual([
      ["bus-1", ["event"]],
      ["bus-2", ["event"]],
    ]);
    unsubscribe();
  });

  it("says nothing of a batch whose every line was rejected", async () => {
    const heard: EventChange[] = [];
    const unsubscribe = await bus.subscribe(feedChanges, (changes) => heard.push(...changes));
    await applyBatch(handle.db, linesOf([creation("bus-1")]), new Date());
    await applyBatch(handle.db, linesOf([{ ...creation("bus-3"), sequence: 2 }]), new Date());
    await until(() => heard.length >= 1);
    expect(heard.map((c) => c.eventId)).toEqual(["bus-3"]);
    unsubscribe();
  });

  it("hands each notice as its channel's schema reads it, and a follower null for one it cannot read", async () => {
    const followed: (KeyChange | null)[] = [];
    const subscribed: KeyChange[] = [];
    const unfollow = await bus.follow(keyChanges, (change) => followed.push(change));
    const unsubscribe = await bus.subscribe(keyChanges, (change) => subscribed.push(change));
    await publish(handle.db, keyChanges, { orgId: "org-1" });
    await handle.db.execute(sql`select pg_notify(${keyChanges.name}, ${JSON.stringify({ keyId: 7 })})`);
    await publish(handle.db, keyChanges, { keyId: "key-1" });
    await until(() => followed.length >= 3);
    expect(followed).toEqual([{ orgId: "org-1" }, null, { keyId: "key-1" }]);
    expect(subscribed).toEqual([{ orgId: "org-1" }, { keyId: "key-1" }]);
    unfollow();
    unsubscribe();
  });
});

describe.runIf(POSTGRES)("two instances on one PostgreSQL database", () => {
  const database = useTestDatabase(POSTGRES!);
  let first: DatabaseHandle;
  let second: DatabaseHandle;

  beforeAll(async () => {
    first = await openDatabase(database().config);
    second = await openDatabase(database().config);
    await seedReferenceData(first.db);
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it("each hears the other's changes through LISTEN/NOTIFY, in revision order", async () => {
    const busOfSecond = await startChangeBus(second);
    const heard: EventChange[] = [];
    await busOfSecond.subscribe(feedChanges, (changes) => heard.push(...changes));
    const sent = [];
    for (let i = 0; i < 5; i++)
      sent.push(...(await applyBatch(first.db, linesOf([creation(`two-${i}`)]), new Date())).changes);
    await until(() => heard.length >= 5);
    expect(heard).toEqual(sent);
    const revisions = heard.map((c) => c.revision);
    expect([...revisions].sort((a, b) => a - b)).toEqual(revisions);
    await busOfSecond.close();
  });

  it("keeps hearing changes after its LISTEN connection is cut, and says it may have missed some", async () => {
    const busOfSecond = await startChangeBus(second);
    const heard: EventChange[] = [];
    await busOfSecond.subscribe(feedChanges, (changes) => heard.push(...changes));
    let resyncs = 0;
    await busOfSecond.follow(feedChanges, (changes) => {
      if (changes === null) resyncs++;
    });
    const [cut] = await first.postgres!`
      select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
      where datname = current_database() and query ilike 'listen%'`;
    expect(cut!.n).toBeGreaterThan(0);
    // postgres.js reconnects and listens again; a change committed after that is heard.
    let sent: EventChange[] = [];
    let attempt = 0;
    await until(
      () => heard.some((c) => sent.some((s) => s.eventId === c.eventId)),
      10_000,
      async () => {
        sent = (await applyBatch(first.db, linesOf([creation(`relisten-${attempt++}`)]), new Date())).changes;
      },
    );
    // Its subscribers were told that notifications may have been missed in between.
    expect(resyncs).toBe(1);
    await busOfSecond.close();
  });

  it("elects one leader, and another takes over when the leader stops or its connection dies", async () => {
    const log: string[] = [];
    const lockKey = 77_001;
    const elect = (name: string, handle: DatabaseHandle) =>
      startLeadership(handle, {
        lockKey,
        intervalMs: 100,
        onLead: () => void log.push(`${name} leads`),
        onLose: () => void log.push(`${name} lost`),
      });
    const a: Leadership = elect("a", first);
    await until(() => a.leading);
    const b: Leadership = elect("b", second);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect([a.leading, b.leading]).toEqual([true, false]);

    await a.stop();
    await until(() => b.leading);
    expect(log).toEqual(["a leads", "a lost", "b leads"]);

    // The leader's process dying looks like its connection closing: the lock goes with it.
    const c = elect("c", first);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(c.leading).toBe(false);
    await first.postgres!`select pg_terminate_backend(pid) from pg_locks where locktype = 'advisory' and objid = ${lockKey} and granted`;
    await until(() => c.leading);
    await until(() => !b.leading);
    expect(log.slice(3)).toEqual(expect.arrayContaining(["b lost", "c leads"]));
    await b.stop();
    await c.stop();
  });
});
