// Where our server's CPU goes under bench:api's load: a V8 CPU profile of the built server taken
// while the load generator runs, summarised by function and by file, with each entry's share of
// the CPU and its microseconds per request.
//
//   npm run build && npm run bench:api:profile
//
// Each request is profiled on both sides of bench:api: the baseline (plain node:http answering a
// recorded copy of our answer) first, then ours. Our server is started as bench:api starts it (server.ts on the production build, PGlite,
// simulator off, one production key on a plan no load reaches, the same events through the
// provider ingest), with the inspector on a free loopback port. The profiler runs only while the
// load does (BENCH_PROFILE_SECONDS, 10, after 3 s of warm-up), so start-up is not in it; then the
// same for the odds board, then (ours only) the MCP server's get_odds over that board at each
// revision bench:api calls it at. Each profile is written as a .cpuprofile (Chrome DevTools'
// Performance panel and speedscope.app draw it as a flame graph) into BENCH_PROFILE_DIR (a new
// temporary folder by default), and the top entries are printed. The profiler's sampling costs the
// server CPU too, so the figures of a profiled run are not bench:api's: compare profiles with profiles.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { cpuSeconds } from "../testing/cpu.ts";
import { FEED_TOKEN, ingest } from "../testing/feed.ts";
import { startServer, type RunningServer } from "../testing/processes.ts";
import {
  capture,
  checkMcpGetOdds,
  createKey,
  MCP_REVISIONS,
  mcpGetOdds,
  startBaseline,
  stopServer,
} from "./api-setup.ts";
import { liveSoccer, upcomingEvents } from "./data.ts";
import {
  broken,
  fmt,
  GENERATOR,
  pinServer,
  reportBroken,
  run,
  waitForItems,
  CONNECTIONS,
  type Target,
} from "./load.ts";
import { summarise, type CpuProfile } from "./cpu-profile.ts";
import { HEAP_KEPT, HEAP_SAMPLING, summariseHeap, watchCollections, type HeapProfile } from "./heap-profile.ts";

const UPCOMING_EVENTS = 50;
const LIVE_EVENTS = 200;
const SECONDS = Number(process.env.BENCH_PROFILE_SECONDS ?? 10);
const WARMUP_SECONDS = 3;
// V8 samples every 1,000 µs by default; finer shows more of a request lasting tens of µs.
const SAMPLING_INTERVAL_US = 200;
// Each profiled process opens the inspector on a port of its own choosing, and says which.
const INSPECT = "--inspect=127.0.0.1:0";
const ROOT = path.resolve(import.meta.dirname, "..");

/** The DevTools protocol of a process started with --inspect, over the WebSocket it announced. */
async function inspect(output: string) {
  const announced = /Debugger listening on (ws:\/\/\S+)/.exec(output);
  if (!announced) throw new Error("the server did not announce its inspector");
  const socket = new WebSocket(announced[1]!);
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", () => reject(new Error("could not reach the server's inspector")), { once: true });
  });
  let lastId = 0;
  const waiting = new Map<number, (message: { result?: unknown; error?: { message: string } }) => void>();
  socket.addEventListener("message", (event: MessageEvent<string>) => {
    const message = JSON.parse(event.data) as { id?: number; result?: unknown; error?: { message: string } };
    if (message.id !== undefined) waiting.get(message.id)?.(message);
  });
  const call = <T>(method: string, params: Record<string, unknown> = {}) =>
    new Promise<T>((resolve, reject) => {
      const id = ++lastId;
      waiting.set(id, (message) => {
        waiting.delete(id);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolve(message.result as T);
      });
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { call, close: () => socket.close() };
}

type Profiled = { pid: number; output(): string };

/** Loads `request` on `side` while the profiler runs in it; writes and prints the profile. */
async function profile(side: Profiled, name: string, title: string, request: Omit<Target, "pid">, dir: string) {
  const target = { ...request, pid: side.pid };
  pinServer(side.pid);
  await run(`${title}, warm-up`, target, WARMUP_SECONDS);
  const inspector = await inspect(side.output());
  try {
    await inspector.call("Profiler.enable");
    await inspector.call("Profiler.setSamplingInterval", { interval: SAMPLING_INTERVAL_US });
    const before = cpuSeconds(target.pid);
    await inspector.call("Profiler.start");
    const measured = await run(title, target, SECONDS);
    const { profile: taken } = await inspector.call<{ profile: CpuProfile }>("Profiler.stop");
    const cpu = before === null ? null : cpuSeconds(target.pid)! - before;
    const file = path.join(dir, `${name}.cpuprofile`);
    writeFileSync(file, JSON.stringify(taken));
    console.log(`${title}`);
    console.log(
      `  ${fmt(measured.ok)} answers in ${measured.seconds.toFixed(1)} s (${fmt(measured.ok / measured.seconds)} req/s)` +
        (cpu === null ? "" : `, ${fmt((cpu * 1e6) / Math.max(1, measured.ok))} µs of CPU per request`) +
        `; profile: ${file}`,
    );
    console.log(summarise(taken, { requests: measured.ok, cpuSeconds: cpu, root: ROOT }));
    console.log("");
    // Then what the same load allocates, garbage included: the collector's share of V8's own threads
    // follows the bytes allocated (the rest is the optimising compiler), and the CPU profile above
    // shows neither.
    await inspector.call("HeapProfiler.enable");
    await inspector.call("HeapProfiler.startSampling", HEAP_SAMPLING);
    const collections = await watchCollections(inspector.call);
    const allocating = await run(`${title}, allocation`, target, SECONDS);
    const collected = await collections(allocating.ok);
    const { profile: heap } = await inspector.call<{ profile: HeapProfile }>("HeapProfiler.stopSampling");
    writeFileSync(path.join(dir, `${name}.heapprofile`), JSON.stringify(heap));
    console.log(`${title}: allocation, sampled every ${HEAP_SAMPLING.samplingInterval} bytes, ${HEAP_KEPT}`);
    console.log(summariseHeap(heap, { requests: allocating.ok, root: ROOT }));
    console.log(collected);
    console.log("");
  } finally {
    inspector.close();
  }
}

/** Profiles the baseline serving a copy of our answer to `pathAndQuery`, then ours. */
async function compare(
  server: RunningServer,
  name: string,
  title: string,
  pathAndQuery: string,
  headers: Record<string, string>,
  dir: string,
) {
  const { recorded } = await capture(`${server.url}${pathAndQuery}`, headers);
  const baseline = await startBaseline(recorded, dir, `${name}-baseline`, { NODE_OPTIONS: INSPECT });
  try {
    await profile(
      baseline,
      `${name}-baseline`,
      `${title}: baseline (plain node:http)`,
      { url: `${baseline.url}${pathAndQuery}`, headers },
      dir,
    );
  } finally {
    await stopServer(baseline);
  }
  const ours = { pid: server.process.pid!, output: () => server.output() };
  const request = { url: `${server.url}${pathAndQuery}`, headers };
  await profile(ours, `${name}-ours`, `${title}: ours (node:http entry)`, request, dir);
}

async function main() {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "svc-bench-profile-"));
  const dir = process.env.BENCH_PROFILE_DIR ?? mkdtempSync(path.join(os.tmpdir(), "svc-api-profile-"));
  mkdirSync(dir, { recursive: true });
  const dataDir = path.join(scratch, "data");
  const env = { DATA_DIR: dataDir, FEED_TOKEN, API_ENTRY: "node", NODE_OPTIONS: INSPECT };
  let server: RunningServer | undefined;
  try {
    const key = await createKey(dataDir);
    const headers = { authorization: `Bearer ${key}` };
    const at = Date.now();
    server = await startServer(env);
    console.log(
      `CPU profiles of the baseline and of server.ts (production build, PGlite) under ${GENERATOR}, ${CONNECTIONS} connections, ` +
        `${SECONDS} s each after ${WARMUP_SECONDS} s of warm-up, sampled every ${SAMPLING_INTERVAL_US} µs`,
    );
    console.log("");
    await ingest(server.url, upcomingEvents(UPCOMING_EVENTS, at));
    await waitForItems(`${server.url}/api/v1/events`, headers, UPCOMING_EVENTS);
    await compare(server, "events", `GET /api/v1/events (${UPCOMING_EVENTS} events)`, "/api/v1/events", headers, dir);
    await ingest(server.url, liveSoccer(LIVE_EVENTS, at));
    await waitForItems(`${server.url}/api/v1/odds`, headers, LIVE_EVENTS);
    await compare(server, "odds", `GET /api/v1/odds (${LIVE_EVENTS} live events)`, "/api/v1/odds", headers, dir);
    // The MCP server's get_odds over the same board: no baseline, the REST call above is its measure.
    const ours = { pid: server.process.pid!, output: () => server!.output() };
    for (const revision of MCP_REVISIONS) {
      const mcp = mcpGetOdds(server.url, headers, revision);
      await checkMcpGetOdds(mcp, LIVE_EVENTS);
      const title = `POST /mcp get_odds at ${revision} (${LIVE_EVENTS} live events)`;
      await profile(ours, `mcp-get-odds-${revision}`, title, mcp, dir);
    }
    reportBroken();
  } catch (error) {
    if (server) console.error(`bench: our server's output:\n${server.output().slice(-5_000)}`);
    throw error;
  } finally {
    if (server) await server.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
  if (broken.length) process.exitCode = 1;
}

await main();
