// The history kept for days, on PostgreSQL: bytes stored per market change and per day, what
// archiving costs against the ingest itself, and the reads of the past.
//
//   npm run bench:history     (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test;
//                              BENCH_HOURS simulated hours, default 2: a day is 24)
//   BENCH_KEEP=1 BENCH_HOURS=24 npm run bench:history, then
//   BENCH_REUSE=<the database it kept> BENCH_HOURS=24 npm run bench:history
//                             (the reads again, of the database filled before: no fill costs)
//
// 200 live events of 10 markets each, 100 market changes a simulated second (and 10 clock
// changes), fast-forwarded: each second's changes are one ingest batch recorded at that second.
// One event in five is basketball, the rest soccer, so that `/changes?sport=basketball` filters.
// Creates a scratch database next to the given one, and drops it at the end.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { sql } from "drizzle-orm";
import { openDatabase, rowsOf, type DatabaseHandle } from "../lib/db/index.ts";
import { historyAt, lastRevision, marketRevisions, revisionsAfter, snapshotThrough } from "../lib/feed/history.ts";
import { freshness } from "../lib/streams/messages.ts";
import { REPLAY_REVISIONS, replayed as replayedPages } from "../lib/streams/replay.ts";
import { applyBatch, linesOf } from "../lib/feed/ingest.ts";
import { fastFill, ingestFill } from "./history-fill.ts";
import type { FeedUpdate } from "../lib/feed/schemas.ts";
import { seedReferenceData } from "../seeds/index.ts";
import { freshPostgres } from "../testing/postgres.ts";
import { loadConfig } from "../lib/config.ts";
import { percentile } from "./stats.ts";

const adminUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const HOURS = Number(process.env.BENCH_HOURS ?? 2);
const REUSE = process.env.BENCH_REUSE;
// `ingest`: every simulated second through applyBatch, as before; `fast` (the default): see history-fill.ts.
const FILL = process.env.BENCH_FILL === "ingest" ? "ingest" : "fast";
// The last minutes the fast fill runs through applyBatch and the leader's archiving, which the
// ingest and archiving costs are taken from.
const TAIL_SECONDS = 300;
const EVENTS = 200;
const MARKETS = 10;
const CHANGES_PER_SECOND = 100;
const t0 = new Date("2026-11-20T00:00:00Z");

const ms = (n: number) => `${n.toFixed(1)} ms`;

function market(eventId: string, index: number, tick: number) {
  const home = 1.2 + ((tick * 7 + index * 13) % 300) / 100;
  return {
    id: `${eventId}:m${index}`,
    type: "match_winner" as const,
    name: `Market ${index}`,
    line: null,
    status: "open" as const,
    outcomes: [
      { id: "home", name: "Home", price: home, status: "active" as const },
      { id: "draw", name: "Draw", price: 3.4, status: "active" as const },
      {
        id: "away",
        name: "Away",
        price: Math.round((1 / Math.max(0.01, 1.07 - 1 / home - 1 / 3.4)) * 100) / 100,
        status: "active" as const,
      },
    ],
  };
}

async function bytes(handle: DatabaseHandle, what: string): Promise<number> {
  const [row] = rowsOf<{ n: string | number }>(await handle.db.execute(sql.raw(`select ${what} as n`)));
  return Number(row?.n ?? 0);
}

const archiveBytes = (handle: DatabaseHandle) =>
  bytes(
    handle,
    `(select coalesce(sum(pg_total_relation_size(i.inhrelid)), 0) from pg_inherits i
      join pg_class p on p.oid = i.inhparent where p.relname = 'history_chunks')
     + pg_total_relation_size('history_buckets')`,
  );

async function main() {
  const scratch = REUSE ? null : await freshPostgres(adminUrl, "bench_history");
  const handle = await openDatabase(
    scratch?.config ??
      loadConfig({ DATABASE_URL: REUSE, DATA_DIR: mkdtempSync(path.join(tmpdir(), "bench-history-")) }),
  );
  try {
    if (scratch) await seedReferenceData(handle.db);
    const ids = Array.from({ length: EVENTS }, (_, i) => `bh-${i}`);
    const sequence = new Map(ids.map((id) => [id, 1]));
    const next = (id: string) => {
      const n = sequence.get(id)! + 1;
      sequence.set(id, n);
      return n;
    };
    const seconds = HOURS * 3600;
    const updatesAt = (s: number) => {
      const updates: FeedUpdate[] = [];
      for (let c = 0; c < CHANGES_PER_SECOND; c++) {
        const n = (s * CHANGES_PER_SECOND + c) % EVENTS;
        const id = ids[n]!;
        updates.push({ event_id: id, sequence: next(id), markets: [market(id, (s + c) % MARKETS, s)] });
      }
      for (let c = 0; c < 10; c++) {
        const id = ids[(s * 10 + c) % EVENTS]!;
        updates.push({ event_id: id, sequence: next(id), event: { clock: `${Math.floor(s / 60) % 90}:00` } });
      }
      return updates;
    };
    /** Fills the database: the events, then every simulated second; what the ingest and archiving cost. */
    const marketChanges = seconds * CHANGES_PER_SECOND;
    async function fillAll() {
      await applyBatch(
        handle.db,
        linesOf(
          ids.map((id) => ({
            event_id: id,
            sequence: 1,
            event: {
              sport: Number(id.slice(3)) % 5 === 0 ? "basketball" : "soccer",
              competition: "Bench league",
              home: `${id} Home`,
              away: `${id} Away`,
              status: "live",
              feed: "scout",
              kickoff: t0.toISOString(),
            },
            markets: Array.from({ length: MARKETS }, (_, m) => market(id, m, 0)),
          })) as FeedUpdate[],
        ),
        t0,
      );
      console.log(
        `Filling ${HOURS} simulated hours (${marketChanges} market changes), ${FILL === "ingest" ? "every second through applyBatch" : `at full speed, the last ${TAIL_SECONDS} s through applyBatch`}...`,
      );
      const filling = performance.now();
      const fillingCpu = process.cpuUsage();
      const fill = { db: handle.db, t0, updatesAt };
      const progress = (s: number) =>
        process.stdout.write(
          `  ${(s / 3600).toFixed(2)} h after ${((performance.now() - filling) / 1000).toFixed(0)} s\r`,
        );
      const cost =
        FILL === "ingest"
          ? await ingestFill(fill, 0, seconds, progress)
          : await fastFill(fill, seconds, TAIL_SECONDS, progress);
      const cpu = process.cpuUsage(fillingCpu);
      console.log(
        `\n  filled in ${((performance.now() - filling) / 1000).toFixed(0)} s (this process's CPU ${((cpu.user + cpu.system) / 1e6).toFixed(0)} s)`,
      );
      return { ingestMs: cost.ingestMs, archiveMs: cost.archiveMs, tailChanges: cost.seconds * CHANGES_PER_SECOND };
    }
    const cost = REUSE ? null : await fillAll();
    // BENCH_FILL_ONLY=1 stops here: with BENCH_KEEP=1, the two fills' databases can be compared.
    if (process.env.BENCH_FILL_ONLY) return;
    if (REUSE) console.log(`Reading ${HOURS} simulated hours filled before, in ${REUSE}`);
    const end = new Date(t0.getTime() + seconds * 1000);
    await handle.db.execute(sql`vacuum analyze`);
    const stored = await archiveBytes(handle);
    const [{ revisions: revisionCount, through } = { revisions: 0, through: 0 }] = rowsOf<{
      revisions: number;
      through: number;
    }>(
      await handle.db.execute(
        sql`select (select last_revision::int from revision_counter) as revisions, (select archived_through::int from revision_counter) as through`,
      ),
    );
    // The archive holds the revisions through `through`; the rest is still only recent.
    const perChange = stored / ((through * CHANGES_PER_SECOND) / (CHANGES_PER_SECOND + 10));
    const perDay = perChange * CHANGES_PER_SECOND * 86_400;
    // The recent table's rows as stored, without its indexes or the space pruning leaves: a floor.
    const recentPerRevision = await bytes(
      handle,
      "(select avg(pg_column_size(r.*)) from event_revisions r where revision > (select pruned_through from revision_counter))",
    );

    // The reads of the past, at moments spread over the archived hours.
    const asOf: number[] = [];
    const asOfRecent: number[] = [];
    const oneEvent: number[] = [];
    const lastHour: number[] = [];
    for (let i = 0; i < 30; i++) {
      const at = new Date(t0.getTime() + ((i * 7919) % (seconds - 2_100)) * 1000 + 600_000);
      const revision = (await historyAt(handle.db, at, revisionCount)).revision;
      let started = performance.now();
      const states = await snapshotThrough(handle.db, revision);
      asOf.push(performance.now() - started);
      if (states.length < EVENTS * 2) throw new Error(`as_of gave ${states.length} states`);
      // The baseline: a moment the recent table still holds whole, one read as before the archive.
      const recentAt = new Date(end.getTime() - ((i * 7919) % 600) * 1000 - 60_000);
      const recentRevision = (await historyAt(handle.db, recentAt, revisionCount)).revision;
      started = performance.now();
      await snapshotThrough(handle.db, recentRevision);
      asOfRecent.push(performance.now() - started);
      const id = ids[(i * 37) % EVENTS]!;
      started = performance.now();
      const points = await marketRevisions(handle.db, id, `${id}:m3`, {
        from: new Date(end.getTime() - 3_600_000),
        to: end,
        through: revisionCount,
      });
      lastHour.push(performance.now() - started);
      if (points.length < 10) throw new Error(`a market's hour gave ${points.length} points`);
      started = performance.now();
      await marketRevisions(handle.db, id, `${id}:m3`, { from: null, to: end, through: revisionCount });
      oneEvent.push(performance.now() - started);
    }
    // A timeline scrubbed: moments 5 s apart, one after another, as the event page reads them.
    const scrub: number[] = [];
    const scrubFrom = t0.getTime() + Math.floor((seconds - 2_100) / 2) * 1000;
    for (let i = 0; i < 30; i++) {
      const revision = (await historyAt(handle.db, new Date(scrubFrom + i * 5_000), revisionCount)).revision;
      const started = performance.now();
      await snapshotThrough(handle.db, revision);
      scrub.push(performance.now() - started);
    }
    // The oldest hour kept: at BENCH_HOURS=168, the board a week ago.
    const asOfOldest: number[] = [];
    for (let i = 0; i < 20; i++) {
      const at = new Date(t0.getTime() + 600_000 + ((i * 7919) % 2_400) * 1000);
      const revision = (await historyAt(handle.db, at, revisionCount)).revision;
      const started = performance.now();
      const states = await snapshotThrough(handle.db, revision);
      asOfOldest.push(performance.now() - started);
      if (states.length < EVENTS * 2) throw new Error(`as_of gave ${states.length} states`);
    }
    let replayed = 0;
    const replayStarted = performance.now();
    for (let after = Math.floor(through / 3); replayed < 200_000;) {
      const page = await revisionsAfter(handle.db, after, { limit: 1_000 });
      if (page.revisions.length === 0) break;
      replayed += page.revisions.length;
      after = page.revisions.at(-1)!.revision;
    }
    const replaySeconds = (performance.now() - replayStarted) / 1000;

    // GET /api/v1/changes?since=<the oldest revision>&sport=basketball&limit=1000, as the endpoint
    // reads it (lib/api/history-endpoints.ts): one page, bounded to REPLAY_REVISIONS examined.
    const feed = {
      revisionsAfter: (after: number, options: Parameters<typeof revisionsAfter>[2]) =>
        revisionsAfter(handle.db, after, options),
      snapshotThrough: (upTo: number, eventIds?: readonly string[]) => snapshotThrough(handle.db, upTo, eventIds),
    };
    const [{ oldest } = { oldest: 0 }] = rowsOf<{ oldest: number }>(
      await handle.db.execute(sql`select archive_whole_from::int as oldest from revision_counter`),
    );
    const changesPage = async () => {
      const started = performance.now();
      let messages = 0;
      const through = Math.min(revisionCount, oldest + REPLAY_REVISIONS);
      const channel = { kind: "board" as const, filter: { sports: ["basketball" as const], type: null } };
      for await (const page of replayedPages(feed, channel, oldest, through, (r) =>
        freshness(false, 0, r.recordedAt),
      )) {
        messages += page.messages.length;
        if (messages > 1_000) break;
      }
      return performance.now() - started;
    };
    // The cheap request beside it: one indexed read, as the API's reads of the present cost.
    const cheapRead = async () => {
      const started = performance.now();
      await lastRevision(handle.db);
      return performance.now() - started;
    };
    const changesAlone: number[] = [];
    for (let i = 0; i < 20; i++) changesAlone.push(await changesPage());
    const cheapAlone: number[] = [];
    for (let i = 0; i < 50; i++) cheapAlone.push(await cheapRead());
    // Three /changes at once, and the cheap read made over and over meanwhile.
    const cheapBeside: number[] = [];
    const changesBeside: number[] = [];
    for (let round = 0; round < 5; round++) {
      let running = true;
      const pages = Promise.all([changesPage(), changesPage(), changesPage()]).then((times) => {
        running = false;
        changesBeside.push(...times);
      });
      while (running) cheapBeside.push(await cheapRead());
      await pages;
    }

    const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
    console.log(
      `\nHistory on PostgreSQL: ${EVENTS} live events x ${MARKETS} markets, ${CHANGES_PER_SECOND} market changes/s, ${HOURS} simulated hours`,
    );
    console.log(`  revisions                       ${revisionCount} (${marketChanges} market changes)`);
    console.log(`  archive, indexes included       ${(stored / 1e6).toFixed(1)} MB`);
    console.log(`  per market change               ${perChange.toFixed(0)} bytes`);
    console.log(
      `  per day at this rate            ${(perDay / 1e9).toFixed(2)} GB   ${verdict(perDay < 1e9)} (target < 1 GB)`,
    );
    console.log(
      `  baseline: the recent table      ${recentPerRevision.toFixed(0)} bytes a revision without indexes, at least ${((recentPerRevision * (CHANGES_PER_SECOND + 10) * 86_400) / 1e9).toFixed(1)} GB a day if kept`,
    );
    if (cost) {
      const { ingestMs, archiveMs, tailChanges } = cost;
      console.log(
        `  ingest (recent table)           ${((ingestMs / tailChanges) * 1000).toFixed(1)} µs per change (baseline: today's ingest)`,
      );
      console.log(
        `  archiving, off the ingest path  ${((archiveMs / tailChanges) * 1000).toFixed(1)} µs per change (+${((archiveMs / ingestMs) * 100).toFixed(0)} % of the ingest)`,
      );
    }
    console.log(
      `  as_of, recent table (baseline)  p50 ${ms(percentile(asOfRecent, 50))}, p95 ${ms(percentile(asOfRecent, 95))}`,
    );
    console.log(
      `  as_of, whole board, archived    p50 ${ms(percentile(asOf, 50))}, p95 ${ms(percentile(asOf, 95))}   ${verdict(percentile(asOf, 95) < 50)} (target p95 < 50 ms; the goal < 20 ms)`,
    );
    console.log(
      `  as_of, scrubbing 5 s apart      p50 ${ms(percentile(scrub, 50))}, p95 ${ms(percentile(scrub, 95))}   ${verdict(percentile(scrub, 95) < 20)} (target p95 < 20 ms)`,
    );
    console.log(
      `  as_of, board ${HOURS >= 168 ? "a week ago      " : `${HOURS} h ago`.padEnd(16)}  p50 ${ms(percentile(asOfOldest, 50))}, p95 ${ms(percentile(asOfOldest, 95))}`,
    );
    console.log(
      `  a market's last hour            p50 ${ms(percentile(lastHour, 50))}, p95 ${ms(percentile(lastHour, 95))}   ${verdict(percentile(lastHour, 95) < 20)} (target p95 < 20 ms)`,
    );
    console.log(
      `  a market's whole history        p50 ${ms(percentile(oneEvent, 50))}, p95 ${ms(percentile(oneEvent, 95))}`,
    );
    console.log(
      `  changes?since, from the archive ${Math.round(replayed / replaySeconds)} revisions/s (${replayed} read)`,
    );
    console.log(
      `  /changes from the oldest, 1 sport p50 ${ms(percentile(changesAlone, 50))}, p95 ${ms(percentile(changesAlone, 95))}   ${verdict(percentile(changesAlone, 95) < 100)} (target p95 < 100 ms; ${REPLAY_REVISIONS} revisions examined a page)`,
    );
    console.log(
      `  a cheap read, alone / beside 3   p95 ${ms(percentile(cheapAlone, 95))} / ${ms(percentile(cheapBeside, 95))} (${cheapBeside.length} reads while three /changes ran, p95 ${ms(percentile(changesBeside, 95))})   ${verdict(percentile(cheapBeside, 95) < 50)} (target: not blocked, p95 < 50 ms)`,
    );
  } finally {
    await handle.close();
    // BENCH_KEEP=1 leaves the database for a closer look.
    if (scratch && !process.env.BENCH_KEEP) await scratch.drop();
    else if (scratch) console.log(`Kept ${scratch.config.DATABASE_URL}`);
  }
}

await main();
