// The load-measurement machinery the HTTP benchmarks share (bench/api.ts, bench/metering.ts): one
// side at a time loaded by wrk when installed, else autocannon in this process (BENCH_TOOL=autocannon
// to choose it), BENCH_CONNECTIONS connections (64), pipelining 1; two sides measured in alternating
// rounds (measurePair: BENCH_WARMUP_SECONDS (15) of warm-up each, then BENCH_SECONDS (10) per side in
// BENCH_ROUNDS (5) rounds); each server's CPU from /proc (Linux only) and the load generator's; the
// report's table rows; and waitForItems, for a server to list what was just ingested. Failures
// under load are collected in `broken`, for the bench to report and exit non-zero; nothing here
// judges timing.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { CAN_PIN, cpuSeconds, onCore, pin, threadCpuSeconds, threadCpuSince, type ThreadCpu } from "../testing/cpu.ts";
import { roundSeconds } from "./rounds.ts";
import { quantileOfSorted } from "./stats.ts";

export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
// Long enough for V8 to finish optimising the hot code: with 3 s, its background compilation
// still cost our server several µs a request in the measured rounds (docs/benchmarks.md).
export const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 15);
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

// Share of a core above which the load generator, not the server, may be what limits a run.
export const GENERATOR_LIMIT = 0.75;

/** What broke during the run (refused or failed requests under load): the bench then exits with 1. */
export const broken: string[] = [];

/** Lists what broke during the run, if anything, and sets the exit code to 1. */
export function reportBroken(): void {
  if (broken.length === 0) return;
  console.log("");
  console.log("Something broke (so the exit code is 1):");
  for (const line of broken) console.log(`  ${line}`);
  process.exitCode = 1;
}

// The server measured runs on one core and the load generator (and this process) on another
// (testing/cpu.ts): unpinned, the scheduler moves them onto the same core now and then, and each
// takes the other's CPU in a way that differs from round to round. Pinning does not make a shared
// machine quiet; CPU per request is the figure least moved by it.
const SERVER_CORE = 0;
const LOAD_CORE = 1;
export const PINNING = CAN_PIN
  ? `server on core ${SERVER_CORE}, load generator on core ${LOAD_CORE} (taskset)`
  : "not pinned (no taskset, or one core)";

// This process (autocannon runs in it) goes to the load generator's core; the servers it starts
// are moved to the server's core when measured.
pin(process.pid, LOAD_CORE, broken);

/** Moves a server to the core its measurements are taken on (measurePair does it for its two). */
export function pinServer(pid: number): void {
  pin(pid, SERVER_CORE, broken);
}

// ---------------------------------------------------------------------------------------------
// Measurement.

export type Figures = {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** Share of one core the server used while measured; null where /proc is not there. */
  serverCpu: number | null;
  /** The load generator's (this process's) share of one core. */
  clientCpu: number;
  /** The server's CPU over the measured runs by thread; null where /proc is not there. */
  threads: ThreadCpu | null;
  /** Each measured round on its own, for the spread. */
  rounds: { rps: number; cpuPerRequest: number | null; p99: number }[];
};

/**
 * What one side did in one run of the load generator. autocannon gives every latency; wrk gives
 * its percentiles (p50, p99) and the CPU it used.
 */
export type Run = {
  ok: number;
  seconds: number;
  latencies: number[] | null;
  percentiles: { p50: number; p99: number } | null;
  serverCpu: number | null;
  threads: ThreadCpu | null;
  clientCpu: number;
};

// wrk (C, one thread per core) costs a fraction of autocannon's CPU per answer, so with large
// bodies it measures the server rather than itself. It is used when installed (Debian: `wrk`);
// BENCH_TOOL=autocannon forces autocannon.
const WRK = process.env.BENCH_TOOL !== "autocannon" && spawnSync("wrk", ["--version"]).error === undefined;
export const GENERATOR = WRK ? "wrk" : "autocannon";

// Reports what the bench needs as one JSON line, from wrk's own histogram (microseconds).
const WRK_SCRIPT = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('BENCH {"requests":%d,"us":%d,"non2xx":%d,"errors":%d,"timeouts":%d,"p50":%d,"p99":%d}\\n',
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
`;
let wrkDir: string | undefined;
const wrkScripts = new Map<string, string>();

/** The report script, with the request's method and body first when it has them (a POST to /mcp). */
function wrkScript(target: Target): string {
  const request =
    target.body === undefined ? "" : `wrk.method = "${target.method ?? "POST"}"\nwrk.body = [==[${target.body}]==]\n`;
  let file = wrkScripts.get(request);
  if (!file) {
    if (!wrkDir) {
      const dir = mkdtempSync(path.join(os.tmpdir(), "svc-bench-wrk-"));
      process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
      wrkDir = dir;
    }
    file = path.join(wrkDir, `report-${wrkScripts.size}.lua`);
    writeFileSync(file, `${request}${WRK_SCRIPT}`);
    wrkScripts.set(request, file);
  }
  return file;
}

async function runWrk(label: string, target: Target, seconds: number): Promise<Run> {
  const args = ["-t1", `-c${CONNECTIONS}`, `-d${seconds}s`, "--timeout", "10s", "-s", wrkScript(target)];
  for (const [name, value] of Object.entries(target.headers)) args.push("-H", `${name}: ${value}`);
  args.push(target.url);
  const serverBefore = cpuSeconds(target.pid);
  const threadsBefore = threadCpuSeconds(target.pid);
  // taskset execs wrk in the same process, so child.pid is wrk's for its CPU.
  const [command, commandArgs] = onCore(LOAD_CORE, "wrk", args);
  const child = spawn(command, commandArgs, { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  let clientCpu = 0;
  const sampler = setInterval(() => (clientCpu = cpuSeconds(child.pid!) ?? clientCpu), 250);
  await new Promise((resolve) => child.on("close", resolve));
  clearInterval(sampler);
  const serverAfter = cpuSeconds(target.pid);
  const threads = threadsUsed(threadsBefore, threadCpuSeconds(target.pid));
  const line = /^BENCH (.*)$/m.exec(output);
  if (!line) {
    broken.push(`${label}: wrk printed no figures: ${output.trim().slice(0, 300)}`);
    return {
      ok: 0,
      seconds,
      latencies: null,
      percentiles: { p50: NaN, p99: NaN },
      serverCpu: null,
      threads: null,
      clientCpu: 0,
    };
  }
  const figures = JSON.parse(line[1]!) as Record<
    "requests" | "us" | "non2xx" | "errors" | "timeouts" | "p50" | "p99",
    number
  >;
  const problems: string[] = [];
  if (figures.non2xx > 0) problems.push(`${figures.non2xx} answers were not 2xx or 3xx`);
  if (figures.errors + figures.timeouts > 0) problems.push(`${figures.errors + figures.timeouts} request errors`);
  if (figures.requests === 0) problems.push("no request was answered");
  if (problems.length) broken.push(`${label}: ${problems.join("; ")}`);
  const measured = figures.us / 1e6;
  return {
    ok: figures.requests - figures.non2xx,
    seconds: measured,
    latencies: null,
    percentiles: { p50: figures.p50 / 1000, p99: figures.p99 / 1000 },
    serverCpu: serverBefore === null || serverAfter === null ? null : serverAfter - serverBefore,
    threads,
    clientCpu,
  };
}

/** One run of the load generator against one side, `seconds` long. */
export async function run(label: string, target: Target, seconds: number): Promise<Run> {
  return WRK ? runWrk(label, target, seconds) : runAutocannon(label, target, seconds);
}

async function runAutocannon(label: string, target: Target, seconds: number): Promise<Run> {
  const latencies: number[] = [];
  const instance = autocannon({
    url: target.url,
    connections: CONNECTIONS,
    pipelining: 1,
    headers: target.headers,
    ...(target.body === undefined ? {} : { method: (target.method ?? "POST") as "POST", body: target.body }),
    timeout: 10,
    duration: seconds,
  });
  // autocannon keeps percentiles, not its histogram; runs are merged from the latencies themselves
  // (2xx only, as autocannon counts them), in its own hrtime milliseconds.
  instance.on("response", (_client: unknown, status: number, _bytes: number, milliseconds: number) => {
    if (status >= 200 && status < 300) latencies.push(milliseconds);
  });
  const serverBefore = cpuSeconds(target.pid);
  const threadsBefore = threadCpuSeconds(target.pid);
  const clientBefore = process.cpuUsage();
  const result = await instance;
  const serverAfter = cpuSeconds(target.pid);
  const threads = threadsUsed(threadsBefore, threadCpuSeconds(target.pid));
  const client = process.cpuUsage(clientBefore);
  const problems: string[] = [];
  if (result.non2xx > 0) {
    const statuses = Object.entries(result.statusCodeStats)
      .map(([status, { count }]) => `${count} × ${status}`)
      .join(", ");
    problems.push(`${result.non2xx} answers were not 2xx (${statuses})`);
  }
  if (result.errors > 0) problems.push(`${result.errors} request errors, ${result.timeouts} of them timeouts`);
  if (result["2xx"] === 0) problems.push("no request was answered");
  if (problems.length) broken.push(`${label}: ${problems.join("; ")}`);
  return {
    ok: result["2xx"],
    seconds: result.duration,
    latencies,
    percentiles: null,
    serverCpu: serverBefore === null || serverAfter === null ? null : serverAfter - serverBefore,
    threads,
    clientCpu: (client.user + client.system) / 1e6,
  };
}

const threadsUsed = (before: ThreadCpu | null, after: ThreadCpu | null) =>
  before === null || after === null ? null : threadCpuSince(before, after);

/** The runs' thread figures added up by thread name; null when any run lacks them. */
function addThreads(runs: Run[]): ThreadCpu | null {
  if (runs.some((r) => r.threads === null)) return null;
  const total: ThreadCpu = {};
  for (const r of runs) {
    for (const [name, { user, kernel }] of Object.entries(r.threads!)) {
      const thread = (total[name] ??= { user: 0, kernel: 0 });
      thread.user += user;
      thread.kernel += kernel;
    }
  }
  return total;
}

/** The runs of one side merged: req/s over the measured time, latency, CPU shares. */
export function figures(runs: Run[]): Figures {
  const seconds = runs.reduce((sum, r) => sum + r.seconds, 0);
  const latencies = Float64Array.from(runs.flatMap((r) => r.latencies ?? [])).sort();
  // wrk's runs carry percentiles only: the median of the runs' p50 and the worst run's p99.
  const p50s = runs.flatMap((r) => (r.percentiles ? [r.percentiles.p50] : [])).sort((a, b) => a - b);
  const p99s = runs.flatMap((r) => (r.percentiles ? [r.percentiles.p99] : []));
  const serverCpu = runs.every((r) => r.serverCpu !== null)
    ? runs.reduce((sum, r) => sum + r.serverCpu!, 0) / seconds
    : null;
  return {
    rps: runs.reduce((sum, r) => sum + r.ok, 0) / seconds,
    p50: p50s.length ? quantileOfSorted(p50s, 0.5) : quantileOfSorted(latencies, 0.5),
    p99: p99s.length ? Math.max(...p99s) : quantileOfSorted(latencies, 0.99),
    requests: runs.reduce((sum, r) => sum + r.ok, 0),
    serverCpu,
    threads: addThreads(runs),
    clientCpu: runs.reduce((sum, r) => sum + r.clientCpu, 0) / seconds,
    rounds: runs.map((r) => ({
      rps: r.ok / r.seconds,
      cpuPerRequest: r.serverCpu === null ? null : (r.serverCpu * 1e6) / Math.max(1, r.ok),
      p99: r.percentiles ? r.percentiles.p99 : quantileOfSorted(Float64Array.from(r.latencies ?? []).sort(), 0.99),
    })),
  };
}

/**
 * One side: the URL loaded, the headers every request carries, and the server process measured;
 * a request with a body (a JSON-RPC message to /mcp) names its method and body.
 */
export type Target = { url: string; headers: Record<string, string>; pid: number; method?: string; body?: string };

/**
 * Both sides warmed up, then measured in alternating rounds: on a machine that also runs other
 * work, whatever slows one round slows both sides about equally, where one long run per side
 * would put a burst of other work on one side only. `names` label the sides in what `broken`
 * records. Besides the measured figures, `answered` is every 2xx answer each side received,
 * warm-up included.
 */
export async function measurePair(
  title: string,
  baseline: Target,
  ours: Target,
  names: { baseline: string; ours: string } = { baseline: "baseline", ours: "ours" },
): Promise<{ baseline: Figures; ours: Figures; answered: { baseline: number; ours: number } }> {
  pinServer(baseline.pid);
  pinServer(ours.pid);
  console.error(
    `bench: ${title}: ${WARMUP_SECONDS} s warm-up each, then ${ROUNDS} alternating rounds of ` +
      `${roundSeconds(SECONDS, ROUNDS).join(", ")} s, ${SECONDS} s each side`,
  );
  const baselineWarmUp = await run(`${title}, ${names.baseline} warm-up`, baseline, WARMUP_SECONDS);
  const oursWarmUp = await run(`${title}, ${names.ours} warm-up`, ours, WARMUP_SECONDS);
  const baselineRuns: Run[] = [];
  const oursRuns: Run[] = [];
  for (const seconds of roundSeconds(SECONDS, ROUNDS)) {
    baselineRuns.push(await run(`${title}, ${names.baseline}`, baseline, seconds));
    oursRuns.push(await run(`${title}, ${names.ours}`, ours, seconds));
  }
  const answered = (runs: Run[]) => runs.reduce((sum, r) => sum + r.ok, 0);
  return {
    baseline: figures(baselineRuns),
    ours: figures(oursRuns),
    answered: { baseline: answered([baselineWarmUp, ...baselineRuns]), ours: answered([oursWarmUp, ...oursRuns]) },
  };
}

// ---------------------------------------------------------------------------------------------
// Readiness.

/** Polls until the answer lists `count` items: the view follows the commit through the change bus. */
export async function waitForItems(url: string, headers: Record<string, string>, count: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  let seen: unknown;
  while (Date.now() < deadline) {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(5_000) });
    const answer = (await response.json()) as { data?: unknown[] };
    seen = response.status === 200 ? answer.data?.length : `${response.status} ${JSON.stringify(answer)}`;
    if (seen === count) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not list ${count} items within 15 s (last: ${String(seen)})`);
}

// ---------------------------------------------------------------------------------------------
// Report, in the style of bench/ingest.ts.

export const fmt = (n: number) => Math.round(n).toLocaleString("en");
export const ms = (n: number) => `${n.toFixed(1)} ms`;
export const percent = (share: number | null) => (share === null ? "n/a" : `${Math.round(share * 100)} %`);
export const cpuPerRequest = (figures: Figures) =>
  figures.serverCpu === null ? null : (figures.serverCpu * 1e6) / Math.max(1, figures.rps);

/** One side's line of the table under HEADER: req/s, p50, p99, server CPU, its CPU per request, client CPU. */
export function row(label: string, figures: Figures, tail = ""): string {
  const perRequest = cpuPerRequest(figures);
  return (
    `  ${label.padEnd(28)}${fmt(figures.rps).padStart(9)}${ms(figures.p50).padStart(10)}${ms(figures.p99).padStart(10)}` +
    `${percent(figures.serverCpu).padStart(12)}${(perRequest === null ? "n/a" : `${fmt(perRequest)} µs`).padStart(13)}` +
    `${percent(figures.clientCpu).padStart(12)}${tail}`
  );
}

export const HEADER = `  ${"".padEnd(28)}${"req/s".padStart(9)}${"p50".padStart(10)}${"p99".padStart(10)}${"server CPU".padStart(12)}${"CPU/request".padStart(13)}${"client CPU".padStart(12)}`;

/**
 * A note for the report when the load generator used most of a core on either side: req/s and
 * latency are then as much its figures as the server's (autocannon decodes every response body
 * into a string; wrk does far less). CPU per request does not depend on it. Empty otherwise.
 */
export function generatorNote(a: Figures, b: Figures): string {
  const client = Math.max(a.clientCpu, b.clientCpu);
  return client >= GENERATOR_LIMIT
    ? `; the load generator used ${percent(client)} of a core, so req/s and latency are partly its own`
    : "";
}
