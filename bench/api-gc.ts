// What the collector costs an events request's latency: V8's collections in our server and in the
// baseline under bench:api's events load, from V8's own trace (bench/gc-trace.ts), in the measured
// window only. For each side: the scavenges (count, pause p50 / p90 / max, bytes that survived and
// were promoted to the old space, a mean), the mark-compacts (pauses), and the share of the window
// the main thread stood still for them; beside the run's p50 and p99, and CPU per request.
//
//   npm run build && npm run bench:api:gc
//
// Our server is started as bench:api starts it (server.ts on the production build, PGlite,
// simulator off, one production key on a plan no load reaches, 50 upcoming events through the
// provider ingest); the baseline is bench/static-server.ts answering with our recorded answer. Each
// side: BENCH_WARMUP_SECONDS (15) of warm-up, then BENCH_SECONDS (10) measured, BENCH_ROUNDS (3)
// times in turn. Their output goes to a file, not the harness's memory: the access log writes a
// line a request. Loopback only; it asserts no timing.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { cpuSeconds } from "../testing/cpu.ts";
import { mb } from "../testing/memory-map.ts";
import { FEED_TOKEN, ingest } from "../testing/feed.ts";
import { startProcess } from "../testing/processes.ts";
import { READY_LINE } from "../testing/ready.ts";
import { capture, createKey } from "./api-setup.ts";
import { upcomingEvents } from "./data.ts";
import { broken, fmt, GENERATOR, pinServer, reportBroken, run, waitForItems, type Target } from "./load.ts";
import { quantileOfSorted } from "./stats.ts";

const EVENTS = 50;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 15);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

type Traced = { url: string; pid: number; output(): string; stop(): Promise<unknown> };

/** `script` run through bench/gc-trace.ts, its output into `logFile`; ready once it prints its address. */
async function startTraced(script: string, args: string[], env: Record<string, string>, logFile: string) {
  const started = startProcess("bench/gc-trace.ts", {
    env: { PORT: "0", HOST: "127.0.0.1", ...env },
    args: [script, ...args],
    ready: READY_LINE,
    readyWithinMs: 120_000,
    name: script,
    outputFile: logFile,
  });
  const ready = await started.ready;
  return {
    url: ready[1]!.replace("localhost", "127.0.0.1"),
    pid: started.process.pid!,
    output: started.output,
    stop: () => started.stop("SIGTERM", 15_000),
  } satisfies Traced;
}

type Collection = { kind: string; pause: number; survived: number; promoted: number };

/** The main thread's collections in `trace` (a worker's isolate is another, not counted). */
function collections(trace: string): Collection[] {
  const found: Collection[] = [];
  for (const line of trace.split("\n")) {
    // "[pid:isolate:thread] ms: pause=… gc=s …"; thread 0 is the main thread.
    if (!/^\[\d+:0x[0-9a-f]+:0\]/.test(line)) continue;
    const kind = / gc=(\S+)/.exec(line)?.[1];
    if (!kind) continue;
    const field = (name: string) => Number(new RegExp(` ${name}=([\\d.]+)`).exec(line)?.[1] ?? 0);
    found.push({ kind, pause: field("pause"), survived: field("new_space_survived"), promoted: field("promoted") });
  }
  return found;
}

/** Loads `side` for a measured window and prints what the collector did in it. */
async function measure(label: string, side: Traced, target: Target) {
  const from = side.output().length;
  const cpuBefore = cpuSeconds(side.pid);
  const measured = await run(label, target, SECONDS);
  const cpu = cpuBefore === null ? null : cpuSeconds(side.pid)! - cpuBefore;
  const seen = collections(side.output().slice(from));
  const scavenges = seen.filter((c) => c.kind === "s");
  const majors = seen.filter((c) => c.kind !== "s");
  const pauses = scavenges.map((c) => c.pause).sort((a, b) => a - b);
  const paused = seen.reduce((sum, c) => sum + c.pause, 0);
  const mean = (pick: (c: Collection) => number) =>
    scavenges.length ? scavenges.reduce((sum, c) => sum + pick(c), 0) / scavenges.length : 0;
  console.log(
    `  ${label.padEnd(10)} ${fmt(measured.ok)} answers, p50 ${measured.percentiles?.p50.toFixed(1) ?? "?"} ms, ` +
      `p99 ${measured.percentiles?.p99.toFixed(1) ?? "?"} ms` +
      (cpu === null ? "" : `, ${((cpu * 1e6) / Math.max(1, measured.ok)).toFixed(1)} µs of CPU a request`),
  );
  console.log(
    `             scavenges ${scavenges.length}: pause p50 ${quantileOfSorted(pauses, 0.5).toFixed(1)} / p90 ${quantileOfSorted(pauses, 0.9).toFixed(1)} / ` +
      `max ${(pauses.at(-1) ?? 0).toFixed(1)} ms, survived ${mb(
        mean((c) => c.survived),
        2,
      )} MB, promoted ${mb(
        mean((c) => c.promoted),
        2,
      )} MB (means); ` +
      `other collections ${majors.length}${majors.length ? ` (${majors.map((c) => `${c.kind} ${c.pause.toFixed(1)} ms`).join(", ")})` : ""}; ` +
      `main thread stopped ${((paused / (measured.seconds * 1000)) * 100).toFixed(1)} % of the window`,
  );
}

async function main() {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "svc-bench-gc-"));
  const dataDir = path.join(scratch, "data");
  const sides: Traced[] = [];
  try {
    const key = await createKey(dataDir);
    const headers = { authorization: `Bearer ${key}` };
    const ours = await startTraced(
      "server.ts",
      [],
      { DATA_DIR: dataDir, FEED_TOKEN, API_ENTRY: "node" },
      path.join(scratch, "ours.log"),
    );
    sides.push(ours);
    await ingest(ours.url, upcomingEvents(EVENTS, Date.now()));
    await waitForItems(`${ours.url}/api/v1/events`, headers, EVENTS);
    const { recorded } = await capture(`${ours.url}/api/v1/events`, headers);
    const answer = path.join(scratch, "answer.json");
    writeFileSync(answer, JSON.stringify(recorded));
    const baseline = await startTraced("bench/static-server.ts", [answer], {}, path.join(scratch, "baseline.log"));
    sides.push(baseline);
    console.log(
      `V8's collections under GET /api/v1/events (${EVENTS} events), ${GENERATOR}: ${WARMUP_SECONDS} s of warm-up a side, ` +
        `then ${ROUNDS} rounds of ${SECONDS} s a side, in turn; the main thread's collections in each measured window`,
    );
    const targets = [
      {
        label: "baseline",
        side: baseline,
        target: { url: `${baseline.url}/api/v1/events`, headers, pid: baseline.pid },
      },
      { label: "ours", side: ours, target: { url: `${ours.url}/api/v1/events`, headers, pid: ours.pid } },
    ];
    for (const { label, target } of targets) {
      pinServer(target.pid);
      await run(`${label}, warm-up`, target, WARMUP_SECONDS);
    }
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`round ${round}`);
      for (const { label, side, target } of targets) {
        pinServer(target.pid);
        await measure(label, side, target);
      }
    }
    reportBroken();
  } finally {
    for (const side of sides) await side.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
  if (broken.length) process.exitCode = 1;
}

await main();
