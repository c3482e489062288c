// Fan-out of the live streams: how fast and at what cost one instance delivers each change to
// thousands of subscribers, next to plain node:http writing the same bytes, in the same run.
//
//   npm run bench:streams        (serves the production build: `npm run build` first)
//
// Our server is server.ts as `npm start` runs it (a child process, production build, embedded
// PGlite in a fresh DATA_DIR, simulator off, default stream settings), with 200 live soccer events
// (bench/data.ts) sent through the provider ingest. The baseline is bench/sse-broadcaster.ts,
// another child process that holds the same number of connections and writes each message to each
// of them, doing nothing else. Where `taskset` exists, the server under test is pinned to CPU 0 and
// this process (the subscribers) to CPU 1, so that neither steals the other's core.
//
// Scenarios, each on ours and then on the baseline:
// - BENCH_STREAM_SIZES (1000,5000,10000) subscribers of one event's stream; BENCH_STREAM_CHANGES (20)
//   changes of that event, one every 250 ms, through the ingest (a score, then a price, in turn);
// - BENCH_BOARD_SUBSCRIBERS (1000) subscribers of the board stream while the 200 live events change:
//   every 100 ms a batch of 10 updates (prices, and now and then a score), for BENCH_BOARD_SECONDS (10).
// Before each scenario, ours is sent the scenario's changes with one subscriber for
// BENCH_STREAM_WARMUP_SECONDS (5), so that what is measured is the fan-out, not V8 compiling a
// server just started.
// The baseline broadcasts the very frames our reference subscriber received, at the same moments
// relative to the start, grouped as they arrived.
//
// Per scenario and side it prints: change-to-delivery delay at the subscribers (p50, p99, max; ours
// from each message's `as_of`, the moment the feed recorded the change, so it includes the ingest's
// commit, the change bus and the flush tick; the baseline's from the moment it was handed the
// message), server CPU over the change phase and per message delivered (/proc), server memory per
// connection (RSS with the subscribers connected minus RSS before, divided by their number), the
// server's CPU per message by thread (the embedded database's own, V8's workers, the main thread), and
// the messages lost (a change a subscriber never received and was not told about). Then PASS/FAIL
// against the targets: at 10,000 subscribers p99 under 200 ms and under 30 KB per connection; at
// 5,000 p99 under 100 ms; nothing lost anywhere. It asserts no timing; it exits non-zero only when
// something broke (a server that did not start, a subscriber refused).
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FeedUpdate } from "../lib/feed/schemas.ts";
import { seed } from "../seeds/index.ts";
import {
  CAN_PIN,
  cpuSeconds,
  pin,
  residentBytes,
  threadCpuSeconds,
  threadCpuSince,
  threadsPerRequest,
  type ThreadCpu,
} from "../testing/cpu.ts";
import { FEED_TOKEN, ingest } from "../testing/feed.ts";
import { keyOnOwnPlan, withDatabase } from "../testing/organisations.ts";
import { startProcess, startServer } from "../testing/processes.ts";
import { READY_LINE } from "../testing/ready.ts";
import { BENCH_PLAN, liveSoccer, priceChange } from "./data.ts";
import { closeAll, delivered, ID, subscribeAll, subscribeReference, type Subscriber } from "./subscribers.ts";
import { quantileOfSorted } from "./stats.ts";

const SIZES = (process.env.BENCH_STREAM_SIZES ?? "1000,5000,10000").split(",").map(Number);
const CHANGES = Number(process.env.BENCH_STREAM_CHANGES ?? 20);
const CHANGE_EVERY_MS = 250;
const BOARD_SUBSCRIBERS = Number(process.env.BENCH_BOARD_SUBSCRIBERS ?? 1000);
const BOARD_SECONDS = Number(process.env.BENCH_BOARD_SECONDS ?? 10);
const BOARD_BATCH_EVERY_MS = 100;
const BOARD_BATCH = 10;
// Changes sent, with one subscriber, before each scenario on ours: a server just started spends the
// first seconds compiling (V8's workers), which is start-up, not the fan-out.
const WARMUP_SECONDS = Number(process.env.BENCH_STREAM_WARMUP_SECONDS ?? 5);
const LIVE_EVENTS = 200;
const FOLLOWED = "bench-live-0";

// The issue's targets.
const TARGETS: Record<number, { p99: number; kbPerConnection?: number }> = {
  10_000: { p99: 200, kbPerConnection: 30 },
  5_000: { p99: 100 },
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const broken: string[] = [];

// ---------------------------------------------------------------------------------------------
// Processes.

type Side = { url: string; pid: number; stop(): Promise<unknown> };

async function startBroadcaster(): Promise<Side & { post(path: string, body: string): Promise<void> }> {
  const broadcaster = startProcess(path.join(import.meta.dirname, "sse-broadcaster.ts"), {
    env: {},
    ready: READY_LINE,
    name: "the broadcaster",
  });
  const url = (await broadcaster.ready)[1]!;
  pin(broadcaster.process.pid!, 0, broken);
  return {
    url,
    pid: broadcaster.process.pid!,
    stop: () => broadcaster.stop(),
    post: async (to, body) => {
      await fetch(`${url}${to}`, { method: "POST", body });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// ---------------------------------------------------------------------------------------------
// Figures.

type Result = {
  label: string;
  side: "ours" | "node:http";
  subscribers: number;
  messages: number; // per subscriber, after its first
  p50: number;
  p99: number;
  max: number;
  cpuSeconds: number;
  cpuPerMessageUs: number;
  kbPerConnection: number;
  lost: number;
  announced: number;
  clientCpu: number;
  /** The server's CPU per message by thread (testing/cpu.ts). */
  threads: string;
};

/**
 * Delays of every message after each subscriber's first, from `origin` of its id; and what each
 * subscriber lost: an id the reference received after that subscriber's first message, which the
 * subscriber never received and was not told about by its next message.
 */
function measure(subscribers: Subscriber[], referenceIds: number[], origin: Map<number, number>) {
  const delays: number[] = [];
  let lost = 0;
  let announced = 0;
  for (const subscriber of subscribers) {
    const received = new Set(subscriber.ids);
    for (let i = 1; i < subscriber.ids.length; i++) {
      const start = origin.get(subscriber.ids[i]!);
      if (start !== undefined) delays.push(subscriber.arrivals[i]! - start);
      if (subscriber.announced.has(subscriber.ids[i]!)) announced++;
    }
    const first = subscriber.ids[0]!;
    for (const id of referenceIds) {
      if (id <= first || received.has(id)) continue;
      const next = subscriber.ids.find((mine) => mine > id);
      if (next === undefined || !subscriber.announced.has(next)) lost++;
    }
  }
  const sorted = Float64Array.from(delays).sort();
  return {
    p50: quantileOfSorted(sorted, 0.5),
    p99: quantileOfSorted(sorted, 0.99),
    max: sorted.length ? sorted[sorted.length - 1]! : NaN,
    lost,
    announced,
  };
}

type Phase = { pid: number; cpu: number; threads: ThreadCpu | null; at: number; clientCpu: number };
const phaseStart = (pid: number): Phase => ({
  pid,
  cpu: cpuSeconds(pid) ?? NaN,
  threads: threadCpuSeconds(pid),
  at: Date.now(),
  clientCpu: cpuSeconds(process.pid) ?? NaN,
});
function phaseEnd(phase: Phase) {
  const seconds = (Date.now() - phase.at) / 1000;
  const threads = threadCpuSeconds(phase.pid);
  return {
    cpuSeconds: (cpuSeconds(phase.pid) ?? NaN) - phase.cpu,
    clientCpu: ((cpuSeconds(process.pid) ?? NaN) - phase.clientCpu) / seconds,
    threads: phase.threads && threads ? threadCpuSince(phase.threads, threads) : null,
  };
}

// ---------------------------------------------------------------------------------------------
// Changes through the provider ingest.

let sequence = 1;
const initial = liveSoccer(LIVE_EVENTS, Date.now());
const eventsById = new Map(initial.map((update) => [update.event_id, update]));

/** A change of one event: its score, or the price of its first market's first outcome. */
function change(eventId: string, kind: "score" | "price"): FeedUpdate {
  sequence++;
  if (kind === "score")
    return { event_id: eventId, sequence, event: { score: { home: sequence % 9, away: sequence % 4 } } };
  return priceChange(eventsById.get(eventId)!, sequence);
}

// ---------------------------------------------------------------------------------------------
// Scenarios.

/** Our side of a scenario, then the baseline's with the frames our reference received. */
async function scenario(
  label: string,
  ours: Side,
  path: string,
  headers: Record<string, string>,
  count: number,
  steps: number,
  everyMs: number,
  changes: (k: number) => FeedUpdate[],
): Promise<Result[]> {
  // Ours.
  const before = residentBytes(ours.pid);
  const reference = await subscribeReference(`${ours.url}${path}`, headers);
  const subscribers = await subscribeAll(`${ours.url}${path}`, headers, count - 1);
  await sleep(500);
  const connected = residentBytes(ours.pid);
  const phase = phaseStart(ours.pid);
  await paced(ours.url, everyMs, changes, (k) => k < steps);
  await sleep(500);
  const lastId = reference.ids.at(-1)!;
  await delivered(subscribers, lastId, 15_000);
  const oursCost = phaseEnd(phase);
  const all = [reference, ...subscribers];
  const referenceIds = reference.ids.slice(1);
  const oursFigures = measure(all, referenceIds, reference.asOf!);
  const messages = referenceIds.length;
  await closeAll(all);
  const results: Result[] = [
    {
      label,
      side: "ours",
      subscribers: count,
      messages,
      ...oursFigures,
      ...oursCost,
      threads: threadsPerRequest(oursCost.threads, messages * count),
      cpuPerMessageUs: (oursCost.cpuSeconds / (messages * count)) * 1e6,
      kbPerConnection: (connected - before) / count / 1024,
    },
  ];

  // The baseline: the same frames, at the same moments after the start, grouped as they came.
  const baseline = await startBroadcaster();
  try {
    const frames = reference.frames!;
    await baseline.post("/snapshot", frames[0]!.frame);
    const baseBefore = residentBytes(baseline.pid);
    const baseSubscribers = await subscribeAll(baseline.url, {}, count);
    await sleep(500);
    const baseConnected = residentBytes(baseline.pid);
    const groups: { offset: number; frames: string[]; ids: number[] }[] = [];
    for (const { at, frame } of frames.slice(1)) {
      const id = Number(ID.exec(frame)![1]);
      const last = groups.at(-1);
      if (last && last.offset === at - frames[1]!.at) {
        last.frames.push(frame);
        last.ids.push(id);
      } else groups.push({ offset: at - frames[1]!.at, frames: [frame], ids: [id] });
    }
    const origin = new Map<number, number>();
    const basePhase = phaseStart(baseline.pid);
    const start = Date.now();
    for (const group of groups) {
      await sleep(Math.max(0, start + group.offset - Date.now()));
      const sentAt = Date.now();
      for (const id of group.ids) origin.set(id, sentAt);
      await baseline.post("/broadcast", group.frames.join(""));
    }
    await delivered(baseSubscribers, lastId, 15_000);
    const baseCost = phaseEnd(basePhase);
    const baseFigures = measure(baseSubscribers, referenceIds, origin);
    await closeAll(baseSubscribers);
    results.push({
      label,
      side: "node:http",
      subscribers: count,
      messages,
      ...baseFigures,
      ...baseCost,
      threads: threadsPerRequest(baseCost.threads, messages * count),
      cpuPerMessageUs: (baseCost.cpuSeconds / (messages * count)) * 1e6,
      kbPerConnection: (baseConnected - baseBefore) / count / 1024,
    });
  } finally {
    await baseline.stop();
  }
  for (const result of results) print(result);
  for (const result of results) console.log(`    CPU per message by thread on ${result.side}, µs: ${result.threads}`);
  return results;
}

const HEADER =
  `  ${"scenario".padEnd(24)}${"side".padEnd(11)}${"msgs".padStart(6)}${"p50".padStart(9)}${"p99".padStart(9)}` +
  `${"max".padStart(9)}${"server CPU".padStart(12)}${"CPU/msg".padStart(10)}${"mem/conn".padStart(10)}` +
  `${"lost".padStart(6)}${"told".padStart(6)}${"client CPU".padStart(12)}`;

function print(r: Result): void {
  console.log(
    `  ${r.label.padEnd(24)}${r.side.padEnd(11)}${String(r.messages).padStart(6)}` +
      `${`${r.p50.toFixed(0)} ms`.padStart(9)}${`${r.p99.toFixed(0)} ms`.padStart(9)}${`${r.max.toFixed(0)} ms`.padStart(9)}` +
      `${`${r.cpuSeconds.toFixed(2)} s`.padStart(12)}${`${r.cpuPerMessageUs.toFixed(1)} µs`.padStart(10)}` +
      `${`${r.kbPerConnection.toFixed(1)} KB`.padStart(10)}${String(r.lost).padStart(6)}${String(r.announced).padStart(6)}` +
      `${`${Math.round(r.clientCpu * 100)} %`.padStart(12)}`,
  );
}

/** The plan's changes for WARMUP_SECONDS to one subscriber of its stream. */
async function warmUp(
  url: string,
  plan: { path: string; everyMs: number; changes(k: number): FeedUpdate[] },
  headers: Record<string, string>,
) {
  if (WARMUP_SECONDS <= 0) return;
  const subscriber = await subscribeReference(`${url}${plan.path}`, headers);
  const began = Date.now();
  await paced(url, plan.everyMs, plan.changes, () => Date.now() - began < WARMUP_SECONDS * 1000);
  await closeAll([subscriber]);
}

/** Ingests step k's changes every `everyMs` from now, for as long as `more(k)`. */
async function paced(url: string, everyMs: number, changes: (k: number) => FeedUpdate[], more: (k: number) => boolean) {
  const began = Date.now();
  for (let k = 0; more(k); k++) {
    await ingest(url, changes(k));
    await sleep(Math.max(0, began + (k + 1) * everyMs - Date.now()));
  }
}

// ---------------------------------------------------------------------------------------------
// Run.

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "bench-streams-"));
  const at = new Date();
  const largest = Math.max(...SIZES, BOARD_SUBSCRIBERS);
  const { key } = await withDatabase({ DATA_DIR: dataDir }, async (db) => {
    await seed(db, at);
    return keyOnOwnPlan(db, { ...BENCH_PLAN, code: "bench-streams", concurrentStreams: largest * 2 + 10 }, at);
  });
  const headers = { authorization: `Bearer ${key}` };
  pin(process.pid, 1, broken);
  console.log(
    `Streams fan-out: ours (server.ts, built app, PGlite) against a plain node:http broadcaster of the same bytes.` +
      `\n${os.cpus().length} CPUs, Node ${process.version}; ` +
      (CAN_PIN ? "servers pinned to CPU 0, subscribers to CPU 1 (taskset)." : "no taskset: nothing pinned.") +
      `\nmsgs: messages per subscriber after its first; lost: changes missed without a word; told: resync or conflated messages.` +
      `\nDelay: ours from each message's as_of (the feed's record of the change), the baseline's from when it was handed the message.` +
      `\nEach scenario starts a fresh server, so that a heap grown by an earlier one does not hide its memory per connection.`,
  );
  type Plan = {
    label: string;
    path: string;
    count: number;
    steps: number;
    everyMs: number;
    changes(k: number): FeedUpdate[];
  };
  const plans: Plan[] = [
    ...SIZES.map((size) => ({
      label: `${size.toLocaleString("en")} on one event`,
      path: `/api/v1/events/${FOLLOWED}/stream`,
      count: size,
      steps: CHANGES,
      everyMs: CHANGE_EVERY_MS,
      changes: (k: number) => [change(FOLLOWED, k % 2 === 0 ? "score" : "price")],
    })),
    {
      label: `${BOARD_SUBSCRIBERS.toLocaleString("en")} on the board`,
      path: "/api/v1/odds/stream",
      count: BOARD_SUBSCRIBERS,
      steps: Math.round((BOARD_SECONDS * 1000) / BOARD_BATCH_EVERY_MS),
      everyMs: BOARD_BATCH_EVERY_MS,
      // Mostly prices, a score now and then, as a live board sees it.
      changes: (k: number) =>
        Array.from({ length: BOARD_BATCH }, (_, j) =>
          change(`bench-live-${(k * BOARD_BATCH + j) % LIVE_EVENTS}`, (k + j) % 5 === 0 ? "score" : "price"),
        ),
    },
  ];
  const results: Result[] = [];
  console.log(`\n${HEADER}`);
  try {
    for (const [i, plan] of plans.entries()) {
      const server = await startServer({ DATA_DIR: dataDir, FEED_TOKEN });
      const pid = server.process.pid!;
      pin(pid, 0, broken);
      try {
        if (i === 0) await ingest(server.url, initial);
        await sleep(1_000);
        await warmUp(server.url, plan, headers);
        const ours: Side = { url: server.url, pid, stop: () => server.stop() };
        results.push(
          ...(await scenario(plan.label, ours, plan.path, headers, plan.count, plan.steps, plan.everyMs, plan.changes)),
        );
      } finally {
        await server.stop();
      }
    }
  } catch (error) {
    broken.push(error instanceof Error ? error.message : String(error));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }

  console.log("");
  for (const r of results.filter((r) => r.side === "ours")) {
    const target = TARGETS[r.subscribers];
    const checks = [`lost ${r.lost} (none allowed)`];
    let pass = r.lost === 0;
    if (target && r.label.includes("event")) {
      checks.push(`p99 ${r.p99.toFixed(0)} ms (under ${target.p99})`);
      pass &&= r.p99 < target.p99;
      if (target.kbPerConnection !== undefined) {
        checks.push(`${r.kbPerConnection.toFixed(1)} KB per connection (under ${target.kbPerConnection})`);
        pass &&= r.kbPerConnection < target.kbPerConnection;
      }
    }
    const base = results.find((b) => b.label === r.label && b.side === "node:http");
    const beside = base
      ? `; node:http in the same run: p99 ${base.p99.toFixed(0)} ms, ${base.cpuPerMessageUs.toFixed(1)} µs per message`
      : "";
    console.log(`${pass ? "PASS" : "FAIL"}  ${r.label}: ${checks.join(", ")}${beside}`);
  }
  if (broken.length) {
    console.log(`\nSomething broke (so the exit code is 1):\n${broken.map((b) => `  ${b}`).join("\n")}`);
    process.exitCode = 1;
  }
}

await main();
