// Throughput and latency of the public API under load, as a ratio against plain node:http serving
// the same bytes, measured in the same run on this machine.
//
//   npm run bench:api        (serves the production build: `npm run build` first)
//
// Our server is server.ts as `npm start` runs it (a child process, production build, embedded
// PGlite in a fresh DATA_DIR, simulator off), fed through the provider ingest (the updates are
// bench/data.ts's). The baseline is bench/static-server.ts, another child process, answering with
// the exact status, headers and body our server sent for the same URL, and doing nothing else. The
// load generator (bench/load.ts: wrk when installed, else autocannon in this process;
// BENCH_TOOL=autocannon to choose it) loads one side at a time: BENCH_CONNECTIONS connections (64),
// pipelining 1, BENCH_WARMUP_SECONDS (15) of warm-up each, then BENCH_SECONDS (10) measured per side,
// in BENCH_ROUNDS (5) alternating rounds. Loopback only. BENCH_ONLY=events measures the events list alone.
//
// Three starts of our server on one DATA_DIR, one after the other (PGlite admits one process):
// the events list through the node:http entry, the same list through Next's route handlers
// (API_ENTRY=next, for information), then 200 live events and the odds board, plain and gzip, and
// the MCP server's get_odds beside it on the same server, at the protocol's current revision and at
// the 2025 one of 1.x clients (for information: a tool call's CPU per request against the REST call
// it faces; no baseline, no threshold).
// Where taskset exists and there are two cores, the server measured runs on one core and the load
// generator on the other (bench/load.ts). The primary figure is each server's CPU per request (from
// /proc, so Linux only: utime + stime over the 2xx answers): on a small or shared machine the
// generator or other work can be the limit, and then the req/s ratio flatters the slower side; CPU
// per request does not. Each comparison prints its rounds' spread (min / median / max).
//
// The script prints figures and PASS/FAIL against the thresholds below; it asserts no timing.
// It ends with a non-zero code only when something broke: a server that did not start, a refused
// or failed request under load.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { FEED_TOKEN, ingest } from "../testing/feed.ts";
import { threadsPerRequest } from "../testing/cpu.ts";
import { startServer, type RunningServer } from "../testing/processes.ts";
import {
  capture,
  checkMcpGetOdds,
  createKey,
  MCP_REVISIONS,
  mcpGetOdds,
  startBaseline,
  stopServer,
  type McpRevision,
} from "./api-setup.ts";
import { liveSoccer, upcomingEvents } from "./data.ts";
import {
  broken,
  reportBroken,
  CONNECTIONS,
  cpuPerRequest,
  fmt,
  generatorNote,
  GENERATOR,
  HEADER,
  measurePair,
  ms,
  PINNING,
  ROUNDS,
  row,
  SECONDS,
  waitForItems,
  WARMUP_SECONDS,
  type Figures,
} from "./load.ts";
import { median, spread } from "./stats.ts";

const UPCOMING_EVENTS = 50;
// BENCH_ONLY=events: the events list through the node:http entry alone, about two of the run's five
// minutes: for comparing two builds of the request path, alternating.
const ONLY_EVENTS = process.env.BENCH_ONLY === "events";
const LIVE_EVENTS = 200;

// The thresholds: ours ÷ baseline by server CPU per request (baseline's ÷ ours) and by req/s, both
// at least the minimum; p99 latency for the events list, the median round's (each round's p99 is
// over its own answers; the worst round's is in the table). CPU per request comes first: it does
// not flatter either side when the load generator, or other work on the machine, limits a run.
const EVENTS_MIN_RATIO = 0.5;
const EVENTS_GOAL_RATIO = 0.7;
const ODDS_MIN_RATIO = 0.6;
const P99_LIMIT_MS = 20;

// ---------------------------------------------------------------------------------------------
// Measurement (the machinery is bench/load.ts).

type Comparison = { title: string; bytes: number; baseline: Figures; ours: Figures; oursLabel: string };

/** Captures our answer, starts a baseline serving it, and measures the two. */
async function compare(
  title: string,
  oursLabel: string,
  server: RunningServer,
  pathAndQuery: string,
  headers: Record<string, string>,
  expectedItems: number,
  dir: string,
): Promise<Comparison> {
  const url = `${server.url}${pathAndQuery}`;
  const { recorded, items } = await capture(url, headers);
  if (items !== expectedItems) throw new Error(`${url} lists ${items} items, not ${expectedItems}`);
  const baselineServer = await startBaseline(recorded, dir, `baseline-${title.replace(/\W+/g, "-").slice(0, 60)}`);
  try {
    // The baseline answers whatever it is sent; it gets the same request, key included.
    const measured = await measurePair(
      title,
      { url: `${baselineServer.url}${pathAndQuery}`, headers, pid: baselineServer.pid },
      { url, headers, pid: server.process.pid! },
    );
    return { title, bytes: Buffer.from(recorded.body, "base64").length, ...measured, oursLabel };
  } finally {
    await stopServer(baselineServer);
  }
}

type McpComparison = { title: string; rest: Figures; mcp: Figures; restBytes: number; mcpBytes: number };

async function compareMcp(
  server: RunningServer,
  headers: Record<string, string>,
  revision: McpRevision,
): Promise<McpComparison> {
  const title = `POST /mcp get_odds at ${revision} beside GET /api/v1/odds: ${LIVE_EVENTS} live soccer events, one server, for information`;
  const mcp = mcpGetOdds(server.url, headers, revision);
  const mcpBytes = await checkMcpGetOdds(mcp, LIVE_EVENTS);
  const restBytes = (await (await fetch(`${server.url}/api/v1/odds`, { headers })).arrayBuffer()).byteLength;
  const pid = server.process.pid!;
  const measured = await measurePair(
    title,
    { url: `${server.url}/api/v1/odds`, headers, pid },
    { ...mcp, pid },
    { baseline: "GET /api/v1/odds", ours: "/mcp get_odds" },
  );
  return { title, rest: measured.baseline, mcp: measured.ours, restBytes, mcpBytes };
}

function reportMcp(comparison: McpComparison): void {
  const { rest, mcp } = comparison;
  console.log(comparison.title);
  console.log(HEADER);
  console.log(row("GET /api/v1/odds", rest));
  console.log(row("POST /mcp get_odds", mcp));
  console.log(
    `  answers: ${fmt(comparison.restBytes)} bytes over REST, ${fmt(comparison.mcpBytes)} as the tool's result (the data as structured content and as text)`,
  );
  const restCost = cpuPerRequest(rest);
  const mcpCost = cpuPerRequest(mcp);
  if (restCost !== null && mcpCost !== null) {
    console.log(
      `  server CPU per request: the tool call ${microseconds(mcpCost)}, ${(mcpCost / restCost).toFixed(1)} × the REST call's ${microseconds(restCost)}`,
    );
    console.log(
      `    spread over ${mcp.rounds.length} rounds, min / median / max: REST ${spread(
        rest.rounds.map((r) => r.cpuPerRequest ?? NaN),
        microseconds,
      )}, MCP ${spread(
        mcp.rounds.map((r) => r.cpuPerRequest ?? NaN),
        microseconds,
      )}`,
    );
  }
  console.log("  no threshold (information only)");
  const note = generatorNote(rest, mcp);
  if (note) console.log(`  note: ${note.slice(2)}`);
}

// ---------------------------------------------------------------------------------------------
// Report, in the style of bench/ingest.ts.

type Ratios = { cpu: number | null; rps: number };

function ratios(comparison: Comparison): Ratios {
  const oursCost = cpuPerRequest(comparison.ours);
  const baselineCost = cpuPerRequest(comparison.baseline);
  return {
    cpu: oursCost === null || baselineCost === null ? null : baselineCost / oursCost,
    rps: comparison.ours.rps / comparison.baseline.rps,
  };
}

/**
 * PASS when both ratios reach `minRatio` (the CPU one where /proc exists) and, if given, p99 (the
 * median round's) is under its limit.
 */
function verdict(ratio: Ratios, p99: number, minRatio: number, p99Limit?: number, goalRatio?: number): string {
  const misses: string[] = [];
  if (ratio.cpu !== null && ratio.cpu < minRatio) misses.push(`ratio by CPU per request under ${minRatio}`);
  if (ratio.rps < minRatio) misses.push(`ratio by req/s under ${minRatio}`);
  if (p99Limit !== undefined && p99 >= p99Limit) misses.push(`median round's p99 not under ${p99Limit} ms`);
  if (misses.length) return `FAIL (${misses.join(", ")})`;
  const lowest = Math.min(ratio.rps, ratio.cpu ?? Infinity);
  const goal =
    goalRatio === undefined ? "" : lowest >= goalRatio ? `, goal ${goalRatio} met` : `, goal ${goalRatio} not met`;
  return `PASS (ratios ≥ ${minRatio}${goal}${p99Limit === undefined ? "" : `, median round's p99 < ${p99Limit} ms`})`;
}

const twoDecimals = (n: number) => n.toFixed(2);
const microseconds = (n: number) => `${fmt(n)} µs`;

function report(comparison: Comparison, judge: (ratio: Ratios, p99: number) => string): void {
  const { baseline, ours } = comparison;
  const ratio = ratios(comparison);
  console.log(`${comparison.title} (${fmt(comparison.bytes)}-byte answer)`);
  console.log(HEADER);
  console.log(row("baseline (plain node:http)", baseline));
  console.log(row(comparison.oursLabel, ours));
  if (ratio.cpu !== null) {
    console.log(
      `  ratio by server CPU per request ${twoDecimals(ratio.cpu)} (ours ${(1 / ratio.cpu).toFixed(1)} × the baseline's CPU per answer), by req/s ${twoDecimals(ratio.rps)}`,
    );
  } else {
    console.log(`  ratio by req/s ${twoDecimals(ratio.rps)} (no CPU per request off Linux)`);
  }
  // Rounds alternate, so round i of ours is compared with round i of the baseline.
  const pairs = ours.rounds.map((round, i) => ({ ours: round, baseline: baseline.rounds[i]! }));
  const cpuRatios = pairs.flatMap(({ ours: o, baseline: b }) =>
    o.cpuPerRequest === null || b.cpuPerRequest === null ? [] : [b.cpuPerRequest / o.cpuPerRequest],
  );
  console.log(`  spread over ${pairs.length} rounds, min / median / max:`);
  if (cpuRatios.length) {
    console.log(
      `    CPU per request: baseline ${spread(
        baseline.rounds.map((r) => r.cpuPerRequest ?? NaN),
        microseconds,
      )}, ours ${spread(
        ours.rounds.map((r) => r.cpuPerRequest ?? NaN),
        microseconds,
      )}, ratio ${spread(cpuRatios, twoDecimals)}`,
    );
  }
  console.log(
    `    req/s: baseline ${spread(
      baseline.rounds.map((r) => r.rps),
      fmt,
    )}, ours ${spread(
      ours.rounds.map((r) => r.rps),
      fmt,
    )}, ratio ${spread(
      pairs.map(({ ours: o, baseline: b }) => o.rps / b.rps),
      twoDecimals,
    )}`,
  );
  console.log(
    `    p99: baseline ${spread(
      baseline.rounds.map((r) => r.p99),
      ms,
    )}, ours ${spread(
      ours.rounds.map((r) => r.p99),
      ms,
    )}`,
  );
  if (ours.threads !== null) {
    console.log(`  CPU per request by thread, µs (user + kernel):`);
    console.log(`    baseline: ${threadsPerRequest(baseline.threads, baseline.requests)}`);
    console.log(`    ours:     ${threadsPerRequest(ours.threads, ours.requests)}`);
  }
  // Judged on the median round: one round disturbed by other work on a shared machine moves the
  // worst round's p99 by tens of ms for the baseline as well as for ours (the spread above shows it).
  console.log(`  ${judge(ratio, median(ours.rounds.map((r) => r.p99)))}`);
  // When the load generator is near a whole core, req/s and latency are as much its figures as the
  // server's (autocannon decodes every response body into a string, which for the large odds
  // board is most of its work; wrk does far less). CPU per request does not depend on it.
  const note = generatorNote(baseline, ours);
  if (note) console.log(`  note: ${note.slice(2)}`);
}

/** What was measured and how, above the figures. */
function printSetting(): void {
  const cpus = os.cpus();
  console.log(
    `Public API under load on this machine (${cpus.length} × ${cpus[0]?.model.trim() ?? "unknown CPU"}, Node ${process.version}): ` +
      `${GENERATOR}, ${CONNECTIONS} connections, pipelining 1, ${WARMUP_SECONDS} s warm-up, ${SECONDS} s measured per side, loopback`,
  );
  console.log(
    "  ours: server.ts on the production build, PGlite, simulator off, one production key on a plan no load reaches",
  );
  console.log(
    "  baseline: plain node:http in its own process, answering with the status, headers and body ours sent for the URL",
  );
  console.log(
    `  each side loaded alone, in ${ROUNDS} alternating rounds; req/s: 2xx answers ÷ measured time; latency over every 2xx answer`,
  );
  console.log(
    `  ${PINNING}; CPU per request: the server's utime + stime from /proc ÷ its 2xx answers; p99: the worst round's in the table, the median round's in the verdict`,
  );
  console.log(
    `  thresholds: events ≥ ${EVENTS_MIN_RATIO} of the baseline by CPU per request and by req/s (goal ${EVENTS_GOAL_RATIO}), p99 < ${P99_LIMIT_MS} ms; odds ≥ ${ODDS_MIN_RATIO} by both`,
  );
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-bench-api-"));
  const dataDir = path.join(dir, "data");
  const env = { DATA_DIR: dataDir, FEED_TOKEN };
  let server: RunningServer | undefined;
  try {
    console.error("bench: creating the organisation, licence, plan and key");
    const key = await createKey(dataDir);
    const headers = { authorization: `Bearer ${key}` };
    const at = Date.now();

    // One DATA_DIR, so three starts one after the other (PGlite admits one process): the events
    // list is measured on both entries over the same 50 events, before the live ones exist, so the
    // default page (limit 50) is the whole list.
    console.error("bench: events through the node:http entry");
    server = await startServer({ ...env, API_ENTRY: "node" });
    await ingest(server.url, upcomingEvents(UPCOMING_EVENTS, at));
    await waitForItems(`${server.url}/api/v1/events`, headers, UPCOMING_EVENTS);
    const events = await compare(
      `GET /api/v1/events: ${UPCOMING_EVENTS} upcoming events of 7 sports, authenticated and metered`,
      "ours (node:http entry)",
      server,
      "/api/v1/events",
      headers,
      UPCOMING_EVENTS,
      dir,
    );
    await stopServer(server);
    server = undefined;
    if (ONLY_EVENTS) {
      printSetting();
      console.log("");
      report(events, (ratio, p99) => verdict(ratio, p99, EVENTS_MIN_RATIO, P99_LIMIT_MS, EVENTS_GOAL_RATIO));
      reportBroken();
      return;
    }

    console.error("bench: events through Next's route handlers");
    server = await startServer({ ...env, API_ENTRY: "next" });
    const nextTitle = "GET /api/v1/events through Next's route handlers (API_ENTRY=next), for information";
    let eventsNext: Comparison | string;
    try {
      eventsNext = await compare(
        nextTitle,
        "ours (API_ENTRY=next)",
        server,
        "/api/v1/events",
        headers,
        UPCOMING_EVENTS,
        dir,
      );
    } catch (error) {
      // Information only, so the other figures are still worth printing; the run still counts as broken.
      const logged = server.output().match(/^.*(Error|⨯).*$/m)?.[0];
      eventsNext = `${error instanceof Error ? error.message : String(error)}${logged ? ` (server log: ${logged.trim()})` : ""}`;
      broken.push(`${nextTitle}: ${eventsNext}`);
    }
    await stopServer(server);

    console.error("bench: odds through the node:http entry");
    server = await startServer({ ...env, API_ENTRY: "node" });
    await ingest(server.url, liveSoccer(LIVE_EVENTS, at));
    await waitForItems(`${server.url}/api/v1/odds`, headers, LIVE_EVENTS);
    const odds = await compare(
      `GET /api/v1/odds: ${LIVE_EVENTS} live soccer events with 4 markets each, authenticated and metered`,
      "ours (node:http entry)",
      server,
      "/api/v1/odds",
      headers,
      LIVE_EVENTS,
      dir,
    );
    // The board is large; a board client sends Accept-Encoding, and both sides then send the
    // gzip bytes ours made (ours compresses once per change of the feed, not per request).
    const oddsGzip = await compare(
      "GET /api/v1/odds with Accept-Encoding: gzip, for information",
      "ours (node:http entry)",
      server,
      "/api/v1/odds",
      { ...headers, "accept-encoding": "gzip" },
      LIVE_EVENTS,
      dir,
    );
    const mcpOdds: McpComparison[] = [];
    for (const revision of MCP_REVISIONS) mcpOdds.push(await compareMcp(server, headers, revision));
    await stopServer(server);
    server = undefined;

    printSetting();
    console.log("");
    report(events, (ratio, p99) => verdict(ratio, p99, EVENTS_MIN_RATIO, P99_LIMIT_MS, EVENTS_GOAL_RATIO));
    console.log("");
    report(odds, (ratio, p99) => verdict(ratio, p99, ODDS_MIN_RATIO));
    console.log("");
    report(
      oddsGzip,
      (ratio, p99) =>
        `no threshold (information only; against the odds threshold: ${verdict(ratio, p99, ODDS_MIN_RATIO)})`,
    );
    console.log("");
    for (const comparison of mcpOdds) {
      reportMcp(comparison);
      console.log("");
    }
    if (typeof eventsNext === "string") {
      console.log(nextTitle);
      console.log(`  not measured: ${eventsNext}`);
    } else {
      report(eventsNext, () => "no threshold (information only)");
    }
    reportBroken();
  } catch (error) {
    if (server) console.error(`bench: our server's output:\n${server.output()}`);
    throw error;
  } finally {
    if (server) await stopServer(server);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
