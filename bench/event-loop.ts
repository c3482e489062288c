// How long the server's event loop is held while it answers bench:api's events list, on the
// embedded database (PGlite) and, when TEST_DATABASE_URL is set, on PostgreSQL as the control:
// a PGlite statement runs on the thread that answers requests, a PostgreSQL one does not.
//
//   npm run build && npm run bench:event-loop
//
// The server is started as bench:api starts it (server.ts on the production build, simulator
// off, one production key on a plan no load reaches, 50 upcoming events through the provider
// ingest) with bench/event-loop-probe.ts loaded, which samples the event loop's delay each
// millisecond (perf_hooks.monitorEventLoopDelay) and the main thread's CPU time between two turns
// of a 1-ms timer (not inflated by other work on the machine). After BENCH_WARMUP_SECONDS (15) of
// load the probe starts again, and BENCH_SECONDS (10) of load later its figures are read. The load is
// bench/load.ts's (wrk when installed, else autocannon; BENCH_CONNECTIONS connections). The
// script prints figures only; it asserts no timing.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { seed } from "../seeds/index.ts";
import { FEED_TOKEN, ingest } from "../testing/feed.ts";
import { keyOnOwnPlan, withDatabase } from "../testing/organisations.ts";
import { freshPostgres } from "../testing/postgres.ts";
import { startServer } from "../testing/processes.ts";
import { stopServer } from "./api-setup.ts";
import { BENCH_PLAN, upcomingEvents } from "./data.ts";
import { figures, GENERATOR, ms, reportBroken, run, SECONDS, WARMUP_SECONDS, waitForItems } from "./load.ts";

const EVENTS = 50;
const PROBE = path.resolve("bench/event-loop-probe.ts");

type Spread = { p50: number; p99: number; p999: number; max: number };
type Probe = { delay: Spread; held: Spread };

async function measure(name: string, env: Record<string, string>, dir: string): Promise<string> {
  const at = new Date();
  const { key } = await withDatabase(env, async (db) => {
    await seed(db, at);
    return keyOnOwnPlan(db, BENCH_PLAN, at);
  });
  const probeFile = path.join(dir, `${name.replace(" ", "-")}.json`);
  const server = await startServer({
    ...env,
    FEED_TOKEN,
    API_ENTRY: "node",
    NODE_OPTIONS: `--import ${PROBE}`,
    EVENT_LOOP_PROBE_FILE: probeFile,
  });
  try {
    const url = `${server.url}/api/v1/events`;
    const headers = { authorization: `Bearer ${key}` };
    await ingest(server.url, upcomingEvents(EVENTS, at.getTime()));
    await waitForItems(url, headers, EVENTS);
    const target = { url, headers, pid: server.process.pid! };
    console.error(`bench: ${name}: ${WARMUP_SECONDS} s warm-up, then ${SECONDS} s measured`);
    await run(`${name} warm-up`, target, WARMUP_SECONDS);
    const probe = async (): Promise<Probe> => {
      rmSync(probeFile, { force: true });
      server.process.kill("SIGUSR2");
      // The server writes the file when its loop gets to the signal: soon, on a busy machine later.
      for (let waited = 0; !existsSync(probeFile); waited += 50) {
        if (waited > 10_000) throw new Error("the server wrote no event loop figures within 10 s");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return JSON.parse(readFileSync(probeFile, "utf8")) as Probe;
    };
    await probe();
    const load = figures([await run(name, target, SECONDS)]);
    const { delay, held } = await probe();
    const spread = (s: Spread) => [s.p99, s.p999, s.max].map((n) => ms(n).padStart(10)).join("");
    return `  ${name.padEnd(12)}${String(Math.round(load.rps)).padStart(8)}${ms(load.p99).padStart(10)}${spread(delay)}${spread(held)}`;
  } finally {
    await stopServer(server);
  }
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-bench-event-loop-"));
  const lines: string[] = [];
  try {
    // PGlite on the thread that answers requests (as before its own thread), then on its own thread.
    lines.push(await measure("pglite main", { DATA_DIR: path.join(dir, "main"), PGLITE_THREAD: "main" }, dir));
    lines.push(await measure("pglite own", { DATA_DIR: path.join(dir, "own"), PGLITE_THREAD: "own" }, dir));
    const adminUrl = process.env.TEST_DATABASE_URL;
    if (adminUrl) {
      const database = await freshPostgres(adminUrl, "svc_bench");
      try {
        lines.push(await measure("postgres", database.env, dir));
      } finally {
        await database.drop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    `GET /api/v1/events (${EVENTS} events) under ${GENERATOR}, ${SECONDS} s after ${WARMUP_SECONDS} s of warm-up; ` +
      `the event loop's delay sampled each ms over the measured seconds`,
  );
  console.log(`  ${"".padEnd(30)}${"event loop delay (wall)".padStart(30)}${"CPU between two turns".padStart(30)}`);
  const spreadHeader = ["p99", "p99.9", "max"].map((h) => h.padStart(10)).join("");
  console.log(`  ${"database".padEnd(12)}${"req/s".padStart(8)}${"p99".padStart(10)}${spreadHeader}${spreadHeader}`);
  for (const line of lines) console.log(line);
  if (!process.env.TEST_DATABASE_URL) console.log("  (TEST_DATABASE_URL not set: no PostgreSQL control)");
  reportBroken();
}

await main();
