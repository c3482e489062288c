// What metering costs the public API under load: throughput of GET /api/v1/events with metering on,
// as a ratio against the same API with metering off, same build, same run.
//
//   npm run bench:metering        (scripts/node24 bench/metering.ts; no build needed)
//
// The server is bench/metering-server.ts, one child process per side (so the load generator does not
// share their event loops), each an instance as server.ts starts it (startInstance) on embedded PGlite
// in a fresh DATA_DIR of its own, seeded, the simulator off, answering /api/v1 exactly as server.ts's
// node:http entry does. The metered side's meter is server.ts's on the embedded database
// (JournalMeter: one journal line written per admitted request before it is answered, the counts
// added to PGlite every second); the unmetered side's instance is given a meter that admits every
// request and counts nothing. Both serve the same 50 upcoming events of 7 sports (bench/data.ts),
// applied in this process with the ingest's applyBatch before the servers start, to a production
// key of each side on a plan of limits no load reaches (PGlite admits one process at a time, so the
// set-up closes each database before its child opens it).
//
// The load generator (bench/load.ts: wrk when installed, else autocannon in this process;
// BENCH_TOOL=autocannon to choose it) loads one side at a time: BENCH_CONNECTIONS connections (64),
// pipelining 1, BENCH_WARMUP_SECONDS (15) of warm-up each, then BENCH_SECONDS (10) measured per side,
// in BENCH_ROUNDS (5) alternating rounds. Loopback only. The server CPU of each side is its own
// process's while it was loaded. It prints req/s, p50, p99, server CPU per request of each side, the ratio
// metered ÷ unmetered in req/s, and PASS when that ratio is at least 0.85, FAIL otherwise; then what
// the meter counted (GET /api/v1/me's meta.requests_used before and after the load, and
// usage_monthly once the server has stopped), against the 2xx answers the load generator received.
//
// It asserts no timing. It ends with a non-zero code only when something broke: a server that did
// not start or stop, a refused or failed request under load.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { applyBatch, linesOf } from "../lib/feed/ingest.ts";
import { seed } from "../seeds/index.ts";
import { keyOnOwnPlan, storedRequests, withDatabase } from "../testing/organisations.ts";
import { startProcess, type StartedProcess } from "../testing/processes.ts";
import { BENCH_PLAN, upcomingEvents } from "./data.ts";
import {
  broken,
  reportBroken,
  CONNECTIONS,
  cpuPerRequest,
  fmt,
  GENERATOR,
  generatorNote,
  HEADER,
  measurePair,
  ROUNDS,
  row,
  SECONDS,
  waitForItems,
  WARMUP_SECONDS,
} from "./load.ts";

const UPCOMING_EVENTS = 50;
// The issue's threshold: metered ÷ unmetered in requests per second.
const MIN_RATIO = 0.85;

// ---------------------------------------------------------------------------------------------
// Set-up, in this process, before the server starts.

/**
 * Seeds the database, creates an organisation with a licence and one production key on a plan of
 * its own (every plan on offer refuses this load: pro above 50 requests per second, enterprise
 * above 200), and applies the upcoming events. The seed upserts the plans it knows and deletes
 * none, so the plan survives the server's own seed.
 */
function prepare(dataDir: string, at: Date): Promise<{ key: string; keyId: string }> {
  return withDatabase({ DATA_DIR: dataDir }, async (db) => {
    await seed(db, at);
    const created = await keyOnOwnPlan(db, BENCH_PLAN, at);
    const result = await applyBatch(db, linesOf(upcomingEvents(UPCOMING_EVENTS, at.getTime())), new Date());
    if (result.applied !== UPCOMING_EVENTS) {
      const refused = result.results.find((line) => line.status !== "applied");
      throw new Error(`the ingest applied ${result.applied} of ${UPCOMING_EVENTS} events: ${JSON.stringify(refused)}`);
    }
    return created;
  });
}

/** What usage_monthly holds for the key, read once the server has stopped. */
function storedCount(dataDir: string, keyId: string): Promise<number> {
  return withDatabase({ DATA_DIR: dataDir }, (db) => storedRequests(db, keyId));
}

// ---------------------------------------------------------------------------------------------
// The server process.

type Server = StartedProcess & { url: string; pid: number };

async function startServer(dataDir: string, metering: "on" | "off"): Promise<Server> {
  const server = startProcess(path.join(import.meta.dirname, "metering-server.ts"), {
    env: { DATA_DIR: dataDir, METERING: metering },
    ready: /^READY (.*)$/m,
    name: `the ${metering === "on" ? "metered" : "unmetered"} server`,
  });
  const url = (await server.ready)[1]!.trim();
  return { ...server, url, pid: server.process.pid! };
}

/** GET /api/v1/me's meta.requests_used: the requests the meter has counted for the key, this one included. */
async function requestsUsed(url: string, headers: Record<string, string>): Promise<number> {
  const response = await fetch(`${url}/api/v1/me`, { headers, signal: AbortSignal.timeout(5_000) });
  const answer = (await response.json()) as { meta?: { requests_used?: number } };
  if (response.status !== 200 || typeof answer.meta?.requests_used !== "number")
    throw new Error(`${url}/api/v1/me answered ${response.status}: ${JSON.stringify(answer).slice(0, 500)}`);
  return answer.meta.requests_used;
}

async function answerBytes(url: string, headers: Record<string, string>): Promise<number> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(5_000) });
  return (await response.arrayBuffer()).byteLength;
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-bench-metering-"));
  const dataDirs = { on: path.join(dir, "metered"), off: path.join(dir, "unmetered") };
  const servers: Server[] = [];
  try {
    console.error("bench: creating the organisation, licence, plan, key and events of each side");
    const at = new Date();
    const { key, keyId } = await prepare(dataDirs.on, at);
    const headers = { authorization: `Bearer ${key}` };
    const other = await prepare(dataDirs.off, at);
    const unmeteredHeaders = { authorization: `Bearer ${other.key}` };

    console.error("bench: starting bench/metering-server.ts twice, metered and unmetered");
    const server = await startServer(dataDirs.on, "on");
    servers.push(server);
    const baseline = await startServer(dataDirs.off, "off");
    servers.push(baseline);
    const metered = `${server.url}/api/v1/events`;
    const unmetered = `${baseline.url}/api/v1/events`;
    await waitForItems(metered, headers, UPCOMING_EVENTS);
    await waitForItems(unmetered, unmeteredHeaders, UPCOMING_EVENTS);
    const bytes = await answerBytes(metered, headers);

    const usedBefore = await requestsUsed(server.url, headers);
    const title = `GET /api/v1/events: ${UPCOMING_EVENTS} upcoming events of 7 sports, one production key`;
    const measured = await measurePair(
      title,
      { url: unmetered, headers: unmeteredHeaders, pid: baseline.pid },
      { url: metered, headers, pid: server.pid },
      { baseline: "unmetered", ours: "metered" },
    );
    const usedAfter = await requestsUsed(server.url, headers);

    console.error("bench: stopping the servers");
    for (const each of servers.splice(0)) {
      const code = await each.stop("SIGTERM", 15_000);
      if (code !== 0) broken.push(`a server exited with ${code} when stopped:\n${each.output().trim().slice(-2_000)}`);
    }
    const stored = await storedCount(dataDirs.on, keyId);

    const cpus = os.cpus();
    console.log(
      `Metering under load on this machine (${cpus.length} × ${cpus[0]?.model.trim() ?? "unknown CPU"}, Node ${process.version}): ` +
        `${GENERATOR}, ${CONNECTIONS} connections, pipelining 1, ${WARMUP_SECONDS} s warm-up, ${SECONDS} s measured per side, loopback`,
    );
    console.log(
      "  servers: bench/metering-server.ts, one process per side, each PGlite with the same data, simulator off",
    );
    console.log(
      "  metered: JournalMeter as server.ts runs it on PGlite (a journal line per request, counts added every 1 s)",
    );
    console.log("  unmetered: a meter that admits every request and counts nothing");
    console.log(
      `  each side loaded alone, in ${ROUNDS} alternating rounds; req/s: 2xx answers ÷ measured time; server CPU: the side's process's`,
    );
    console.log("");

    const { baseline: off, ours: on } = measured;
    const ratio = on.rps / off.rps;
    console.log(`${title} (${fmt(bytes)}-byte answer)`);
    console.log(HEADER);
    console.log(row("metering off", off));
    console.log(row("metering on (JournalMeter)", on, `   ratio ${ratio.toFixed(2)}`));
    console.log(`  ${ratio >= MIN_RATIO ? `PASS (ratio ≥ ${MIN_RATIO})` : `FAIL (ratio under ${MIN_RATIO})`}`);
    const onCost = cpuPerRequest(on);
    const offCost = cpuPerRequest(off);
    if (onCost !== null && offCost !== null) {
      console.log(
        `  server CPU per request: metered ${(onCost / offCost).toFixed(2)} × unmetered, ${fmt(onCost - offCost)} µs more ` +
          `(ratio by CPU ${(offCost / onCost).toFixed(2)})${generatorNote(off, on)}`,
      );
    }
    // A run ends with requests in flight: the server admitted and answered them, the load
    // generator had stopped reading. So the meter may count up to a run's connections more.
    const counted = usedAfter - usedBefore - 1;
    const runs = ROUNDS + 1;
    console.log(
      `  counted by the meter during the load: ${fmt(counted)} (GET /api/v1/me, requests_used ${fmt(usedBefore)} before, ${fmt(usedAfter)} after); ` +
        `2xx answers the load generator received from the metered side, warm-up included: ${fmt(measured.answered.ours)} ` +
        `(difference ${fmt(counted - measured.answered.ours)}; up to ${CONNECTIONS} in flight at the end of each of its ${runs} runs)`,
    );
    console.log(
      `  in usage_monthly once the server had stopped: ${fmt(stored)} (requests_used after the load: ${fmt(usedAfter)})`,
    );

    reportBroken();
  } catch (error) {
    for (const each of servers) console.error(`bench: a server's output:\n${each.output()}`);
    throw error;
  } finally {
    for (const each of servers) await each.stop("SIGTERM", 15_000);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
