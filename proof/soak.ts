import { randomBytes } from "node:crypto";
import { loadConfig } from "../lib/config.ts";
import { openDatabase, type DatabaseHandle } from "../lib/db/index.ts";
import { seed } from "../seeds/index.ts";
import { FEED_TOKEN, postUpdates } from "../testing/feed.ts";
import { keyOnOwnPlan, productionKeys } from "../testing/organisations.ts";
import { liveSoccer } from "../bench/data.ts";
import { quantileOfSorted } from "../bench/stats.ts";
import { judgeAnswers, judgeStreams, type AnswerTotals, type StreamTotals } from "./judge.ts";
import { ApiClient, FeedDriver, Follower } from "./load.ts";
import { startPostgresCluster } from "../testing/postgres-cluster.ts";
import { sleep, type Finding } from "./report.ts";
import { startScaleOut, type ScaleOut } from "../testing/scale-out.ts";
import { judgeSoak, type SoakSample } from "./soak-judge.ts";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { anonymousMappings, mb, readProcessMaps, residentByMapping, type ProcessMaps } from "../testing/memory-map.ts";
import {
  anonymousFromBaseline,
  collectedAtEnd,
  formatAnonymous,
  type AnonymousReport,
  type Snapshots,
} from "./soak-memory.ts";

// The soak: the two instances behind nginx on a PostgreSQL of their own (as the fault suite starts
// them) under a steady mixed load for a long time, sampled as it goes: API clients at a fixed rate,
// stream followers spread over the live events, the ingest at a fixed rate of changes, and the
// console's pages now and then. At the end the counts and the streams are judged as the fault
// suite judges them, and the samples by proof/soak-judge.ts.

export type SoakOptions = {
  minutes: number;
  /** How often each instance is sampled (60 for the hour). */
  sampleSeconds: number;
  followers: number;
  changesPerSecond: number;
  apiPerSecond: number;
  /** Where each instance's /proc/<pid>/smaps is written at each sixth of the run, for a closer look; none when unset. */
  mapsDir?: string;
  log: (line: string) => void;
};

export type SoakMinute = SoakSample & { apiP99Ms: number | null; requests: number; messages: number };

export type SoakReport = {
  options: Omit<SoakOptions, "log">;
  samples: SoakMinute[];
  answers: AnswerTotals;
  streams: StreamTotals;
  pages: { asked: number; failed: number };
  changes: { applied: number; refused: number };
  judged: boolean;
  /** Each instance's anonymous memory by stretch of address space, from the baseline's end to the run's. */
  anonymous: AnonymousReport[];
  /** The same, from the end of the load to a memory-reducing collection: what V8 held in its pool of pages. */
  collected: AnonymousReport[];
  findings: Finding[];
};

const API_CLIENTS = 4;
const STREAM_KEYS = 10;
// Not a multiple of 10: each event's consecutive changes get different prices (bench/data.ts).
const LIVE_EVENTS = 99;
const PAGE_EVERY_MS = 10_000;
const PAGES = ["/", "/board", "/status", "/console/sign-in", "/docs"];
const METRICS_TOKEN = randomBytes(24).toString("base64url");

const plan = (followers: number) => ({
  code: "soak",
  name: "Soak",
  environment: "production" as const,
  description: "Limits the soak's load never reaches.",
  sports: ["soccer" as const],
  monthlyQuota: 1_000_000_000,
  requestsPerSecond: 100_000,
  // The organisation holds every follower: the plan's streams are its, shared by its keys.
  concurrentStreams: followers + 10,
  monthlyPriceCents: null,
  ordinal: 97,
});

/** The value of a metric in Prometheus text, summed over its labels. */
function metric(text: string, name: string): number {
  let total = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(name) || (line[name.length] !== " " && line[name.length] !== "{")) continue;
    total += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return total;
}

async function sample(url: string, maps: ProcessMaps | null): Promise<Omit<SoakSample, "minute" | "instance"> | null> {
  try {
    const response = await fetch(`${url}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) return null;
    const text = await response.text();
    return {
      rssBytes: metric(text, "process_resident_memory_bytes"),
      heapBytes: metric(text, "nodejs_heap_size_used_bytes"),
      heapCommittedBytes: metric(text, "nodejs_heap_size_total_bytes"),
      externalBytes: metric(text, "nodejs_external_memory_bytes"),
      lagP99Ms: metric(text, "nodejs_eventloop_lag_p99_seconds") * 1000,
      handles: metric(text, "nodejs_active_handles_total"),
      resident: maps && residentByMapping(maps.smaps, maps.executable),
    };
  } catch {
    return null;
  }
}

/** The soak, start to finish; everything it started is stopped whatever happens. */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const { log } = options;
  const findings: Finding[] = [];
  const pg = await startPostgresCluster();
  let cluster: ScaleOut | undefined;
  let handle: DatabaseHandle | undefined;
  const clients: ApiClient[] = [];
  const followers: { follower: Follower; eventId: string }[] = [];
  let driver: FeedDriver | undefined;
  const pages = { asked: 0, failed: 0 };
  let pageTimer: NodeJS.Timeout | undefined;
  try {
    handle = await openDatabase(loadConfig({ DATABASE_URL: pg.url }));
    const at = new Date();
    await seed(handle.db, at);
    const first = await keyOnOwnPlan(handle.db, plan(options.followers), at);
    const more = await productionKeys(handle.db, first.orgId, API_CLIENTS - 1 + STREAM_KEYS, at, "soak");
    const keys = [{ key: first.key, keyId: first.keyId }, ...more.map(({ id, key }) => ({ key, keyId: id }))];
    const streamKeys = keys.slice(API_CLIENTS);

    cluster = await startScaleOut({
      instances: 2,
      databaseUrl: pg.url,
      env: { FEED_TOKEN, METRICS_TOKEN },
      inspectable: true,
    });
    log(`soak: 2 instances behind nginx at ${cluster.url}, PostgreSQL of its own on port ${pg.port}`);
    const world = liveSoccer(LIVE_EVENTS, Date.now());
    if ((await postUpdates(cluster.url, world)).status !== 200)
      throw new Error("the first batch of events was refused");

    const perClient = options.apiPerSecond / API_CLIENTS;
    for (let i = 0; i < API_CLIENTS; i++) {
      const own = `/api/v1/events/${world[i]!.event_id}`;
      const paths = ["/api/v1/events?sport=soccer", "/api/v1/odds?sport=soccer", own];
      clients.push(
        new ApiClient(`api client ${i + 1}`, cluster.url, keys[i]!.key, keys[i]!.keyId, paths, {
          perSecond: perClient,
        }),
      );
    }
    for (let i = 0; i < options.followers; i++) {
      const eventId = world[i % world.length]!.event_id;
      const key = streamKeys[i % streamKeys.length]!.key;
      followers.push({
        follower: new Follower(`follower ${i + 1}`, `${cluster.url}/api/v1/events/${eventId}/stream`, key),
        eventId,
      });
    }
    // A batch every 100 ms (fewer when the rate is low): the ingest's pace, not one post a change.
    const everyMs = Math.max(100, Math.round(1_000 / options.changesPerSecond));
    driver = new FeedDriver(cluster.url, world, {
      batch: Math.max(1, Math.round((options.changesPerSecond * everyMs) / 1_000)),
      everyMs,
    });
    driver.start();
    for (const client of clients) client.start();
    // Opened a hundred at a time, as a deploy's reconnecting clients would not all arrive at once.
    for (let i = 0; i < followers.length; i += 100) {
      for (const { follower } of followers.slice(i, i + 100)) follower.start();
      await sleep(100);
    }
    const askPage = async () => {
      pages.asked++;
      const path = PAGES[pages.asked % PAGES.length]!;
      try {
        const response = await fetch(`${cluster!.url}${path}`, {
          redirect: "manual",
          signal: AbortSignal.timeout(10_000),
        });
        await response.arrayBuffer();
        if (response.status >= 400) {
          pages.failed++;
          findings.push({ check: "console pages", problem: `${path} answered ${response.status}` });
        }
      } catch (error) {
        pages.failed++;
        findings.push({ check: "console pages", problem: `${path} failed: ${(error as Error).message}` });
      }
    };
    pageTimer = setInterval(() => void askPage(), PAGE_EVERY_MS);

    const began = Date.now();
    const samples: SoakMinute[] = [];
    // The anonymous mappings at each sixth of the run: where memory that is neither V8's heap nor
    // the allocator's brk heap grew, stretch by stretch of address space.
    const totalSamples = Math.floor((options.minutes * 60) / options.sampleSeconds);
    const mapsEvery = Math.max(1, Math.round(totalSamples / 6));
    const maps: Snapshots = new Map();
    let requestsBefore = 0;
    let messagesBefore = 0;
    for (let n = 1; n * options.sampleSeconds <= options.minutes * 60; n++) {
      await sleep(began + n * options.sampleSeconds * 1_000 - Date.now());
      const minute = (n * options.sampleSeconds) / 60;
      const since = Date.now() - options.sampleSeconds * 1_000;
      const recent = clients
        .flatMap((c) => c.answers.filter((a) => a.at >= since))
        .map((a) => a.ms)
        .sort((a, b) => a - b);
      const requests = clients.reduce((n, c) => n + c.answers.length, 0);
      const messages = followers.reduce((n, f) => n + f.follower.ids.length, 0);
      for (const instance of cluster.instances) {
        // One read of the process's mappings serves the sample's sums and, each sixth, the kept snapshot.
        const pid = instance.server?.process.pid;
        const processMaps = pid === undefined ? null : readProcessMaps(pid);
        const figures = await sample(instance.url, processMaps);
        if (!figures) {
          findings.push({ check: instance.name, problem: `its metrics could not be read at minute ${minute}` });
          continue;
        }
        samples.push({
          minute,
          instance: instance.name,
          ...figures,
          apiP99Ms: recent.length ? quantileOfSorted(recent, 0.99) : null,
          requests: requests - requestsBefore,
          messages: messages - messagesBefore,
        });
        log(formatSample(samples.at(-1)!));
        if (processMaps && n % mapsEvery === 0) {
          const { smaps } = processMaps;
          if (options.mapsDir)
            writeFileSync(path.join(options.mapsDir, `${instance.name}-minute-${minute}.smaps`), smaps);
          maps.set(instance.name, [...(maps.get(instance.name) ?? []), { minute, mappings: anonymousMappings(smaps) }]);
        }
      }
      requestsBefore = requests;
      messagesBefore = messages;
    }

    // The end: the load stops, the followers catch up with their event's last revision.
    clearInterval(pageTimer);
    await driver.stop();
    for (const client of clients) await client.stop();
    const lastOf = (eventId: string) => driver!.revisions.get(eventId)?.at(-1) ?? 0;
    const catchUp = Date.now() + 30_000;
    while (Date.now() < catchUp && followers.some((f) => (f.follower.last ?? 0) < lastOf(f.eventId))) await sleep(100);
    for (const { follower } of followers) follower.stop();
    let collected: AnonymousReport[] = [];
    try {
      collected = await collectedAtEnd(cluster.instances);
    } catch (error) {
      findings.push({ check: "memory", problem: `the collection at the end failed: ${(error as Error).message}` });
    }
    // Every instance stopped gracefully: each flushes its meter before it ends.
    await cluster.stop();
    cluster = undefined;

    const answers = await judgeAnswers(handle.db, clients, 0, findings);
    const streams = judgeStreams(
      followers.map(({ follower, eventId }) => ({ follower, revisions: driver!.revisions.get(eventId) ?? [] })),
      findings,
    );
    if (driver.refused > 0)
      findings.push({ check: "ingest", problem: `${driver.refused} changes were refused or not answered` });
    const latencies = clients.flatMap((c) => c.answers.map((a) => ({ minute: (a.at - began) / 60_000, ms: a.ms })));
    const verdict = judgeSoak(options.minutes, samples, latencies);
    findings.push(...verdict.findings);
    return {
      options: {
        minutes: options.minutes,
        sampleSeconds: options.sampleSeconds,
        followers: options.followers,
        changesPerSecond: options.changesPerSecond,
        apiPerSecond: options.apiPerSecond,
      },
      samples,
      answers,
      streams,
      pages,
      changes: { applied: driver.applied, refused: driver.refused },
      judged: verdict.judged,
      anonymous: anonymousFromBaseline(maps, options.minutes),
      collected,
      findings,
    };
  } finally {
    clearInterval(pageTimer);
    await driver?.stop();
    for (const client of clients) await client.stop();
    for (const { follower } of followers) follower.stop();
    await cluster?.stop();
    await handle?.close();
    pg.destroy();
  }
}

function formatSample(s: SoakMinute): string {
  return [
    `  ${s.minute.toFixed(1).padStart(6)}`,
    s.instance.padEnd(11),
    mb(s.rssBytes).padStart(8),
    mb(s.heapBytes).padStart(8),
    mb(s.heapCommittedBytes).padStart(8),
    mb(s.externalBytes).padStart(8),
    mb(s.rssBytes - s.heapCommittedBytes - s.externalBytes).padStart(8),
    ...(s.resident
      ? [s.resident.executable + s.resident.files, s.resident.brk, s.resident.anonymous].map(mb)
      : ["-", "-", "-"]
    ).map((figure) => figure.padStart(8)),
    s.lagP99Ms.toFixed(1).padStart(8),
    String(s.handles).padStart(8),
    (s.apiP99Ms === null ? "-" : String(s.apiP99Ms)).padStart(8),
    String(s.requests).padStart(9),
    String(s.messages).padStart(9),
  ].join(" ");
}

export const SAMPLE_HEADER = `  ${"minute".padStart(6)} ${"instance".padEnd(11)} ${"RSS MB".padStart(8)} ${"heap MB".padStart(8)} ${"V8 MB".padStart(8)} ${"ext MB".padStart(8)} ${"rest MB".padStart(8)} ${"code MB".padStart(8)} ${"brk MB".padStart(8)} ${"anon MB".padStart(8)} ${"lag p99".padStart(8)} ${"handles".padStart(8)} ${"API p99".padStart(8)} ${"requests".padStart(9)} ${"messages".padStart(9)}`;

export function formatSoakReport(report: SoakReport): string {
  const o = report.options;
  const a = report.answers;
  const s = report.streams;
  const lines = [
    "",
    `Soak: ${o.minutes} min, 2 instances behind nginx, ${o.followers} stream followers over ${LIVE_EVENTS} events, ${o.changesPerSecond} changes/s, ${o.apiPerSecond} API requests/s, a console page every ${PAGE_EVERY_MS / 1000} s`,
    "(rest: RSS less V8's heap and external memory; code, brk and anon: RSS in files mapped (Node's code, libraries), the C allocator's main heap and anonymous mappings (V8, other arenas, stacks), from /proc)",
    "(lag p99: the event loop's, ms; API p99: the clients' answers in the interval, ms; requests and messages in the interval)",
    "",
    SAMPLE_HEADER,
    ...report.samples.map(formatSample),
    "",
    `  API answers ${a.requests} (503: ${a.unavailable}); counted: ${a.admitted} answered 200, ${a.stored} stored, lost ${a.lost}, counted beyond the answers ${a.overCounted}`,
    `  stream messages ${s.messages}, missed ${s.missed}, resyncs ${s.resyncs}, reconnections ${s.reconnects}`,
    `  changes applied ${report.changes.applied}, refused ${report.changes.refused}; console pages asked ${report.pages.asked}, failed ${report.pages.failed}`,
    ...report.anonymous.flatMap(formatAnonymous),
    ...report.collected.flatMap(formatAnonymous),
    report.judged
      ? "  memory, handles and p99 judged (baseline: the run's second sixth; end: its last sixth)"
      : "  memory, handles and p99 not judged: a run under 30 minutes cannot tell growth from warm-up",
    "",
    report.findings.length === 0 ? "PASS" : `FAIL: ${report.findings.length} findings`,
    ...report.findings.slice(0, 50).map((f) => `  ${f.check}: ${f.problem}${f.detail ? ` (${f.detail})` : ""}`),
  ];
  return lines.join("\n");
}
