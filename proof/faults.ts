import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { OPERATOR } from "../lib/accounts/audit.ts";
import { loadConfig } from "../lib/config.ts";
import { openDatabase, rowsOf, type DatabaseHandle } from "../lib/db/index.ts";
import { revokeKey } from "../lib/keys/index.ts";
import { seed } from "../seeds/index.ts";
import { FEED_TOKEN, postUpdates } from "../testing/feed.ts";
import { keyOnOwnPlan, productionKeys } from "../testing/organisations.ts";
import { liveSoccer } from "../bench/data.ts";
import { ANSWER_LIMIT_MS, judgeAnswers, judgeStreams } from "./judge.ts";
import { ApiClient, ask, FeedDriver, Follower } from "./load.ts";
import { startPostgresCluster, type PostgresCluster } from "../testing/postgres-cluster.ts";
import { sleep, type Finding } from "./report.ts";
import { startScaleOut, type ScaleOut } from "../testing/scale-out.ts";

// The fault suite: two instances behind nginx on a PostgreSQL cluster of the suite's own, a steady
// load of API clients and stream followers through nginx, each keeping a history of what it was
// answered and what it received, and faults one after another, each followed by recovery:
// PostgreSQL stopped and started, PostgreSQL hung (SIGSTOP) and resumed, an instance killed and
// started again, a rolling restart (SIGTERM), and a key revoked while in use. Then a checker
// judges the histories (proof/judge.ts).

export type FaultOptions = {
  /** One of each fault, held briefly (inside `npm test`); else each twice, held longer. */
  short: boolean;
  log: (line: string) => void;
};

export type FaultFigures = {
  fault: string;
  seconds: number;
  requests: number;
  unavailable: number;
  messages: number;
  recoverySeconds: number | null;
  detail?: string;
};

export type FaultReport = {
  faults: FaultFigures[];
  totals: {
    requests: number;
    unavailable: number;
    messages: number;
    missed: number;
    resyncs: number;
    reconnects: number;
    admitted: number;
    stored: number;
    lost: number;
    overCounted: number;
    overCountBound: number;
  };
  revocation: {
    firstInstanceSeconds: number | null;
    secondInstanceSeconds: number | null;
    streamEndedSeconds: number | null;
  };
  findings: Finding[];
};

const API_CLIENTS = 4;
const CLIENT_PAUSE_MS = 40;
const PATHS = ["/api/v1/events?sport=soccer", "/api/v1/odds?sport=soccer"];
const FOLLOWERS = 3;
// Keys no instance has read before a fault of the database (two such faults, each twice at most).
const NEWCOMERS = 4;
const LIVE_EVENTS = 6;
const FOLLOWED = "bench-live-0";
const CHANGE_EVERY_MS = 150;
const METRICS_TOKEN = randomBytes(24).toString("base64url");

const PLAN = {
  code: "proof",
  name: "Proof",
  environment: "production" as const,
  description: "Limits the fault suite's load never reaches.",
  sports: ["soccer" as const],
  monthlyQuota: 1_000_000_000,
  requestsPerSecond: 100_000,
  concurrentStreams: 100,
  monthlyPriceCents: null,
  ordinal: 98,
};

// ---------------------------------------------------------------------------------------------
// The run.

type Fault = {
  name: string;
  /** A fault of the database: a key never seen before cannot be read meanwhile. */
  database?: true;
  /** Applies the fault, holds it, and removes it; resolves at the moment it was removed. */
  apply(): Promise<number>;
};

function faults(pg: PostgresCluster, cluster: ScaleOut, short: boolean): Fault[] {
  // Long enough for a request that waits on the database twice (2 s on each instance: nginx
  // passes a 503 on to the other) to be answered within the fault.
  const hold = short ? 5_000 : 8_000;
  const [first, second] = cluster.instances;
  const postgresStopped: Fault = {
    name: "PostgreSQL stopped, then started",
    database: true,
    async apply() {
      pg.stop();
      await sleep(hold);
      pg.start();
      return Date.now();
    },
  };
  const postgresHung: Fault = {
    name: "PostgreSQL hung (SIGSTOP), then resumed",
    database: true,
    async apply() {
      pg.hang();
      await sleep(hold);
      pg.resume();
      return Date.now();
    },
  };
  const killed: Fault = {
    name: "instance 1 killed (SIGKILL), then started",
    async apply() {
      await first!.stop("SIGKILL");
      await sleep(short ? 1_000 : 3_000);
      await first!.start();
      return Date.now();
    },
  };
  const rolling: Fault = {
    name: "rolling restart (SIGTERM, one instance at a time)",
    async apply() {
      for (const instance of [second!, first!]) {
        await instance.stop("SIGTERM");
        await instance.start();
      }
      return Date.now();
    },
  };
  const once = [postgresStopped, postgresHung, killed, rolling];
  return short ? once : [...once, ...once];
}

/** The fault suite, start to finish; everything it started is stopped whatever happens. */
export async function runFaultSuite(options: FaultOptions): Promise<FaultReport> {
  const { log } = options;
  const findings: Finding[] = [];
  const pg = await startPostgresCluster();
  let cluster: ScaleOut | undefined;
  let handle: DatabaseHandle | undefined;
  const clients: ApiClient[] = [];
  const followers: Follower[] = [];
  let driver: FeedDriver | undefined;
  try {
    log(`faults: PostgreSQL of the suite's own on port ${pg.port}`);
    handle = await openDatabase(loadConfig({ DATABASE_URL: pg.url }));
    const at = new Date();
    await seed(handle.db, at);
    const first = await keyOnOwnPlan(handle.db, PLAN, at);
    const more = await productionKeys(handle.db, first.orgId, API_CLIENTS + 1 + NEWCOMERS, at, "proof");
    const keys = [first, ...more.map(({ id, key }) => ({ key, keyId: id }))];
    const streamKey = keys[API_CLIENTS]!;
    const revokedKey = keys[API_CLIENTS + 1]!;
    const newcomers = keys.slice(API_CLIENTS + 2);

    cluster = await startScaleOut({
      instances: 2,
      databaseUrl: pg.url,
      env: { FEED_TOKEN, METRICS_TOKEN, STREAM_PING_SECONDS: "5" },
    });
    log(`faults: 2 instances behind nginx at ${cluster.url}`);
    const world = liveSoccer(LIVE_EVENTS, Date.now());
    if ((await postUpdates(cluster.url, world)).status !== 200)
      throw new Error("the first batch of events was refused");

    for (let i = 0; i < API_CLIENTS; i++) {
      clients.push(
        new ApiClient(`api client ${i + 1}`, cluster.url, keys[i]!.key, keys[i]!.keyId, PATHS, {
          pauseMs: CLIENT_PAUSE_MS,
        }),
      );
    }
    for (let i = 0; i < FOLLOWERS; i++) {
      followers.push(
        new Follower(`follower ${i + 1}`, `${cluster.url}/api/v1/events/${FOLLOWED}/stream`, streamKey.key, {
          timed: true,
        }),
      );
    }
    driver = new FeedDriver(cluster.url, world, { batch: 1, everyMs: CHANGE_EVERY_MS });
    driver.start();
    for (const client of clients) client.start();
    for (const follower of followers) follower.start();
    await sleep(2_000);

    const figures: FaultFigures[] = [];
    for (const fault of faults(pg, cluster, options.short)) {
      const began = Date.now();
      log(`faults: ${fault.name}`);
      // A client whose key no instance has read yet, during a fault of the database: its key
      // cannot be read, and it must be told so (503 with Retry-After) within the wait, not held.
      const newcomer = fault.database ? newcomers.shift() : undefined;
      const newcomerAnswer = newcomer
        ? sleep(500).then(() => ask(`${cluster!.url}/api/v1/events`, newcomer.key))
        : Promise.resolve(undefined);
      const removed = await fault.apply();
      const refused = await newcomerAnswer;
      let detail: string | undefined;
      if (newcomer && refused) {
        detail = `a key not yet read, during the fault: ${refused.status}${refused.code ? ` ${refused.code}` : ""} after ${(refused.ms / 1000).toFixed(1)} s`;
        if (!(
          refused.status === 503 &&
          refused.code === "unavailable" &&
          refused.retryAfter &&
          refused.ms <= ANSWER_LIMIT_MS
        )) {
          findings.push({
            check: fault.name,
            problem: `a key not yet read was answered ${refused.status} after ${refused.ms} ms`,
            detail: refused.code,
          });
        }
        const after = await ask(`${cluster.url}/api/v1/events`, newcomer.key);
        detail += `, then ${after.status} once recovered`;
        if (after.status !== 200)
          findings.push({
            check: fault.name,
            problem: `a key not yet read was answered ${after.status} after recovery`,
          });
      }
      // Recovered when every client has had a 200 since the fault was removed.
      const deadline = Date.now() + 30_000;
      let recovered: number | null = null;
      while (Date.now() < deadline) {
        const firsts = clients.map((c) => c.answers.find((a) => a.at >= removed && a.status === 200)?.at);
        if (firsts.every((t) => t !== undefined)) {
          recovered = Math.max(...(firsts as number[]));
          break;
        }
        await sleep(50);
      }
      await sleep(options.short ? 1_000 : 3_000);
      const ended = Date.now();
      const during = clients.flatMap((c) => c.answers.filter((a) => a.at >= began && a.at < ended));
      const messages = followers.reduce((n, f) => n + f.messagesBetween(began, ended), 0);
      figures.push({
        fault: fault.name,
        seconds: (ended - began) / 1000,
        requests: during.length,
        unavailable: during.filter((a) => a.status === 503).length,
        messages,
        recoverySeconds: recovered === null ? null : Math.max(0, recovered - removed) / 1000,
        detail,
      });
      if (recovered === null)
        findings.push({ check: fault.name, problem: "the clients were not answered 200 within 30 s of recovery" });
    }

    // A key revoked while in use: its requests on both instances and its open stream.
    const revokedFollower = new Follower(
      "revoked key's follower",
      `${cluster.instances[1]!.url}/api/v1/events/${FOLLOWED}/stream`,
      revokedKey.key,
      { stopOnRefusal: true },
    );
    revokedFollower.start();
    await sleep(1_000);
    const revokedAt = Date.now();
    await revokeKey(handle.db, revokedKey.keyId, null, { actor: OPERATOR, at: new Date() });
    const refusedOn = async (url: string) => {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        const answer = await ask(`${url}/api/v1/events`, revokedKey.key);
        if (answer.status === 401 && answer.code === "key_revoked") return (Date.now() - revokedAt) / 1000;
        await sleep(20);
      }
      return null;
    };
    const [firstInstanceSeconds = null, secondInstanceSeconds = null] = await Promise.all(
      cluster.instances.map((i) => refusedOn(i.url)),
    );
    const streamDeadline = Date.now() + 10_000;
    while (Date.now() < streamDeadline && !revokedFollower.endings.some((t) => t >= revokedAt)) await sleep(20);
    const ending = revokedFollower.endings.find((t) => t >= revokedAt);
    revokedFollower.stop();
    const revocation = {
      firstInstanceSeconds,
      secondInstanceSeconds,
      streamEndedSeconds: ending === undefined ? null : (ending - revokedAt) / 1000,
    };
    if (firstInstanceSeconds === null || secondInstanceSeconds === null) {
      findings.push({ check: "revocation", problem: "the revoked key was still served 10 s after it was revoked" });
    }
    if (revocation.streamEndedSeconds === null)
      findings.push({ check: "revocation", problem: "the revoked key's stream was still open 10 s after" });
    if (revokedFollower.refusals.some((r) => r.status === 200))
      findings.push({ check: "revocation", problem: "the revoked key opened a stream again" });
    figures.push({
      fault: "key revoked while in use",
      seconds: (Date.now() - revokedAt) / 1000,
      requests: 0,
      unavailable: 0,
      messages: 0,
      recoverySeconds: null,
      detail: `refused on instance 1 after ${firstInstanceSeconds ?? "never"} s, on instance 2 after ${secondInstanceSeconds ?? "never"} s; its stream ended after ${revocation.streamEndedSeconds ?? "never"} s`,
    });

    // The end: the load stops, the followers catch up with the followed event's last revision.
    await driver.stop();
    for (const client of clients) await client.stop();
    const [{ last }] = rowsOf<{ last: string | number }>(
      await handle.db.execute(
        sql`select coalesce(max(revision), 0) as last from event_revisions where event_id = ${FOLLOWED}`,
      ),
    ) as [{ last: string | number }];
    const catchUp = Date.now() + 10_000;
    while (Date.now() < catchUp && followers.some((f) => (f.last ?? 0) < Number(last))) await sleep(50);
    for (const follower of followers) follower.stop();

    // Every instance stopped gracefully: each flushes its meter before it ends.
    await cluster.stop();
    cluster = undefined;
    const revisions = rowsOf<{ revision: string | number }>(
      await handle.db.execute(sql`select revision from event_revisions where event_id = ${FOLLOWED} order by revision`),
    ).map((r) => Number(r.revision));

    const answers = await judgeAnswers(handle.db, clients, options.short ? 1 : 2, findings);
    const streams = judgeStreams(
      followers.map((follower) => ({ follower, revisions })),
      findings,
    );
    const totals = { ...answers, ...streams };
    return { faults: figures, totals, revocation, findings };
  } finally {
    await driver?.stop();
    for (const client of clients) await client.stop();
    for (const follower of followers) follower.stop();
    await cluster?.stop();
    await handle?.close();
    pg.destroy();
  }
}

export function formatFaultReport(report: FaultReport): string {
  const lines = ["", "Fault suite: 2 instances behind nginx, PostgreSQL of its own", ""];
  lines.push(
    `  ${"fault".padEnd(52)}${"seconds".padStart(8)}${"requests".padStart(10)}${"503s".padStart(7)}${"messages".padStart(10)}${"recovered in".padStart(14)}`,
  );
  for (const f of report.faults) {
    lines.push(
      `  ${f.fault.padEnd(52)}${f.seconds.toFixed(1).padStart(8)}${String(f.requests).padStart(10)}${String(f.unavailable).padStart(7)}${String(f.messages).padStart(10)}${(f.recoverySeconds === null ? "-" : `${f.recoverySeconds.toFixed(1)} s`).padStart(14)}`,
    );
    if (f.detail) lines.push(`    ${f.detail}`);
  }
  const t = report.totals;
  lines.push(
    "",
    `  API answers ${t.requests} (503 unavailable: ${t.unavailable}); stream messages ${t.messages}, missed ${t.missed}, resyncs ${t.resyncs}, reconnections ${t.reconnects}`,
    `  counted: ${t.admitted} answered 200, ${t.stored} stored; lost ${t.lost}, counted beyond the answers ${t.overCounted} (bound ${t.overCountBound}: unanswered requests and one per kill)`,
    "",
    report.findings.length === 0 ? "No findings." : `${report.findings.length} findings:`,
    ...report.findings.map((f) => `  ${f.check}: ${f.problem}${f.detail ? ` (${f.detail})` : ""}`),
  );
  return lines.join("\n");
}
