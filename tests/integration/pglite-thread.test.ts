import { rmSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../lib/config.ts";
import { openDatabase, rowsOf, type DatabaseHandle } from "../../lib/db/index.ts";
import { DataDirInUseError } from "../../lib/db/data-dir-lock.ts";
import { PgliteWorker } from "../../lib/db/pglite-worker.ts";
import { isUniqueViolation } from "../../lib/errors.ts";
import { migratedDataDir } from "../../testing/data-dirs.ts";
import { turnsDuring } from "../../testing/event-loop.ts";

// PGlite on a thread of its own (lib/db/pglite-worker.ts) against PGlite on the test's thread:
// the same answers, the same transactions, and this thread left free while a statement runs.

const open = (dir: string, thread: "own" | "main") =>
  openDatabase(loadConfig({ DATA_DIR: dir, PGLITE_THREAD: thread }));

// Values of each kind drizzle reads back: dates and times as text, bytea, jsonb, numeric, arrays, intervals.
const SAMPLE = sql`select
  now()::timestamptz(0) - now()::timestamptz(0) as zero_interval,
  timestamptz '2026-11-29 06:00:00+00' as at, date '2026-11-29' as day, interval '90 minutes' as span,
  decode('00ff10', 'hex') as bytes, '{"a":[1,2,{"b":null}]}'::jsonb as doc, 12.50::numeric(6,2) as amount,
  array[1.5, 2.25]::numeric[] as amounts, array[timestamptz '2026-01-01 00:00:00+00'] as ats,
  9007199254740993::bigint as big, true as yes, null::text as nothing`;

describe("PGlite on its own thread", () => {
  const dirs: string[] = [];
  let handle: DatabaseHandle;

  beforeAll(async () => {
    dirs.push(migratedDataDir());
    handle = await open(dirs[0]!, "own");
    await handle.db.execute(sql`create table thread_test (id int primary key, note text)`);
  });
  afterAll(async () => {
    await handle?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("answers drizzle as PGlite on the calling thread does, value for value", async () => {
    const ours = rowsOf(await handle.db.execute(SAMPLE));
    const dir = migratedDataDir();
    dirs.push(dir);
    const here = await open(dir, "main");
    try {
      expect(ours).toEqual(rowsOf(await here.db.execute(SAMPLE)));
    } finally {
      await here.close();
    }
    expect(ours[0]).toMatchObject({ at: "2026-11-29 06:00:00+00", day: "2026-11-29", amount: "12.50" });
  });

  it("leaves the calling thread free while a statement runs", async () => {
    // A statement of a few hundred milliseconds: on the calling thread the loop would turn only
    // before and after it.
    const turns = await turnsDuring(() =>
      handle.db.execute(sql`select sum(i)::text as total from generate_series(1, 1000000) as i`),
    );
    expect(turns).toBeGreaterThan(50);
  });

  it("runs no other statement while a transaction is open, and commits it whole", async () => {
    const order: string[] = [];
    const transaction = handle.db.transaction(async (tx) => {
      await tx.execute(sql`insert into thread_test values (1, 'in the transaction')`);
      // The transaction waits on this thread; the statement below is sent meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 100));
      await tx.execute(sql`insert into thread_test values (2, 'in the transaction')`);
      order.push("transaction");
    });
    const outside = handle.db.execute(sql`select count(*)::int as n from thread_test`).then((result) => {
      order.push(`outside saw ${rowsOf<{ n: number }>(result)[0]!.n}`);
    });
    await Promise.all([transaction, outside]);
    expect(order).toEqual(["transaction", "outside saw 2"]);
  });

  it("rolls back a transaction that throws, and a savepoint alone when only the nested one does", async () => {
    await expect(
      handle.db.transaction(async (tx) => {
        await tx.execute(sql`insert into thread_test values (10, 'rolled back')`);
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    await handle.db.transaction(async (tx) => {
      await tx.execute(sql`insert into thread_test values (11, 'kept')`);
      await tx
        .transaction(async (nested) => {
          await nested.execute(sql`insert into thread_test values (12, 'rolled back to the savepoint')`);
          throw new Error("nested refused");
        })
        .catch(() => {});
    });
    const ids = rowsOf<{ id: number }>(
      await handle.db.execute(sql`select id from thread_test where id >= 10 order by id`),
    );
    expect(ids.map((row) => row.id)).toEqual([11]);
  });

  it("gives the database's error code and constraint to the caller", async () => {
    const error = await handle.db.execute(sql`insert into thread_test values (1, 'again')`).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isUniqueViolation(error)).toBe(true);
    expect(((error as Error).cause as { constraint?: string }).constraint).toBe("thread_test_pkey");
    // The transaction the error ended is rolled back and the thread goes on serving.
    await expect(
      handle.db.transaction((tx) => tx.execute(sql`insert into thread_test values (1, 'again')`)),
    ).rejects.toThrow();
    expect(rowsOf(await handle.db.execute(sql`select 1 as one`))).toEqual([{ one: 1 }]);
  });

  // After the commit's answer, too: the instance that committed hands its feed revisions to its own
  // views before the notice asks them to read (lib/feed/views.ts, `offer`).
  it("delivers a notice to its listener once the transaction that sent it commits, after the commit's answer", async () => {
    const heard: string[] = [];
    const unlisten = await handle.pglite!.listen("thread_test", (payload) => heard.push(payload));
    await handle.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_notify('thread_test', 'committed')`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(heard).toEqual([]);
    });
    expect(heard).toEqual([]);
    await expect.poll(() => heard).toEqual(["committed"]);
    await unlisten();
  });

  it("ends its thread when a transaction left open holds the close, and the folder opens again whole", async () => {
    const folder = path.join(migratedDataDir(), "bare");
    dirs.push(path.dirname(folder));
    const client = await PgliteWorker.open(folder);
    await client.exec("create table kept (id int primary key)");
    await client.query("insert into kept values (1)");
    const inside = Promise.withResolvers<void>();
    void client
      .transaction(async (tx) => {
        await tx.query("insert into kept values (2)");
        inside.resolve();
        await new Promise(() => {});
      })
      .catch(() => {});
    await inside.promise;
    await expect(client.close(300)).rejects.toThrow("did not close within 0.3 s (a transaction still open)");
    const again = await PgliteWorker.open(folder);
    try {
      expect((await again.query<{ id: number }>("select id from kept order by id")).rows).toEqual([{ id: 1 }]);
    } finally {
      await again.close();
    }
  });

  it("counts its statements, holds the data folder until closed, and keeps the data", async () => {
    const before = handle.pool.queries.other;
    await handle.db.execute(sql`select 1`);
    expect(handle.pool.queries.other).toBe(before + 1);
    await expect(open(dirs[0]!, "own")).rejects.toThrow(DataDirInUseError);
    await handle.close();
    handle = await open(dirs[0]!, "own");
    const rows = rowsOf<{ n: number }>(await handle.db.execute(sql`select count(*)::int as n from thread_test`));
    expect(rows[0]!.n).toBe(3);
  });
});
