// Throughput and latency of the public API under load, as a ratio against plain node:http serving
// the same bytes, measured in the same run on this machine.
//
//   npm run bench:api        (serves the production build: `npm run build` first)
//
// Our server is server.ts as `npm start` runs it (a child process, production build, embedded
// PGlite in a fresh DATA_DIR, simulator off), fed through the provider ingest. The baseline is
// bench/static-server.ts, another child process, answering with the exact status, headers and body
// our server sent for the same URL, and doing nothing else. The load generator (wrk when installed,
// else autocannon in this process; BENCH_TOOL=autocannon to choose it) loads one side at a time: BENCH_CONNECTIONS connections (64), pipelining 1, BENCH_WARMUP_SECONDS (3) of
// warm-up each, then BENCH_SECONDS (10) measured per side, in BENCH_ROUNDS (5) alternating rounds.
// Loopback only.
//
// Three starts of our server on one DATA_DIR, one after the other (PGlite admits one process):
// the events list through the node:http entry, the same list through Next's route handlers
// (API_ENTRY=next, for information), then 200 live events and the odds board, plain and gzip.
// Besides req/s and latency it prints each server's CPU while measured, its CPU per request (from
// /proc, so Linux only) and the load generator's CPU: on a small machine the generator itself can be
// the limit, and then the req/s ratio flatters the slower side; CPU per request does not.
//
// The script prints figures and PASS/FAIL against the issue's thresholds; it asserts no timing.
// It ends with a non-zero code only when something broke: a server that did not start, a refused
// or failed request under load.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import os from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import autocannon from "autocannon";
import { eq } from "drizzle-orm";
import { loadConfig } from "../lib/config.ts";
import { closeDatabase, getDatabase } from "../lib/db/index.ts";
import { organisations, plans, SPORTS, type Sport } from "../lib/db/schema/index.ts";
import type { FeedUpdate } from "../lib/feed/schemas.ts";
import { admin, startServer, type RunningServer } from "../tests/integration/support/processes.ts";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const UPCOMING_EVENTS = 50;
const LIVE_EVENTS = 200;

// The issue's thresholds: ours ÷ baseline in requests per second, and p99 latency.
const EVENTS_MIN_RATIO = 0.3;
const EVENTS_GOAL_RATIO = 0.5;
const ODDS_MIN_RATIO = 0.3;
const P99_LIMIT_MS = 20;

// Share of a core above which the load generator, not the server, may be what limits a run.
const GENERATOR_LIMIT = 0.75;

const FEED_TOKEN = randomBytes(24).toString("base64url");
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

// ---------------------------------------------------------------------------------------------
// Data: what a provider would send through POST /api/feed/v1/updates (docs/feed.md).

const SIDES: Record<Sport, string[]> = {
  soccer: ["Ashford FC", "Bramley United", "Carrow Athletic", "Dunmore Rovers", "Elmstead Town", "Fairfield City"],
  basketball: ["Harbour Hawks", "Inland Owls", "Jetty Pilots", "Kingsway Kings", "Lakeside Lynx", "Moorland Bears"],
  tennis: ["A. Novak", "B. Laurent", "C. Okafor", "D. Silva", "E. Lindqvist", "F. Moreau"],
  "american-football": ["Northport Rams", "Oakvale Bison", "Pinecrest Wolves", "Quarry Miners", "Ridgeway Elk"],
  "ice-hockey": ["Stonebridge Ice", "Tidewater Seals", "Upland Lynx", "Valemount Storm", "Westfield Blades"],
  baseball: ["Amberley Aces", "Brookside Owls", "Cedar Point Reds", "Driftwood Sox", "Eastgate Mariners"],
  cs2: ["Team Helix", "Northern Lights", "Vanta Esports", "Crimson Five", "Orbit Gaming", "Paragon"],
};

const COMPETITIONS: Record<Sport, string> = {
  soccer: "Premier Division",
  basketball: "National League",
  tennis: "City Open",
  "american-football": "Coastal Conference",
  "ice-hockey": "Northern League",
  baseball: "Eastern League",
  cs2: "Masters Series",
};

function pairing(sport: Sport, n: number): { home: string; away: string } {
  const sides = SIDES[sport];
  const home = n % sides.length;
  const away = (home + 1 + (Math.floor(n / sides.length) % (sides.length - 1))) % sides.length;
  return { home: sides[home]!, away: sides[away]! };
}

const iso = (ms: number) => new Date(Math.floor(ms / MINUTE) * MINUTE).toISOString();

/** Upcoming events of every sport, an hour apart from the next hour on. */
function upcomingEvents(count: number, at: number): FeedUpdate[] {
  return Array.from({ length: count }, (_, i) => {
    const sport = SPORTS[i % SPORTS.length]!;
    return {
      event_id: `bench-up-${i}`,
      sequence: 1,
      event: {
        sport,
        competition: COMPETITIONS[sport],
        ...pairing(sport, i),
        status: "upcoming",
        feed: "official",
        kickoff: iso(at + (i + 1) * HOUR),
      },
    };
  });
}

// Decimal odds from a probability with a bookmaker's margin: above 1.0, two decimals.
const price = (probability: number) => Math.max(1.01, Math.round(100 / (probability * 1.06)) / 100);

type Market = NonNullable<FeedUpdate["markets"]>[number];

function soccerMarkets(eventId: string, n: number, sides: { home: string; away: string }, goals: number): Market[] {
  const home = 0.25 + ((n * 37) % 40) / 100;
  const draw = 0.22 + ((n * 11) % 10) / 100;
  const over = 0.3 + ((n * 13) % 40) / 100;
  const both = 0.35 + ((n * 17) % 30) / 100;
  const noGoal = 0.1 + ((n * 7) % 20) / 100;
  // Now and then a market is suspended after a chance, as a live board shows.
  const suspended = n % 25 === 0;
  const status = suspended ? ("suspended" as const) : ("open" as const);
  const outcome = (id: string, name: string, probability: number) => ({
    id,
    name,
    price: price(probability),
    status: suspended ? ("suspended" as const) : ("active" as const),
  });
  return [
    {
      id: `${eventId}:mw`,
      type: "match_winner",
      name: "Match result",
      line: null,
      status,
      outcomes: [
        outcome("home", sides.home, home),
        outcome("draw", "Draw", draw),
        outcome("away", sides.away, 1 - home - draw),
      ],
    },
    {
      id: `${eventId}:total`,
      type: "total",
      name: "Total goals",
      line: goals + 1.5,
      status,
      outcomes: [outcome("over", `Over ${goals + 1.5}`, over), outcome("under", `Under ${goals + 1.5}`, 1 - over)],
    },
    {
      id: `${eventId}:btts`,
      type: "both_teams_to_score",
      name: "Both teams to score",
      line: null,
      status,
      outcomes: [outcome("yes", "Yes", both), outcome("no", "No", 1 - both)],
    },
    {
      id: `${eventId}:ng`,
      type: "next_goal",
      name: `Goal ${goals + 1}`,
      line: null,
      status,
      outcomes: [
        outcome("home", sides.home, (1 - noGoal) * home * 1.4),
        outcome("none", "No goal", noGoal),
        outcome("away", sides.away, (1 - noGoal) * (1 - home * 1.4)),
      ],
    },
  ];
}

/** Live soccer matches at every minute of play, each with its score, statistics and four markets. */
function liveSoccer(count: number, at: number): FeedUpdate[] {
  return Array.from({ length: count }, (_, i) => {
    const id = `bench-live-${i}`;
    const minute = 1 + ((i * 7) % 89);
    const secondHalf = minute > 45;
    const score = { home: (i * 3) % 4 === 0 ? 0 : Math.floor(minute / 40), away: i % 3 === 0 ? 1 : 0 };
    const sides = pairing("soccer", i);
    const shots = 2 + Math.floor(minute / 6);
    return {
      event_id: id,
      sequence: 1,
      event: {
        sport: "soccer",
        competition: `${COMPETITIONS.soccer} ${1 + (i % 4)}`,
        ...sides,
        status: "live",
        feed: "official",
        // Kickoff as long ago as the minute of play, plus half-time in the second half.
        kickoff: iso(at - (minute + (secondHalf ? 15 : 0)) * MINUTE),
        score,
        clock: `${String(minute).padStart(2, "0")}:${String((i * 13) % 60).padStart(2, "0")}`,
        period: secondHalf ? "2nd half" : "1st half",
        stats: [
          { label: "Shots", home: shots + (i % 3), away: shots - 1 },
          {
            label: "Shots on target",
            home: Math.floor(shots / 3) + score.home,
            away: Math.floor(shots / 4) + score.away,
          },
          { label: "Corners", home: Math.floor(minute / 15), away: Math.floor(minute / 20) },
          { label: "Possession %", home: 45 + (i % 11), away: 55 - (i % 11) },
          { label: "Yellow cards", home: Math.floor(minute / 50), away: (i + minute) % 3 === 0 ? 1 : 0 },
        ],
      },
      markets: soccerMarkets(id, i, sides, score.home + score.away),
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Set-up: an organisation with a licence and a production key, on a plan the load cannot exhaust.

async function createKey(env: Record<string, string>): Promise<string> {
  await admin(["org", "create", "--name", "Bench", "--slug", "bench"], env);
  await admin(
    [
      "licence",
      "set",
      "--org",
      "bench",
      "--reference",
      "L-1",
      "--authority",
      "X",
      "--holder",
      "Bench Ltd",
      "--valid-until",
      "2030-12-31",
    ],
    env,
  );
  await admin(["plan", "set", "--org", "bench", "--plan", "pro"], env);
  const created = await admin<{ key: string }>(["key", "create", "--org", "bench", "--env", "production"], env);
  return created.key;
}

// Every plan on offer refuses this load: pro above 50 requests per second and a million a month,
// enterprise above 200 a second, while one run sends hundreds of thousands of requests at thousands
// a second. Plans cannot be edited for the benchmark: the seed rewrites the plans table from
// seeds/plans.ts on every start, and nothing in lib/ creates one. So the benchmark writes a plan of
// its own into its scratch database (the seed upserts the plans it knows and deletes none, so the
// row survives the server's start) and moves the organisation onto it. Written straight into the
// table before the server starts, and closed again, because PGlite admits one process at a time.
async function giveHeadroom(dataDir: string): Promise<void> {
  const { db } = await getDatabase(loadConfig({ DATA_DIR: dataDir }));
  try {
    await db.transaction(async (tx) => {
      await tx.insert(plans).values({
        code: "bench",
        name: "Benchmark",
        environment: "production",
        description: "Limits no benchmark reaches; exists only in bench/api.ts's scratch database.",
        sports: [...SPORTS],
        monthlyQuota: 2_000_000_000,
        requestsPerSecond: 1_000_000_000,
        concurrentStreams: 1_000,
        monthlyPriceCents: null,
        ordinal: 99,
      });
      await tx.update(organisations).set({ planCode: "bench" }).where(eq(organisations.slug, "bench"));
    });
  } finally {
    await closeDatabase();
  }
}

// ---------------------------------------------------------------------------------------------
// Processes.

async function ingest(server: RunningServer, updates: FeedUpdate[]): Promise<void> {
  const response = await fetch(`${server.url}/api/feed/v1/updates`, {
    method: "POST",
    headers: { authorization: `Bearer ${FEED_TOKEN}`, "content-type": "application/x-ndjson" },
    body: updates.map((update) => JSON.stringify(update)).join("\n"),
    signal: AbortSignal.timeout(60_000),
  });
  const answer = (await response.json()) as { data?: { applied: number; results: { status: string }[] } };
  if (response.status !== 200 || answer.data?.applied !== updates.length) {
    const refused = answer.data?.results.find((result) => result.status !== "applied") ?? answer;
    throw new Error(`the ingest answered ${response.status}: ${JSON.stringify(refused).slice(0, 1_000)}`);
  }
}

/** Polls until the answer lists `count` items: the view follows the commit through the change bus. */
async function waitForItems(url: string, headers: Record<string, string>, count: number): Promise<void> {
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

type Recorded = { status: number; headers: Record<string, string>; body: string };

// Written by node:http itself on every answer, the baseline's as well as ours.
const PER_CONNECTION_HEADERS = new Set(["date", "connection", "keep-alive", "transfer-encoding"]);

/**
 * One whole answer of our server, byte for byte as it came off the socket. node:http rather than
 * fetch, because fetch decodes a gzip body and the baseline must send the encoded bytes.
 */
function capture(url: string, headers: Record<string, string>): Promise<{ recorded: Recorded; items: number }> {
  return new Promise((resolve, reject) => {
    const request = get(url, { headers, timeout: 10_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", reject);
      response.on("end", () => {
        try {
          const body = Buffer.concat(chunks);
          if (response.statusCode !== 200)
            throw new Error(`${url} answered ${response.statusCode}: ${body.toString().slice(0, 500)}`);
          const kept: Record<string, string> = {};
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined && !PER_CONNECTION_HEADERS.has(name))
              kept[name] = Array.isArray(value) ? value.join(", ") : value;
          }
          // Next's route handlers answer in chunks; the baseline sends the same bytes with a length.
          kept["content-length"] ??= String(body.length);
          if (Number(kept["content-length"]) !== body.length)
            throw new Error(`${url}: content-length ${kept["content-length"]} for a body of ${body.length} bytes`);
          const json = kept["content-encoding"] === "gzip" ? gunzipSync(body) : body;
          const items = (JSON.parse(json.toString()) as { data: unknown[] }).data.length;
          resolve({ recorded: { status: response.statusCode, headers: kept, body: body.toString("base64") }, items });
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
    request.on("timeout", () => request.destroy(new Error(`${url}: no answer within 10 s`)));
    request.on("error", reject);
  });
}

const children = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

type Baseline = { url: string; pid: number; stop(): Promise<void> };

async function startBaseline(recorded: Recorded, dir: string, name: string): Promise<Baseline> {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(recorded));
  const child = spawn(process.execPath, [path.join(import.meta.dirname, "static-server.ts"), file], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  const exited = new Promise<void>((resolve) =>
    child.on("exit", () => {
      children.delete(child);
      resolve();
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`baseline not ready within 10 s:\n${output}`)), 10_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /Ready on (http:\/\/\S+)/.exec(output);
      if (ready) {
        clearTimeout(timer);
        resolve(ready[1]!);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    void exited.then(() => reject(new Error(`baseline exited before it was ready:\n${output}`)));
  });
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      child.kill("SIGTERM");
      await stopWithin(exited, child);
    },
  };
}

/** Waits for a child to end after SIGTERM; one still running after 15 s is killed. */
async function stopWithin(exited: Promise<unknown>, child: ChildProcess): Promise<void> {
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

async function stopServer(server: RunningServer): Promise<void> {
  await stopWithin(server.stop(), server.process);
}

// ---------------------------------------------------------------------------------------------
// Measurement.

type Figures = {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** Share of one core the server used while measured; null where /proc is not there. */
  serverCpu: number | null;
  /** The load generator's (this process's) share of one core. */
  clientCpu: number;
};

// Clock ticks of /proc/<pid>/stat: USER_HZ, 100 on every Linux build that matters here.
const TICKS_PER_SECOND = 100;

/** CPU seconds a process (all its threads) has used so far, or null off Linux. */
function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may hold spaces: utime and
    // stime are the 14th and 15th fields, the 12th and 13th after it.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

const broken: string[] = [];

/**
 * What one side did in one run of the load generator. autocannon gives every latency; wrk gives
 * its percentiles (p50, p99) and the CPU it used.
 */
type Run = {
  ok: number;
  seconds: number;
  latencies: number[] | null;
  percentiles: { p50: number; p99: number } | null;
  serverCpu: number | null;
  clientCpu: number;
};

// wrk (C, one thread per core) costs a fraction of autocannon's CPU per answer, so with large
// bodies it measures the server rather than itself. It is used when installed (Debian: `wrk`);
// BENCH_TOOL=autocannon forces autocannon.
const WRK = process.env.BENCH_TOOL !== "autocannon" && spawnSync("wrk", ["--version"]).error === undefined;
const GENERATOR = WRK ? "wrk" : "autocannon";

// Reports what the bench needs as one JSON line, from wrk's own histogram (microseconds).
const WRK_SCRIPT = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('BENCH {"requests":%d,"us":%d,"non2xx":%d,"errors":%d,"timeouts":%d,"p50":%d,"p99":%d}\\n',
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
`;
let wrkScript: string | undefined;

async function runWrk(label: string, target: Target, seconds: number): Promise<Run> {
  if (!wrkScript) {
    wrkScript = path.join(mkdtempSync(path.join(os.tmpdir(), "svc-bench-wrk-")), "report.lua");
    writeFileSync(wrkScript, WRK_SCRIPT);
  }
  const args = ["-t1", `-c${CONNECTIONS}`, `-d${seconds}s`, "--timeout", "10s", "-s", wrkScript];
  for (const [name, value] of Object.entries(target.headers)) args.push("-H", `${name}: ${value}`);
  args.push(target.url);
  const serverBefore = cpuSeconds(target.pid);
  const child = spawn("wrk", args, { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  let clientCpu = 0;
  const sampler = setInterval(() => (clientCpu = cpuSeconds(child.pid!) ?? clientCpu), 250);
  await new Promise((resolve) => child.on("close", resolve));
  clearInterval(sampler);
  const serverAfter = cpuSeconds(target.pid);
  const line = /^BENCH (.*)$/m.exec(output);
  if (!line) {
    broken.push(`${label}: wrk printed no figures: ${output.trim().slice(0, 300)}`);
    return { ok: 0, seconds, latencies: null, percentiles: { p50: NaN, p99: NaN }, serverCpu: null, clientCpu: 0 };
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
    clientCpu,
  };
}

async function run(label: string, target: Target, seconds: number): Promise<Run> {
  return WRK ? runWrk(label, target, seconds) : runAutocannon(label, target, seconds);
}

async function runAutocannon(label: string, target: Target, seconds: number): Promise<Run> {
  const latencies: number[] = [];
  const instance = autocannon({
    url: target.url,
    connections: CONNECTIONS,
    pipelining: 1,
    headers: target.headers,
    timeout: 10,
    duration: seconds,
  });
  // autocannon keeps percentiles, not its histogram; runs are merged from the latencies themselves
  // (2xx only, as autocannon counts them), in its own hrtime milliseconds.
  instance.on("response", (_client: unknown, status: number, _bytes: number, milliseconds: number) => {
    if (status >= 200 && status < 300) latencies.push(milliseconds);
  });
  const serverBefore = cpuSeconds(target.pid);
  const clientBefore = process.cpuUsage();
  const result = await instance;
  const serverAfter = cpuSeconds(target.pid);
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
    clientCpu: (client.user + client.system) / 1e6,
  };
}

const percentile = (sorted: Float64Array, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

function figures(runs: Run[]): Figures {
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
    p50: p50s.length ? p50s[Math.floor(p50s.length / 2)]! : percentile(latencies, 50),
    p99: p99s.length ? Math.max(...p99s) : percentile(latencies, 99),
    requests: runs.reduce((sum, r) => sum + r.ok, 0),
    serverCpu,
    clientCpu: runs.reduce((sum, r) => sum + r.clientCpu, 0) / seconds,
  };
}

type Target = { url: string; headers: Record<string, string>; pid: number };

/**
 * Both sides warmed up, then measured in alternating rounds: on a machine that also runs other
 * work, whatever slows one round slows both sides about equally, where one long run per side
 * would put a burst of other work on one side only.
 */
async function measurePair(
  title: string,
  baseline: Target,
  ours: Target,
): Promise<{ baseline: Figures; ours: Figures }> {
  console.error(
    `bench: ${title}: ${WARMUP_SECONDS} s warm-up each, then ${ROUNDS} alternating rounds, ${SECONDS} s each side`,
  );
  await run(`${title}, baseline warm-up`, baseline, WARMUP_SECONDS);
  await run(`${title}, ours warm-up`, ours, WARMUP_SECONDS);
  const baselineRuns: Run[] = [];
  const oursRuns: Run[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    baselineRuns.push(await run(`${title}, baseline`, baseline, SECONDS / ROUNDS));
    oursRuns.push(await run(`${title}, ours`, ours, SECONDS / ROUNDS));
  }
  return { baseline: figures(baselineRuns), ours: figures(oursRuns) };
}

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
    await baselineServer.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Report, in the style of bench/ingest.ts.

const fmt = (n: number) => Math.round(n).toLocaleString("en");
const ms = (n: number) => `${n.toFixed(1)} ms`;
const percent = (share: number | null) => (share === null ? "n/a" : `${Math.round(share * 100)} %`);
const cpuPerRequest = (figures: Figures) =>
  figures.serverCpu === null ? null : (figures.serverCpu * 1e6) / Math.max(1, figures.rps);

function row(label: string, figures: Figures, tail = ""): string {
  const perRequest = cpuPerRequest(figures);
  return (
    `  ${label.padEnd(28)}${fmt(figures.rps).padStart(9)}${ms(figures.p50).padStart(10)}${ms(figures.p99).padStart(10)}` +
    `${percent(figures.serverCpu).padStart(12)}${(perRequest === null ? "n/a" : `${fmt(perRequest)} µs`).padStart(13)}` +
    `${percent(figures.clientCpu).padStart(12)}${tail}`
  );
}

const HEADER = `  ${"".padEnd(28)}${"req/s".padStart(9)}${"p50".padStart(10)}${"p99".padStart(10)}${"server CPU".padStart(12)}${"CPU/request".padStart(13)}${"client CPU".padStart(12)}`;

function verdict(ratio: number, p99: number, minRatio: number, goalRatio?: number): string {
  const misses: string[] = [];
  if (ratio < minRatio) misses.push(`ratio under ${minRatio}`);
  if (p99 >= P99_LIMIT_MS) misses.push(`p99 not under ${P99_LIMIT_MS} ms`);
  if (misses.length) return `FAIL (${misses.join(", ")})`;
  const goal =
    goalRatio === undefined ? "" : ratio >= goalRatio ? `, goal ${goalRatio} met` : `, goal ${goalRatio} not met`;
  return `PASS (ratio ≥ ${minRatio}${goal}, p99 < ${P99_LIMIT_MS} ms)`;
}

function report(comparison: Comparison, judge: (ratio: number, p99: number) => string): void {
  const { baseline, ours } = comparison;
  const ratio = ours.rps / baseline.rps;
  console.log(`${comparison.title} (${fmt(comparison.bytes)}-byte answer)`);
  console.log(HEADER);
  console.log(row("baseline (plain node:http)", baseline));
  console.log(row(comparison.oursLabel, ours, `   ratio ${ratio.toFixed(2)}`));
  console.log(`  ${judge(ratio, ours.p99)}`);
  const oursCost = cpuPerRequest(ours);
  const baselineCost = cpuPerRequest(baseline);
  // When the load generator is near a whole core, req/s and latency are as much its figures as the
  // server's (autocannon decodes every response body into a string, which for the large odds
  // board is most of its work; wrk does far less). CPU per request does not depend on it.
  if (oursCost !== null && baselineCost !== null) {
    const client = Math.max(baseline.clientCpu, ours.clientCpu);
    const generatorBound =
      client >= GENERATOR_LIMIT
        ? `; the load generator used ${percent(client)} of a core, so req/s and latency are partly its own`
        : "";
    console.log(
      `  server CPU per request: ours ${(oursCost / baselineCost).toFixed(1)} × the baseline's (ratio by CPU ${(baselineCost / oursCost).toFixed(2)})${generatorBound}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-bench-api-"));
  const dataDir = path.join(dir, "data");
  const env = { DATA_DIR: dataDir, FEED_TOKEN };
  let server: RunningServer | undefined;
  try {
    console.error("bench: creating the organisation, licence, plan and key");
    const key = await createKey(env);
    await giveHeadroom(dataDir);
    const headers = { authorization: `Bearer ${key}` };
    const at = Date.now();

    // One DATA_DIR, so three starts one after the other (PGlite admits one process): the events
    // list is measured on both entries over the same 50 events, before the live ones exist, so the
    // default page (limit 50) is the whole list.
    console.error("bench: events through the node:http entry");
    server = await startServer({ ...env, API_ENTRY: "node" });
    await ingest(server, upcomingEvents(UPCOMING_EVENTS, at));
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
    await ingest(server, liveSoccer(LIVE_EVENTS, at));
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
    await stopServer(server);
    server = undefined;

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
    console.log("");
    report(events, (ratio, p99) => verdict(ratio, p99, EVENTS_MIN_RATIO, EVENTS_GOAL_RATIO));
    console.log("");
    report(odds, (ratio, p99) => verdict(ratio, p99, ODDS_MIN_RATIO));
    console.log("");
    report(
      oddsGzip,
      (ratio, p99) =>
        `no threshold (information only; against the odds thresholds: ${verdict(ratio, p99, ODDS_MIN_RATIO)})`,
    );
    console.log("");
    if (typeof eventsNext === "string") {
      console.log(nextTitle);
      console.log(`  not measured: ${eventsNext}`);
    } else {
      report(eventsNext, () => "no threshold (information only)");
    }
    if (broken.length) {
      console.log("");
      console.log("Something broke (so the exit code is 1):");
      for (const line of broken) console.log(`  ${line}`);
      process.exitCode = 1;
    }
  } catch (error) {
    if (server) console.error(`bench: our server's output:\n${server.output()}`);
    throw error;
  } finally {
    if (server) await stopServer(server);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
