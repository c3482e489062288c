// Ingest throughput and notification delay on PostgreSQL.
//
//   npm run bench:ingest            (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test)
//
// Creates a scratch database next to the given one, and drops it at the end. Bounded: at most
// BENCH_BATCHES batches (default 200) of 100 updates per measurement.
import { performance } from "node:perf_hooks";
import { openDatabase, type DatabaseHandle } from "../lib/db/index.ts";
import { feedChanges, startChangeBus } from "../lib/bus/index.ts";
import { handleFeedUpdates } from "../lib/feed/http.ts";
import { applyBatch, EventNames, linesOf } from "../lib/feed/ingest.ts";
import type { FeedUpdate } from "../lib/feed/schemas.ts";
import { seedReferenceData } from "../seeds/index.ts";
import { freshPostgres } from "../testing/postgres.ts";
import { percentile } from "./stats.ts";

const adminUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const BATCHES = Number(process.env.BENCH_BATCHES ?? 200);
const BATCH_SIZE = 100;
const EVENTS = 1_000;

function market(eventId: string, round: number) {
  const price = 1.5 + ((round * 7) % 50) / 100;
  return {
    id: `${eventId}:match_winner`,
    type: "match_winner" as const,
    name: "Match result",
    line: null,
    status: "open" as const,
    outcomes: [
      { id: "home", name: "Home", price, status: "active" as const },
      { id: "draw", name: "Draw", price: 3.4, status: "active" as const },
      { id: "away", name: "Away", price: 4.75, status: "active" as const },
    ],
  };
}

/** A round of play: every event gets a clock and score change, every other one new prices. */
function updatesFor(round: number, from: number, count: number): FeedUpdate[] {
  return Array.from({ length: count }, (_, i) => {
    const n = (from + i) % EVENTS;
    const id = `bench-${n}`;
    const update: FeedUpdate = {
      event_id: id,
      sequence: round + 2,
      event: {
        clock: `${String(round % 90).padStart(2, "0")}:${String(n % 60).padStart(2, "0")}`,
        score: { home: Math.floor(round / 40), away: Math.floor(round / 55) },
        stats: [
          { label: "Shots", home: round, away: round },
          { label: "Corners", home: round % 7, away: round % 5 },
        ],
      },
    };
    if (n % 2 === 0) update.markets = [market(id, round)];
    return update;
  });
}

async function main() {
  const scratch = await freshPostgres(adminUrl, "svc_bench");
  const config = scratch.config;
  let writer: DatabaseHandle | undefined;
  let listener: DatabaseHandle | undefined;
  try {
    writer = await openDatabase(config);
    listener = await openDatabase(config);
    await seedReferenceData(writer.db);
    const at = () => new Date();
    // As the simulator and the ingest endpoint keep them: each name is looked up once.
    const names = new EventNames();

    // The events the updates are for, created in batches of 100.
    for (let i = 0; i < EVENTS; i += BATCH_SIZE) {
      const creations: FeedUpdate[] = Array.from({ length: BATCH_SIZE }, (_, k) => ({
        event_id: `bench-${i + k}`,
        sequence: 1,
        event: {
          sport: "soccer",
          competition: `Bench League ${(i + k) % 10}`,
          home: `Home ${i + k}`,
          away: `Away ${i + k}`,
          status: "live",
          feed: "official",
          kickoff: new Date().toISOString(),
          period: "1st half",
        },
      }));
      await applyBatch(writer.db, linesOf(creations), at(), names);
    }

    // Baseline: the same documents written as plain multi-row INSERTs, one transaction per 100.
    const sql = writer.postgres!;
    await sql`create table baseline (id text, seq int, doc jsonb)`;
    const baselineStart = performance.now();
    for (let b = 0; b < BATCHES; b++) {
      const rows = updatesFor(b, b * BATCH_SIZE, BATCH_SIZE).map((u) => ({
        id: u.event_id,
        seq: u.sequence,
        doc: JSON.stringify(u),
      }));
      await sql.begin((tx) => tx`insert into baseline ${tx(rows)}`);
    }
    const baselineRate = (BATCHES * BATCH_SIZE) / ((performance.now() - baselineStart) / 1000);

    // The ingest, with the notifications heard by a second instance.
    const bus = await startChangeBus(listener);
    const sentAt = new Map<number, number>();
    const delays: number[] = [];
    await bus.subscribe(feedChanges, (changes) => {
      const heard = performance.now();
      for (const change of changes) {
        const sent = sentAt.get(change.revision);
        if (sent !== undefined) delays.push(heard - sent);
      }
    });
    const batchTimes: number[] = [];
    const ingestStart = performance.now();
    for (let b = 0; b < BATCHES; b++) {
      const started = performance.now();
      const result = await applyBatch(writer.db, linesOf(updatesFor(b, b * BATCH_SIZE, BATCH_SIZE)), at(), names);
      const committed = performance.now();
      batchTimes.push(committed - started);
      if (result.applied !== BATCH_SIZE)
        throw new Error(`batch ${b}: ${JSON.stringify(result.results.find((r) => r.status !== "applied"))}`);
      for (const change of result.changes) sentAt.set(change.revision, committed);
    }
    const ingestRate = (BATCHES * BATCH_SIZE) / ((performance.now() - ingestStart) / 1000);
    await new Promise((resolve) => setTimeout(resolve, 300));

    // The endpoint's handler: NDJSON parsing and the token check on top of the ingest.
    const token = "bench-token-0123456789";
    const httpStart = performance.now();
    const round0 = BATCHES + 10;
    for (let b = 0; b < BATCHES; b++) {
      const body = updatesFor(round0 + b, b * BATCH_SIZE, BATCH_SIZE)
        .map((u) => JSON.stringify(u))
        .join("\n");
      const response = await handleFeedUpdates(
        new Request("http://bench/api/feed/v1/updates", {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/x-ndjson" },
          body,
        }),
        { db: writer.db, names, token, now: at },
      );
      if (response.status !== 200) throw new Error(`handler answered ${response.status}`);
      await response.arrayBuffer();
    }
    const handlerRate = (BATCHES * BATCH_SIZE) / ((performance.now() - httpStart) / 1000);
    await bus.close();

    const fmt = (n: number) => Math.round(n).toLocaleString("en");
    console.log(
      `Ingest on PostgreSQL, ${BATCHES} batches of ${BATCH_SIZE} updates over ${EVENTS} events (half with a market)`,
    );
    console.log(`  baseline (plain multi-row INSERT of the same documents): ${fmt(baselineRate)} updates/s`);
    console.log(
      `  applyBatch:                         ${fmt(ingestRate)} updates/s  (${(ingestRate / baselineRate).toFixed(2)} of baseline)`,
    );
    console.log(
      `  endpoint handler (NDJSON + token):  ${fmt(handlerRate)} updates/s  (${(handlerRate / baselineRate).toFixed(2)} of baseline)`,
    );
    console.log(
      `  batch time: p50 ${percentile(batchTimes, 50).toFixed(1)} ms, p99 ${percentile(batchTimes, 99).toFixed(1)} ms`,
    );
    console.log(
      `  notification delay (commit to another instance's listener, ${delays.length} changes): ` +
        `p50 ${percentile(delays, 50).toFixed(2)} ms, p99 ${percentile(delays, 99).toFixed(2)} ms, max ${Math.max(...delays).toFixed(2)} ms`,
    );
  } finally {
    await writer?.close();
    await listener?.close();
    await scratch.drop();
  }
}

await main();
