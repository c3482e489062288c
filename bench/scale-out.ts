// One instance against two, behind the same nginx configuration, on one PostgreSQL: what a second
// instance buys on this machine, for the API and for streams.
//
//   npm run bench:scale-out        (after `npm run build`; needs nginx, initdb and pg_ctl, wrk)
//
// A PostgreSQL cluster of the bench's own (proof/postgres-cluster.ts), two instances of the built
// app (proof/scale-out.ts), and two nginx in front of them: one passing to instance 1 only, one to
// both. Nothing is pinned: the instances, nginx and the load generator share the machine's cores,
// as they would on a real two-core host. Sides are measured in alternating rounds.
//
// - API: wrk (2 threads, BENCH_CONNECTIONS (64) connections) on GET /api/v1/events (50 upcoming
//   events) for BENCH_SECONDS (5) per round, BENCH_ROUNDS (3) rounds per side: req/s, p50, p99, and
//   CPU per request of the instances and nginx together (/proc).
// - Streams: BENCH_STREAM_SUBSCRIBERS (2,000) subscribers of one live event's stream on one key,
//   then BENCH_STREAM_CHANGES (20) changes of it, one every 250 ms: delay from each message's
//   as_of to its arrival (p50, p99) and messages lost.
//
// It prints figures only; it exits non-zero when something broke (a refused request, a lost message).
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FeedUpdate } from "../lib/feed/schemas.ts";
import { seed } from "../seeds/index.ts";
import { startPostgresCluster } from "../testing/postgres-cluster.ts";
import { startNginx, startScaleOut } from "../testing/scale-out.ts";
import { childPids, cpuSeconds } from "../testing/cpu.ts";
import { FEED_TOKEN, ingest } from "../testing/feed.ts";
import { keyOnOwnPlan, withDatabase } from "../testing/organisations.ts";
import { freePort } from "../testing/ports.ts";
import { BENCH_PLAN, liveSoccer, priceChange, upcomingEvents } from "./data.ts";
import { closeAll, delivered, subscribeAll, subscribeReference } from "./subscribers.ts";
import { median, quantileOfSorted, spread } from "./stats.ts";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SUBSCRIBERS = Number(process.env.BENCH_STREAM_SUBSCRIBERS ?? 2_000);
const CHANGES = Number(process.env.BENCH_STREAM_CHANGES ?? 20);
const CHANGE_EVERY_MS = 250;
const FOLLOWED = "bench-live-0";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const broken: string[] = [];

/** nginx's master and its worker. */
const nginxPids = (pid: number) => [pid, ...childPids(pid)];

/** CPU seconds the processes have used so far, together. */
const cpuOf = (pids: number[]) => pids.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0);

type Round = { rps: number; p50: number; p99: number; cpuPerRequest: number; requests: number };

function milliseconds(text: string): number {
  const match = /([\d.]+)(us|ms|s)/.exec(text);
  if (!match) return NaN;
  const value = Number(match[1]);
  return match[2] === "us" ? value / 1000 : match[2] === "s" ? value * 1000 : value;
}

async function wrkRound(url: string, key: string, pids: number[]): Promise<Round> {
  const before = cpuOf(pids);
  const child = spawn(
    "wrk",
    ["-t2", `-c${CONNECTIONS}`, `-d${SECONDS}s`, "--latency", "-H", `Authorization: Bearer ${key}`, url],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await new Promise((resolve) => child.on("exit", resolve));
  const after = cpuOf(pids);
  const requests = Number(/(\d+) requests in/.exec(output)?.[1] ?? 0);
  const refused = Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0);
  const errors = /Socket errors: .*/.exec(output)?.[0];
  if (refused > 0 || errors || requests === 0)
    broken.push(`${url}: ${refused} not 2xx; ${errors ?? "no socket errors"}`);
  const ok = requests - refused;
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? 0),
    p50: milliseconds(/ 50%\s+(\S+)/.exec(output)?.[1] ?? ""),
    p99: milliseconds(/ 99%\s+(\S+)/.exec(output)?.[1] ?? ""),
    cpuPerRequest: ok > 0 ? ((after - before) * 1e6) / ok : NaN,
    requests: ok,
  };
}

type StreamFigures = { subscribers: number; messages: number; p50: number; p99: number; lost: number };

let sequence = 100;
const change = (initial: FeedUpdate) => priceChange(initial, ++sequence);

async function streams(url: string, key: string, initial: FeedUpdate): Promise<StreamFigures> {
  const stream = `${url}/api/v1/events/${FOLLOWED}/stream`;
  const authorization = { authorization: `Bearer ${key}` };
  const reference = await subscribeReference(stream, authorization);
  const subscribers = await subscribeAll(stream, authorization, SUBSCRIBERS - 1, "1.0");
  await sleep(500);
  const began = Date.now();
  for (let k = 0; k < CHANGES; k++) {
    await ingest(url, [change(initial)]);
    await sleep(Math.max(0, began + (k + 1) * CHANGE_EVERY_MS - Date.now()));
  }
  await sleep(500);
  const referenceIds = reference.ids.slice(1);
  const lastId = referenceIds.at(-1) ?? 0;
  await delivered(subscribers, lastId, 15_000);
  const delays: number[] = [];
  let lost = 0;
  for (const subscriber of subscribers) {
    const got = new Set(subscriber.ids);
    lost += referenceIds.filter((id) => !got.has(id)).length;
    subscriber.ids.forEach((id, i) => {
      const asOf = reference.asOf!.get(id);
      if (i > 0 && asOf !== undefined) delays.push(subscriber.arrivals[i]! - asOf);
    });
  }
  await closeAll([reference, ...subscribers]);
  const sorted = Float64Array.from(delays).sort();
  if (lost > 0) broken.push(`streams through ${url}: ${lost} messages lost`);
  return {
    subscribers: SUBSCRIBERS,
    messages: referenceIds.length,
    p50: quantileOfSorted(sorted, 0.5),
    p99: quantileOfSorted(sorted, 0.99),
    lost,
  };
}

const fixed = (digits: number) => (n: number) => n.toFixed(digits);

async function main() {
  const pg = await startPostgresCluster();
  const root = mkdtempSync(path.join(os.tmpdir(), "bench-scale-out-"));
  chmodSync(root, 0o755); // nginx's workers (another user under root) reach their temporary folders
  let stopAll = async () => {};
  try {
    const at = new Date();
    // The organisation's streams are one pool whatever keys they use: a plan allowing both sides'
    // subscribers, with room for those of the side before that the instances have not yet seen closed.
    const plan = { ...BENCH_PLAN, code: "bench-scale-out", concurrentStreams: SUBSCRIBERS * 2 + 10 };
    const { key } = await withDatabase({ DATABASE_URL: pg.url }, async (db) => {
      await seed(db, at);
      return keyOnOwnPlan(db, plan, at);
    });

    const cluster = await startScaleOut({ instances: 2, databaseUrl: pg.url, env: { FEED_TOKEN } });
    const one = await startNginx([cluster.instances[0]!.port], await freePort(), path.join(root, "nginx-one"));
    stopAll = async () => {
      await one.stop();
      await cluster.stop();
    };
    const live = liveSoccer(20, Date.now());
    await ingest(cluster.url, [...upcomingEvents(50, Date.now()), ...live]);
    await sleep(1_000);
    const instancePids = cluster.instances.map((i) => i.server!.process.pid!);
    const sides = [
      { name: "1 instance", url: one.url, pids: [instancePids[0]!, ...nginxPids(one.pid)] },
      {
        name: "2 instances",
        url: cluster.url,
        pids: [...instancePids, ...nginxPids(cluster.nginxPid)],
      },
    ];
    const path_ = "/api/v1/events?status=upcoming";
    console.error(`bench: warm-up, then ${ROUNDS} alternating rounds of ${SECONDS} s per side`);
    for (const side of sides) await wrkRound(`${side.url}${path_}`, key, side.pids);
    const rounds = new Map<string, Round[]>(sides.map((s) => [s.name, []]));
    for (let r = 0; r < ROUNDS; r++) {
      for (const side of sides) rounds.get(side.name)!.push(await wrkRound(`${side.url}${path_}`, key, side.pids));
    }
    console.error(`bench: streams, ${SUBSCRIBERS} subscribers per side`);
    const streamFigures = new Map<string, StreamFigures>();
    for (const side of sides) streamFigures.set(side.name, await streams(side.url, key, live[0]!));

    const cpus = os.cpus();
    console.log(
      `\nOne instance against two behind nginx, one PostgreSQL (${cpus.length} × ${cpus[0]?.model.trim()}, Node ${process.version}), nothing pinned`,
    );
    console.log(
      `API: GET /api/v1/events?status=upcoming (50 events), wrk 2 threads, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s per side, alternating`,
    );
    console.log(
      `  ${"".padEnd(14)}${"req/s (min / median / max)".padStart(30)}${"p99 ms (min / median / max)".padStart(32)}${"CPU/request µs (instances + nginx)".padStart(38)}`,
    );
    for (const side of sides) {
      const r = rounds.get(side.name)!;
      console.log(
        `  ${side.name.padEnd(14)}${spread(
          r.map((x) => x.rps),
          fixed(0),
        ).padStart(30)}${spread(
          r.map((x) => x.p99),
          fixed(1),
        ).padStart(32)}${spread(
          r.map((x) => x.cpuPerRequest),
          fixed(0),
        ).padStart(38)}`,
      );
    }
    const ratio =
      median(rounds.get("2 instances")!.map((x) => x.rps)) / median(rounds.get("1 instance")!.map((x) => x.rps));
    console.log(`  two ÷ one by median req/s: ${ratio.toFixed(2)}`);
    console.log(
      `Streams: ${SUBSCRIBERS} subscribers of one event's stream through nginx, ${CHANGES} changes 250 ms apart; delay from as_of`,
    );
    for (const side of sides) {
      const s = streamFigures.get(side.name)!;
      console.log(
        `  ${side.name.padEnd(14)} messages ${s.messages}, p50 ${s.p50.toFixed(0)} ms, p99 ${s.p99.toFixed(0)} ms, lost ${s.lost}`,
      );
    }
  } finally {
    await stopAll();
    pg.destroy();
    rmSync(root, { recursive: true, force: true });
  }
  if (broken.length) {
    console.log("\nSomething broke (so the exit code is 1):");
    for (const line of broken) console.log(`  ${line}`);
    process.exitCode = 1;
  }
}

await main();
