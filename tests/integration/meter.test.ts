import { appendFileSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { OPERATOR } from "../../lib/accounts/audit.ts";
import { openDatabase, rowsOf, type DatabaseHandle } from "../../lib/db/index.ts";
import { DatabaseWaitExceeded } from "../../lib/db/wait.ts";
import { publish, startChangeBus, usageTotals, type ChangeBus } from "../../lib/bus/index.ts";
import { createSandboxKey } from "../../lib/keys/index.ts";
import { hashKey } from "../../lib/keys/format.ts";
import { findKeyByHash, type ApiKeyRecord } from "../../lib/keys/lookup.ts";
import { JournalMeter, type Admission } from "../../lib/metering/index.ts";
import { readJournal } from "../../lib/metering/journal.ts";
import { createOrganisation } from "../../lib/accounts/organisations.ts";
import { seed } from "../../seeds/index.ts";
import { BACKENDS, POSTGRES, useTestDatabase, type TestDatabase } from "../../testing/databases.ts";
import { replaceWriteSync } from "../../testing/write-faults.ts";

// The meter against a real database, in this process: exact counts, the journal's replay after a
// crash, month rollover and the per-second window with times chosen by the test, and two meters
// sharing PostgreSQL as two instances would. tests/integration/metering.test.ts does the same
// through HTTP with real server processes, `kill -9` included.

const HOUR = 3_600_000;
// Flushes only when a test asks: a crash is a meter dropped without closing.
const MANUAL = 24 * HOUR;

/** A test database with the seed and a change bus; the meters a suite starts are closed after it. */
function meterSuiteDatabase(database: () => TestDatabase) {
  let handle: DatabaseHandle | undefined;
  let bus: ChangeBus | undefined;
  const meters: JournalMeter[] = [];
  beforeAll(async () => {
    handle = await openDatabase(database().config);
    await seed(handle.db, new Date());
    bus = await startChangeBus(handle);
  });
  afterAll(async () => {
    for (const meter of meters) await meter.close();
    await bus?.close();
    await handle?.close();
  });
  return { handle: () => handle!, bus: () => bus!, meters };
}

/** A sandbox key's record, with the limits a test needs in place of its plan's. */
async function keyWithLimits(
  handle: DatabaseHandle,
  name: string,
  limits: Partial<ApiKeyRecord>,
): Promise<ApiKeyRecord> {
  const org = await createOrganisation(handle.db, { name }, OPERATOR);
  const created = await createSandboxKey(
    handle.db,
    org.id,
    { sport: "soccer" },
    { actor: OPERATOR, at: new Date(), ttlDays: 30 },
  );
  return { ...(await findKeyByHash(handle.db, hashKey(created.key)))!, ...limits };
}

type Usage = { monthly: Record<string, number>; daily: Record<string, number>; lastUsedAt: string | null };

for (const backend of BACKENDS) {
  describe(`the meter on ${backend.name}`, () => {
    const { handle: db, bus: changes, meters } = meterSuiteDatabase(useTestDatabase(backend));
    let handle: DatabaseHandle;
    let bus: ChangeBus;
    let orgCount = 0;
    beforeAll(() => {
      handle = db();
      bus = changes();
    });

    const newKey = (limits: Partial<ApiKeyRecord> = {}) =>
      keyWithLimits(handle, `Metered ${++orgCount}`, {
        requestsPerSecond: 1_000_000,
        monthlyQuota: 1_000_000,
        ...limits,
      });
    const startMeter = async (options: { dir?: string; shared?: boolean; crashes?: boolean } = {}) => {
      const { meter, replayed } = await JournalMeter.start({
        db: handle.db,
        journalDir: options.dir ?? mkdtempSync(path.join(tmpdir(), "meter-")),
        flushIntervalMs: MANUAL,
        bus: options.shared ? bus : undefined,
        now: () => new Date(),
      });
      if (!options.crashes) meters.push(meter);
      return { meter, replayed };
    };
    const usageOf = async (keyId: string): Promise<Usage> => {
      const monthly = rowsOf<{ month: string; requests: string | number }>(
        await handle.db.execute(sql`select month::text, requests from usage_monthly where key_id = ${keyId}`),
      );
      const daily = rowsOf<{ day: string; requests: string | number }>(
        await handle.db.execute(sql`select day::text, requests from usage_daily where key_id = ${keyId}`),
      );
      const [key] = rowsOf<{ last_used_at: Date | string | null }>(
        await handle.db.execute(sql`select last_used_at from api_keys where id = ${keyId}`),
      );
      return {
        monthly: Object.fromEntries(monthly.map((r) => [r.month, Number(r.requests)])),
        daily: Object.fromEntries(daily.map((r) => [r.day, Number(r.requests)])),
        lastUsedAt: key?.last_used_at ? new Date(key.last_used_at).toISOString() : null,
      };
    };
    // Answered requests: admitted, and each admitted one's count journaled (as the API answers).
    const admitAll = async (meter: JournalMeter, key: ApiKeyRecord, at: Date, n: number): Promise<Admission[]> => {
      const answers = await Promise.all(Array.from({ length: n }, () => meter.admit(key, at)));
      await Promise.all(answers.map((answer) => (answer.admitted ? answer.journaled : undefined)));
      return answers;
    };
    /** A request of a key already counted this month, which the meter decides without waiting. */
    const admitNow = (meter: JournalMeter, key: ApiKeyRecord, at: Date) => {
      const answer = meter.admit(key, at);
      if (answer instanceof Promise) throw new Error("the key's count was not loaded yet");
      return answer;
    };

    it("writes the requests decided in one turn with one journal write, and answers them once it is done", async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "meter-batch-"));
      const { meter } = await startMeter({ dir });
      const key = await newKey();
      const at = new Date("2026-11-21T12:00:00Z");
      await admitAll(meter, key, at, 1);
      const [file] = readdirSync(dir);
      let writes = 0;
      const restore = replaceWriteSync((real) => (fd, text) => (writes++, real(fd, text)));
      try {
        const answers = Array.from({ length: 25 }, () => admitNow(meter, key, at));
        expect(answers.map((a) => a.used)).toEqual(Array.from({ length: 25 }, (_, i) => i + 2));
        // Decided, not yet written: none of them may be answered yet.
        expect(readJournal(path.join(dir, file!), 0).records).toHaveLength(1);
        let journaled = 0;
        for (const answer of answers) void (answer.admitted ? answer.journaled : undefined)?.then(() => journaled++);
        await Promise.resolve();
        expect(journaled).toBe(0);
        await Promise.all(answers.map((a) => (a.admitted ? a.journaled : undefined)));
        expect(writes).toBe(1);
        expect(readJournal(path.join(dir, file!), 0).records).toHaveLength(26);
      } finally {
        restore();
      }
      await meter.flush();
      expect((await usageOf(key.id)).monthly).toEqual({ "2026-11-01": 26 });
      await meter.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it("counts none of the requests whose journal write failed, and tells each of them", async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "meter-full-"));
      const { meter } = await startMeter({ dir });
      const key = await newKey({ requestsPerSecond: 6 });
      const at = new Date("2026-11-21T12:00:00Z");
      await admitAll(meter, key, at, 1);
      const restore = replaceWriteSync(() => () => {
        throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
      });
      let outcomes: PromiseSettledResult<void>[];
      try {
        const answers = Array.from({ length: 5 }, () => admitNow(meter, key, at));
        expect(answers.map((a) => a.used)).toEqual([2, 3, 4, 5, 6]);
        outcomes = await Promise.allSettled(answers.map((a) => (a.admitted ? a.journaled : undefined)));
      } finally {
        restore();
      }
      expect(outcomes.map((o) => o.status)).toEqual(Array(5).fill("rejected"));
      // Taken back from the month and from the second: the key may still make 5 requests this second.
      const next = await admitAll(meter, key, at, 6);
      expect(next.map((a) => a.admitted)).toEqual([true, true, true, true, true, false]);
      expect(next[4]).toMatchObject({ used: 6 });
      await meter.flush();
      expect(await usageOf(key.id)).toMatchObject({ monthly: { "2026-11-01": 6 }, daily: { "2026-11-21": 6 } });
      const [file] = readdirSync(dir);
      expect(readJournal(path.join(dir, file!), 0).records).toHaveLength(6);
      await meter.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it("admits exactly a quota of N out of many concurrent requests, each with its own count", async () => {
      const { meter } = await startMeter();
      const key = await newKey({ monthlyQuota: 3_000 });
      const at = new Date("2026-11-21T12:00:00.250Z");
      const answers = await admitAll(meter, key, at, 4_000);
      const admitted = answers.filter((a) => a.admitted);
      expect(admitted.length).toBe(3_000);
      expect(new Set(admitted.map((a) => a.used)).size).toBe(3_000);
      expect(Math.max(...admitted.map((a) => a.used))).toBe(3_000);

      const refused = answers.filter((a) => !a.admitted);
      expect(refused.length).toBe(1_000);
      for (const answer of refused) {
        expect(answer).toMatchObject({ code: "quota_exceeded", violated: "month", used: 3_000, quota: 3_000 });
        // 2026-12-01T00:00:00Z is 9 days, 12 hours and 0.75 s away: rounded up.
        expect(answer.admitted ? 0 : answer.retryAfter).toBe(9 * 86_400 + 12 * 3_600);
        expect(answer.headers.ratelimit).toBe(
          `"second";r=${1_000_000 - 3_000};t=1, "month";r=0;t=${9 * 86_400 + 12 * 3_600}`,
        );
      }

      await meter.flush();
      expect(await usageOf(key.id)).toEqual({
        monthly: { "2026-11-01": 3_000 },
        daily: { "2026-11-21": 3_000 },
        // To the minute.
        lastUsedAt: "2026-11-21T12:00:00.000Z",
      });
    });

    it("keeps last_used_at to the minute, writing a key's row once a minute however often it is flushed", async () => {
      const { meter } = await startMeter();
      const key = await newKey();
      const version = async () =>
        rowsOf<{ xmin: string }>(await handle.db.execute(sql`select xmin::text from api_keys where id = ${key.id}`))[0]!
          .xmin;
      await admitAll(meter, key, new Date("2026-11-21T12:07:10.000Z"), 3);
      await meter.flush();
      const written = await version();
      expect((await usageOf(key.id)).lastUsedAt).toBe("2026-11-21T12:07:00.000Z");
      for (const second of [20, 40, 59]) {
        await admitAll(meter, key, new Date(`2026-11-21T12:07:${second}.500Z`), 2);
        await meter.flush();
      }
      // Counted each time, the key's row left alone: the same minute was already written.
      expect(await usageOf(key.id)).toMatchObject({
        monthly: { "2026-11-01": 9 },
        lastUsedAt: "2026-11-21T12:07:00.000Z",
      });
      expect(await version()).toBe(written);
      await admitAll(meter, key, new Date("2026-11-21T12:08:01.000Z"), 1);
      await meter.flush();
      expect((await usageOf(key.id)).lastUsedAt).toBe("2026-11-21T12:08:00.000Z");
      expect(await version()).not.toBe(written);
    });

    it("refuses beyond the per-second limit without counting, and admits again in the next second", async () => {
      const { meter } = await startMeter();
      const key = await newKey({ requestsPerSecond: 3, monthlyQuota: 100 });
      const second = new Date("2026-11-21T12:00:07.000Z");
      const burst = await admitAll(meter, key, second, 5);
      expect(burst.map((a) => a.admitted)).toEqual([true, true, true, false, false]);
      // 2026-12-01T00:00:00Z is 9 days, 12 hours less 7 s away.
      expect(burst[2]!.headers.ratelimit).toBe(`"second";r=0;t=1, "month";r=97;t=${9 * 86_400 + 12 * 3_600 - 7}`);
      expect(burst[3]).toMatchObject({ code: "rate_limited", violated: "second", retryAfter: 1, used: 3 });
      expect(burst[3]!.headers["ratelimit-policy"]).toBe('"second";q=3;w=1, "month";q=100;w=2592000');
      const next = await meter.admit(key, new Date(second.getTime() + 1_000));
      expect(next).toMatchObject({ admitted: true, used: 4 });
      await meter.flush();
      expect((await usageOf(key.id)).monthly).toEqual({ "2026-11-01": 4 });
    });

    it("starts every key again at zero when the month turns (UTC), and keeps each month's days apart", async () => {
      const { meter } = await startMeter();
      const key = await newKey({ monthlyQuota: 2 });
      const lastSecond = new Date("2026-11-30T23:59:59.500Z");
      expect((await admitAll(meter, key, lastSecond, 3)).map((a) => a.admitted)).toEqual([true, true, false]);
      const refused = await meter.admit(key, lastSecond);
      expect(refused).toMatchObject({ admitted: false, code: "quota_exceeded", retryAfter: 1 });
      const december = await meter.admit(key, new Date("2026-12-01T00:00:00.000Z"));
      expect(december).toMatchObject({ admitted: true, used: 1, quota: 2 });
      await meter.flush();
      expect(await usageOf(key.id)).toEqual({
        monthly: { "2026-11-01": 2, "2026-12-01": 1 },
        daily: { "2026-11-30": 2, "2026-12-01": 1 },
        lastUsedAt: "2026-12-01T00:00:00.000Z",
      });
    });

    it("adds what a crashed instance journaled but never flushed when the next one starts, once", async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "meter-crash-"));
      const { meter: crashed } = await startMeter({ dir, crashes: true });
      const key = await newKey();
      const at = new Date("2026-11-21T12:00:00Z");
      await admitAll(crashed, key, at, 50);
      await crashed.flush();
      await admitAll(crashed, key, at, 30);
      // A line cut short by the crash was never answered: it is not a request.
      const [file] = readdirSync(dir);
      appendFileSync(path.join(dir, file!), `${key.id} 17`);
      expect((await usageOf(key.id)).monthly).toEqual({ "2026-11-01": 50 });

      // `crashed` is dropped without close(), as a killed process would leave it.
      const { meter: next, replayed } = await startMeter({ dir });
      expect(replayed).toBe(30);
      expect((await usageOf(key.id)).monthly).toEqual({ "2026-11-01": 80 });
      expect((await next.admit(key, at)).used).toBe(81);

      // The replayed journal is gone; only the new instance's own is left.
      expect(readdirSync(dir)).toEqual([expect.stringMatching(new RegExp(`^${process.pid}-\\w+\\.journal$`))]);
      expect(readdirSync(dir)[0]).not.toContain(/^\d+-(\w+)\./.exec(file!)![1]!);
      await next.close();
      expect((await usageOf(key.id)).monthly).toEqual({ "2026-11-01": 81 });
      rmSync(dir, { recursive: true, force: true });
    });

    it("adds again from its journal what the database lost of its committed flushes", async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "meter-lost-"));
      const { meter } = await startMeter({ dir });
      const key = await newKey();
      const at = new Date("2026-11-21T12:00:00Z");
      await admitAll(meter, key, at, 40);
      await meter.flush();
      // What a PostgreSQL crash does to commits that had not reached its WAL on disk.
      await handle.db.execute(sql`delete from usage_monthly where key_id = ${key.id}`);
      await handle.db.execute(sql`delete from usage_daily where key_id = ${key.id}`);
      const journalId = /^\d+-(\w+)\.journal$/.exec(readdirSync(dir)[0]!)![1]!;
      await handle.db.execute(sql`update meter_journals set flushed_bytes = 0 where id = ${journalId}`);
      await admitAll(meter, key, at, 2);
      await meter.flush();
      expect((await usageOf(key.id)).monthly).toEqual({ "2026-11-01": 42 });
      expect((await usageOf(key.id)).daily).toEqual({ "2026-11-21": 42 });
    });

    it("keeps admitting while its flushes fail, and adds everything once the database answers", async () => {
      let down = false;
      // The real database, whose transactions fail while `down`, as they do when it is unreachable.
      const flaky = new Proxy(handle.db, {
        get(target, name, receiver) {
          if (name === "transaction" && down) return () => Promise.reject(new Error("connection refused"));
          return Reflect.get(target, name, receiver) as unknown;
        },
      });
      const { meter } = await JournalMeter.start({
        db: flaky,
        journalDir: mkdtempSync(path.join(tmpdir(), "meter-down-")),
        flushIntervalMs: MANUAL,
        now: () => new Date(),
      });
      meters.push(meter);
      const key = await newKey({ monthlyQuota: 30 });
      const at = new Date("2026-11-21T12:00:00Z");
      await admitAll(meter, key, at, 10);
      down = true;
      await meter.flush();
      await admitAll(meter, key, at, 10);
      await meter.flush();
      const during = await admitAll(meter, key, at, 15);
      expect(during.filter((a) => a.admitted).map((a) => a.used)).toEqual([21, 22, 23, 24, 25, 26, 27, 28, 29, 30]);
      expect((await usageOf(key.id)).monthly).toEqual({});
      // What the metrics show meanwhile: the journal ahead of the database, since the first request.
      const behind = meter.stats();
      expect(behind.flushFailures).toBe(2);
      expect(behind.unflushedBytes).toBe(behind.journalBytes);
      expect(behind.unflushedBytes).toBeGreaterThan(0);
      expect(behind.flushLagSeconds).toBeGreaterThanOrEqual((Date.now() - at.getTime()) / 1000 - 60);
      down = false;
      await meter.flush();
      expect((await usageOf(key.id)).monthly).toEqual({ "2026-11-01": 30 });
      expect(meter.stats()).toMatchObject({ unflushedBytes: 0, flushLagSeconds: 0, flushFailures: 2 });
      expect(await meter.admit(key, at)).toMatchObject({ admitted: false, used: 30 });
    });

    it("counts nothing for a request whose first count was read after its deadline (answered 503)", async () => {
      const { meter } = await startMeter();
      const key = await newKey();
      const at = new Date("2026-11-21T13:00:00Z");
      // The deadline has passed before the read can end: the pipeline has answered 503 by then.
      await expect(meter.admit(key, at, Date.now() - 1)).rejects.toThrow(DatabaseWaitExceeded);
      const next = await meter.admit(key, at, Date.now() + 60_000);
      expect(next).toMatchObject({ admitted: true, used: 1 });
    });

    it("deletes its journal on close once everything in it is in the database", async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "meter-close-"));
      const { meter } = await startMeter({ dir });
      const key = await newKey();
      await admitAll(meter, key, new Date("2026-11-21T12:00:00Z"), 7);
      await meter.close();
      expect(readdirSync(dir)).toEqual([]);
      expect((await usageOf(key.id)).monthly).toEqual({ "2026-11-01": 7 });
      rmSync(dir, { recursive: true, force: true });
    });

    it("counts the requests of a flush in flight until the database has them", async () => {
      const { meter } = await startMeter();
      const key = await newKey({ monthlyQuota: 5 });
      const at = new Date("2026-11-21T12:00:00Z");
      for (let i = 0; i < 5; i++) expect(await meter.admit(key, at)).toMatchObject({ admitted: true });
      const flushing = meter.flush();
      // One turn of the event loop: the flush has taken the counts and waits on the disk or the
      // database, several round trips from done.
      await new Promise((resolve) => setImmediate(resolve));
      expect(await meter.admit(key, at)).toMatchObject({ admitted: false, code: "quota_exceeded", used: 5 });
      await flushing;
      expect(await meter.admit(key, at)).toMatchObject({ admitted: false, code: "quota_exceeded", used: 5 });
      expect((await usageOf(key.id)).monthly).toEqual({ "2026-11-01": 5 });
    });

    it("limits a key's open streams to its plan's number, and frees a slot when a stream ends", async () => {
      const { meter } = await startMeter();
      const key = await newKey({ concurrentStreams: 2 });
      const at = new Date();
      const first = meter.openStream(key, at);
      const second = meter.openStream(key, at);
      expect(first).not.toBeNull();
      expect(second).not.toBeNull();
      expect(meter.openStream(key, at)).toBeNull();
      first!.release();
      first!.release(); // twice is once
      const third = meter.openStream(key, at);
      expect(third).not.toBeNull();
      expect(meter.openStream(key, at)).toBeNull();
    });
  });
}

const sharedBackend = POSTGRES;
if (sharedBackend) {
  describe("two meters sharing PostgreSQL, as two instances", () => {
    const { handle: db, bus: changes, meters } = meterSuiteDatabase(useTestDatabase(sharedBackend));
    let handle: DatabaseHandle;
    let bus: ChangeBus;
    beforeAll(() => {
      handle = db();
      bus = changes();
    });

    const instance = async () => {
      const { meter } = await JournalMeter.start({
        db: handle.db,
        journalDir: mkdtempSync(path.join(tmpdir(), "meter-shared-")),
        flushIntervalMs: MANUAL,
        bus,
        now: () => new Date(),
      });
      meters.push(meter);
      return meter;
    };
    const key = (limits: Partial<ApiKeyRecord>) => keyWithLimits(handle, `Shared ${meters.length}`, limits);
    // A meter's flush announces its totals; the other meter has heard them once a listener
    // subscribed after both (the bus calls a channel's listeners in order) hears them too. A flush
    // with nothing left to add announces nothing (the meter flushed near the quota by itself): a
    // barrier notice published after it is heard only once every earlier notice has been.
    const flushHeard = async (meter: JournalMeter) => {
      let heard!: () => void;
      const notice = new Promise<void>((resolve) => (heard = resolve));
      const barrier = `barrier-${meter.instance}-${Math.random()}`;
      const unsubscribe = await bus.subscribe(usageTotals, (totals) => {
        if (totals?.i === meter.instance || totals?.i === barrier) heard();
      });
      try {
        await meter.flush();
        await publish(handle.db, usageTotals, { i: barrier, t: [], s: [], o: [] });
        await notice;
      } finally {
        unsubscribe();
      }
    };

    it("learn each other's totals from each flush, so the quota holds within what was not yet flushed", async () => {
      const [a, b] = [await instance(), await instance()];
      const limited = await key({ monthlyQuota: 100, requestsPerSecond: 1_000_000 });
      const at = new Date("2026-11-21T12:00:00Z");
      // Neither has flushed: each knows only its own 60, so together they admit 120.
      const fromA = await Promise.all(Array.from({ length: 60 }, () => a.admit(limited, at)));
      const fromB = await Promise.all(Array.from({ length: 60 }, () => b.admit(limited, at)));
      expect([...fromA, ...fromB].every((x) => x.admitted)).toBe(true);
      await flushHeard(a);
      await flushHeard(b);
      // Now both know the total, and it never goes down in what either answers.
      for (const meter of [a, b]) {
        expect(await meter.admit(limited, at)).toMatchObject({ admitted: false, code: "quota_exceeded", used: 120 });
      }
      const [row] = rowsOf<{ requests: string }>(
        await handle.db.execute(sql`select requests from usage_monthly where key_id = ${limited.id}`),
      );
      expect(Number(row!.requests)).toBe(120);
    });

    it("announce admissions near the quota at once, without waiting for the next flush", async () => {
      const [a, b] = [await instance(), await instance()];
      const limited = await key({ monthlyQuota: 10, requestsPerSecond: 1_000_000 });
      const at = new Date("2026-11-21T12:00:00Z");
      // The bus calls this listener after b's: once it has the total of 10, so has b.
      let totalHeard = 0;
      const unsubscribe = await bus.subscribe(usageTotals, (notice) => {
        for (const [keyId, , total] of notice.t) if (keyId === limited.id) totalHeard = Math.max(totalHeard, total);
      });
      try {
        for (let i = 0; i < 10; i++) expect(await a.admit(limited, at)).toMatchObject({ admitted: true });
        // Neither meter is flushed by hand (their interval is a day): only the early flush tells b.
        await vi.waitFor(() => expect(totalHeard).toBe(10), 10_000);
      } finally {
        unsubscribe();
      }
      expect(await b.admit(limited, at)).toMatchObject({ admitted: false, code: "quota_exceeded", used: 10 });
    });

    it("count each other's admissions in the current second once heard", async () => {
      const [a, b] = [await instance(), await instance()];
      const limited = await key({ monthlyQuota: 1_000, requestsPerSecond: 4 });
      const second = Math.floor(Date.now() / 1000) + 2;
      const at = new Date(second * 1000 + 100);
      const fromA = await Promise.all(Array.from({ length: 3 }, () => a.admit(limited, at)));
      expect(fromA.every((x) => x.admitted)).toBe(true);
      await flushHeard(a);
      const fromB = await Promise.all(Array.from({ length: 3 }, () => b.admit(limited, new Date(at.getTime() + 300))));
      expect(fromB.map((x) => x.admitted)).toEqual([true, false, false]);
      expect(fromB[1]).toMatchObject({ code: "rate_limited", violated: "second" });
    });

    it("share the concurrent-stream limit", async () => {
      const [a, b] = [await instance(), await instance()];
      const streaming = await key({ concurrentStreams: 2 });
      const at = new Date();
      const slot = a.openStream(streaming, at);
      expect(slot).not.toBeNull();
      await flushHeard(a);
      expect(b.openStream(streaming, new Date())).not.toBeNull();
      expect(b.openStream(streaming, new Date())).toBeNull();
      slot!.release();
      await flushHeard(a);
      expect(b.openStream(streaming, new Date())).not.toBeNull();
    });
  });
}
