import { sql } from "drizzle-orm";
import { openDatabase, rowsOf } from "../lib/db/index.ts";
import { forgetHistory } from "../testing/history.ts";
import type { Backend, TestDatabase } from "../testing/databases.ts";
import { residentBytes } from "../testing/cpu.ts";
import { heldAfterCollection, type Held } from "../testing/inspector.ts";
import { anonymousGrowth, anonymousMappings, mb, readProcessMaps, type ProcessMaps } from "../testing/memory-map.ts";
import { freePort } from "../testing/ports.ts";
import { FEED_TOKEN, ingest } from "../testing/feed.ts";
import { logFindings, recordSecret } from "../testing/logs.ts";
import { organisationWithKeys } from "../testing/organisations.ts";
import { admin, runAdmin, startServer, type RunningServer } from "../testing/processes.ts";
import { OPERATOR } from "../lib/accounts/audit.ts";
import { createSandboxKey } from "../lib/keys/index.ts";
import { createOrganisation } from "../lib/accounts/organisations.ts";
import { addMember } from "../lib/accounts/users.ts";
import {
  asteriskFormAbuse,
  changesBound,
  changesWhileRunning,
  headerAbuse,
  ingestAbuse,
  keyFlood,
  keyInPath,
  memberReads,
  streamAbuse,
  type CheckResult,
  type Members,
  type Operator,
  type Target,
} from "./checks.ts";
import { consoleAbuse, consoleMember } from "./console-checks.ts";
import { fuzzCases, OPERATIONS, runFuzz, type FuzzContext } from "./fuzz.ts";
import { sleep, Tally, type Finding } from "./report.ts";
import { formatAnonymous } from "./soak-memory.ts";

// The abuse suite: one server on a database of its own, the fuzzer over every operation of the
// OpenAPI document, then the abuse checks, then whether the service came through: still ready, its
// objects' memory back near what it was, and its organisations, keys and events as they were.

export type AbuseOptions = {
  backend: Backend;
  /** Fuzz cases (FUZZ_CASES). */
  cases: number;
  /** The seed of the cases (FUZZ_SEED): the same seed gives the same cases. */
  seed: number;
  /** A short run (inside `npm test`): fewer keys flooded, a smaller stream storm. */
  short: boolean;
  /** Stops fuzzing when this much time has passed, whatever is left. */
  fuzzSeconds: number;
  log: (line: string) => void;
};

export type AbuseReport = {
  seed: number;
  backend: string;
  cases: number;
  casesPlanned: number;
  fuzzSeconds: number;
  statuses: Record<string, number>;
  invalidCases: number;
  invalidNot4xx: number;
  figures: Record<string, string | number>;
  findings: Finding[];
};

const METRICS_TOKEN = "metrics-token-for-the-abuse-suite";
const HEADERS_TIMEOUT_SECONDS = 2;
const STREAM_BUFFER_BYTES = 65_536;
const SPORTS_MARKETS: Record<string, string[]> = {
  soccer: ["match_winner", "total"],
  basketball: ["match_winner", "handicap", "total"],
  tennis: ["match_winner", "set_winner"],
  "american-football": ["match_winner", "total"],
  "ice-hockey": ["match_winner", "next_goal"],
  baseball: ["match_winner", "total"],
  cs2: ["match_winner", "map_winner"],
};

/** Live, upcoming and finished events of every sport, with markets and lineups. */
function world(): { updates: unknown[]; live: string[]; all: string[] } {
  const updates: unknown[] = [];
  const live: string[] = [];
  const all: string[] = [];
  const at = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
  for (const [sport, types] of Object.entries(SPORTS_MARKETS)) {
    for (const [n, status] of ["live", "live", "upcoming", "finished"].entries()) {
      const id = `abuse-${sport}-${n}`;
      all.push(id);
      if (status === "live") live.push(id);
      const players = (side: string) =>
        Array.from({ length: 5 }, (_, i) => ({ number: i + 1, name: `${side} player ${i + 1}`, position: "P" }));
      updates.push({
        event_id: id,
        sequence: 1,
        event: {
          sport,
          competition: `${sport} abuse cup`,
          home: `${id} home`,
          away: `${id} away`,
          status: status === "finished" ? "live" : status,
          feed: "official",
          kickoff: at(status === "upcoming" ? 90 + n : -30 - n),
        },
        lineups: { home: players("Home"), away: players("Away") },
        ...(status === "upcoming"
          ? {}
          : {
              markets: types.map((type) => ({
                id: `${id}:${type}`,
                type,
                name: type,
                line: type === "total" ? 2.5 : null,
                status: "open",
                outcomes: [
                  { id: `${id}:${type}:a`, name: "A", price: 1.85, status: "active" },
                  { id: `${id}:${type}:b`, name: "B", price: 2.05, status: "active" },
                ],
              })),
            }),
      });
      updates.push({ event_id: id, sequence: 2, event: { score: { home: 1, away: 0 }, clock: "10:00" } });
      if (status === "finished") updates.push({ event_id: id, sequence: 3, event: { status: "finished" } });
    }
  }
  return { updates, live, all };
}

/** A member of the abuse organisation, and one of an organisation without a licence or plan. */
async function addMembers(database: TestDatabase, orgId: string): Promise<Members> {
  const password = "an abuse member password";
  const handle = await openDatabase(database.config);
  try {
    const { db } = handle;
    const at = new Date();
    const licensed = { email: "member@abuse.test", password };
    await addMember(db, { orgId, email: licensed.email, name: "Member", password, role: "viewer" }, OPERATOR);
    const other = await createOrganisation(db, { name: "Abuse unlicensed", slug: "abuse-unlicensed" }, OPERATOR);
    const unlicensed = { email: "member@unlicensed.test", password, sandboxSport: "tennis" };
    await createSandboxKey(db, other.id, { sport: "tennis" }, { actor: OPERATOR, at, ttlDays: 30 });
    await addMember(
      db,
      { orgId: other.id, email: unlicensed.email, name: "Member", password, role: "admin" },
      OPERATOR,
    );
    recordSecret(password);
    return { licensed, unlicensed };
  } finally {
    await handle.close();
  }
}

type Counts = Record<"organisations" | "api_keys" | "events", number>;

async function counts(database: TestDatabase): Promise<Counts> {
  const handle = await openDatabase(database.config);
  try {
    const result: Partial<Counts> = {};
    for (const table of ["organisations", "api_keys", "events"] as const) {
      const [row] = rowsOf<{ n: number | string }>(
        await handle.db.execute(sql.raw(`select count(*) as n from ${table}`)),
      );
      result[table] = Number(row!.n);
    }
    return result as Counts;
  } finally {
    await handle.close();
  }
}

async function readiness(server: RunningServer): Promise<number> {
  return (await fetch(`${server.url}/readyz`)).status;
}

export async function runAbuseSuite(options: AbuseOptions): Promise<AbuseReport> {
  const { log } = options;
  const findings: Finding[] = [];
  const figures: Record<string, string | number> = {};
  const database = await options.backend.create();
  let server: RunningServer | undefined;
  try {
    // Keys first: PGlite belongs to one process, and the operator CLI is one.
    const env = database.env;
    const org = await organisationWithKeys(env, "abuse", { plan: "enterprise", sandboxSport: "soccer" });
    const production = [org.production.key];
    const member = await consoleMember(env, org.orgId);
    // More keys, more requests per second within each key's limit (a short run needs one).
    for (let i = 0; i < (options.short ? 0 : 3); i++) {
      const extra = await admin<{ key: string }>(["key", "create", "--org", "abuse", "--env", "production"], env);
      production.push(extra.key);
    }
    const members = await addMembers(database, org.orgId);
    // A key whose IP allowlist the operator changes while its stream is open (changesWhileRunning).
    const allowlisted = await admin<{ id: string; key: string }>(
      ["key", "create", "--org", "abuse", "--env", "production", "--name", "allowlisted"],
      env,
    );
    // The memory check compares what the server holds after a memory-reducing collection at both
    // ends, asked through its inspector: V8's pool of emptied pages is not what the abuse left.
    const inspectPort = await freePort();
    const start = () =>
      startServer(
        {
          ...env,
          FEED_TOKEN,
          METRICS_TOKEN,
          HEADERS_TIMEOUT_SECONDS: String(HEADERS_TIMEOUT_SECONDS),
          STREAM_BUFFER_BYTES: String(STREAM_BUFFER_BYTES),
          STREAM_PING_SECONDS: "1",
          // The sandbox's view holds the last SANDBOX_DELAY_SECONDS of revisions in memory: a short
          // delay lets the memory the stream storm's revisions took come back before the last check.
          SANDBOX_DELAY_SECONDS: "5",
        },
        { inspectPort },
      );
    server = await start();
    const { updates, live, all } = world();
    const latest = await ingest(server.url, updates);
    // What the database holds before the abuse; PGlite is the server's alone while it runs.
    let before: Counts;
    if (options.backend.name === "pglite") {
      await server.stop();
      before = await counts(database);
      server = await start();
    } else {
      before = await counts(database);
    }
    const running = server;
    const page = await fetch(`${running.url}/api/v1/events?limit=3`, { headers: { "x-api-key": production[0]! } });
    const cursor = ((await page.json()) as { meta: { next_cursor: string | null } }).meta.next_cursor;
    if (!cursor) throw new Error("the events list gave no cursor to fuzz with");

    const context: FuzzContext = {
      baseUrl: running.url,
      keys: production,
      // The enterprise plan's 200, less what is in flight when a second turns (16 at most).
      requestsPerSecond: 150,
      eventIds: all,
      cursors: [cursor],
      revisions: [1, Math.floor(latest / 2), latest - 1],
      // After the world's last creation, within the history: every event existed then.
      moments: [String(latest - 1), String(latest), new Date().toISOString()],
      markets: updates.flatMap((update) => {
        const { event_id: eventId, markets } = update as { event_id: string; markets?: { id: string }[] };
        return (markets ?? []).map((market) => ({ eventId, marketId: market.id }));
      }),
    };
    const pid = running.process.pid!;
    const heldStart = await heldAfterCollection(pid, inspectPort);
    const mapsStart = readProcessMaps(pid);

    // The fuzzer.
    const cases = fuzzCases(context, options.cases, options.seed);
    const tally = new Tally();
    const started = performance.now();
    log(`fuzzing: ${cases.length} cases over ${OPERATIONS.length} operations, seed ${options.seed}`);
    findings.push(
      ...(await runFuzz(cases, context, {
        concurrency: 16,
        tally,
        deadline: Date.now() + options.fuzzSeconds * 1000,
      })),
    );
    const fuzzSeconds = (performance.now() - started) / 1000;
    if (tally.cases < cases.length) {
      findings.push({
        check: "fuzz",
        problem: `only ${tally.cases} of ${cases.length} cases ran within ${options.fuzzSeconds} s`,
      });
    }
    log(`fuzzing: ${tally.cases} cases in ${fuzzSeconds.toFixed(1)} s, ${findings.length} findings`);

    // The abuse checks.
    const target: Target = {
      baseUrl: running.url,
      pid: running.process.pid!,
      metricsToken: METRICS_TOKEN,
      feedToken: FEED_TOKEN,
      production,
      sandbox: org.sandbox.key,
      liveEventIds: live,
      headersTimeoutSeconds: HEADERS_TIMEOUT_SECONDS,
      streamBufferBytes: STREAM_BUFFER_BYTES,
      prune:
        options.backend.name === "postgres"
          ? async () => {
              const handle = await openDatabase(database.config);
              await forgetHistory(handle.db);
              await handle.close();
            }
          : undefined,
      ingest: (more) => ingest(running.url, more),
      members,
    };
    const checks: [string, () => Promise<CheckResult>][] = [
      ["headers", () => headerAbuse(target)],
      ["member reads", () => memberReads(target)],
      ["key in path", () => keyInPath(target)],
      ["ingest", () => ingestAbuse(target, options.short ? 300 : 3_000)],
      ["streams", () => streamAbuse(target, options.short ? 8 : 20)],
      ["console", () => consoleAbuse({ baseUrl: running.url, member })],
      ["request target", () => asteriskFormAbuse(target)],
      // Moves one event's sequence far on: after every check that ingests.
      ["changes", () => changesBound(target, 10_050)],
      // Last: after the flood, this address may bring no key the instance has not read for a minute.
      [
        "keys",
        () =>
          keyFlood(target, options.short ? 3_000 : 20_000, options.short ? 400 : 2_000, options.short ? 2_000 : 20_000),
      ],
    ];
    // Last, after the flood from this address: the operator's CLI beside the server (PostgreSQL only).
    if (options.backend.name === "postgres") {
      const operator: Operator = {
        async createKey() {
          const created = await admin<{ key: string }>(["key", "create", "--org", "abuse", "--env", "production"], env);
          before.api_keys += 1; // the one key this check adds
          return created.key;
        },
        allowlisted,
        async limitKey(keyId, allowlist) {
          await admin(["key", "update", "--id", keyId, "--allow-ips", allowlist], env);
        },
        async addWebhook(url) {
          const result = await runAdmin(["webhook", "add", "--org", "abuse", "--url", url], env);
          return result.code === 0 ? null : result.stderr.trim();
        },
      };
      checks.push(["changes while running", () => changesWhileRunning(target, operator)]);
    }
    for (const [name, check] of checks) {
      const checkStarted = performance.now();
      try {
        const result = await check();
        findings.push(...result.findings);
        Object.assign(figures, result.figures);
      } catch (error) {
        findings.push({ check: name, problem: `the check itself failed: ${(error as Error).stack}` });
      }
      log(`${name}: done in ${((performance.now() - checkStarted) / 1000).toFixed(1)} s`);
    }

    // Afterwards: still ready, its objects' memory back near what it was, the data as it was.
    const ready = await readiness(running);
    figures["/readyz afterwards"] = ready;
    if (ready !== 200) findings.push({ check: "afterwards", problem: `/readyz answered ${ready}` });
    // What the server's objects hold (V8's live heap and the Buffers outside it), each after a
    // memory-reducing collection: V8's pool of emptied pages and the C allocator's free lists are
    // not what the abuse left, and the first use of a page or an operation loads its code for good.
    figures["server memory (RSS) at the end, before the collection"] = `${mb(residentBytes(pid))} MB`;
    let heldEnd = await heldAfterCollection(pid, inspectPort);
    for (let waited = 0; grown(heldStart, heldEnd) > HELD_GROWTH_ALLOWED && waited < 30_000; waited += 1_000) {
      await sleep(1_000);
      heldEnd = await heldAfterCollection(pid, inspectPort);
    }
    figures["server memory after a memory-reducing collection"] =
      `${describeHeld(heldStart)} before, ${describeHeld(heldEnd)} after`;
    if (grown(heldStart, heldEnd) > HELD_GROWTH_ALLOWED) {
      findings.push({
        check: "afterwards",
        problem: `the memory the server's objects hold grew by ${mb(grown(heldStart, heldEnd))} MB`,
        detail: anonymousDetail(mapsStart, readProcessMaps(pid)),
      });
    }
    const code = await running.stop();
    if (code !== 0) findings.push({ check: "afterwards", problem: `the server exited with ${code} when stopped` });
    const end = await counts(database);
    figures["organisations, keys, events"] = `${JSON.stringify(before)} before, ${JSON.stringify(end)} after`;
    if (JSON.stringify(end) !== JSON.stringify(before) || end.events !== all.length) {
      findings.push({
        check: "afterwards",
        problem: `the database changed: ${JSON.stringify(before)} before, ${JSON.stringify(end)} after`,
      });
    }
    for (const finding of logFindings()) {
      findings.push({ check: "logs", problem: finding.problem, detail: finding.line.slice(0, 300) });
    }

    return {
      seed: options.seed,
      backend: options.backend.name,
      cases: tally.cases,
      casesPlanned: cases.length,
      fuzzSeconds,
      statuses: Object.fromEntries([...tally.statuses].sort(([a], [b]) => a.localeCompare(b))),
      invalidCases: tally.invalidCases,
      invalidNot4xx: tally.invalidNot4xx,
      figures,
      findings,
    };
  } finally {
    await server?.stop();
    await database.drop();
  }
}

/** The report as people read it: the figures, then every finding (the first 50 of each check). */
export function formatReport(report: AbuseReport): string {
  const lines = [
    `abuse suite on ${report.backend}, seed ${report.seed} (FUZZ_SEED=${report.seed} repeats these cases)`,
    `fuzz cases: ${report.cases} of ${report.casesPlanned} in ${report.fuzzSeconds.toFixed(1)} s`,
    `statuses seen: ${Object.entries(report.statuses)
      .map(([label, n]) => `${label}×${n}`)
      .join(", ")}`,
    `invalid input: ${report.invalidCases} cases, answered other than 4xx: ${report.invalidNot4xx}`,
    ...Object.entries(report.figures).map(([name, value]) => `${name}: ${value}`),
    `findings: ${report.findings.length}`,
  ];
  const shown = new Map<string, number>();
  for (const finding of report.findings) {
    const n = (shown.get(finding.check) ?? 0) + 1;
    shown.set(finding.check, n);
    if (n <= 50)
      lines.push(`  [${finding.check}] ${finding.problem}${finding.detail ? `\n      ${finding.detail}` : ""}`);
  }
  return lines.join("\n");
}

/** Where the anonymous memory grew between two snapshots of the server, for a finding's detail. */
function anonymousDetail(before: ProcessMaps | null, after: ProcessMaps | null): string | undefined {
  if (!before || !after) return undefined;
  const changes = anonymousGrowth(anonymousMappings(before.smaps), anonymousMappings(after.smaps));
  return formatAnonymous({ instance: "the server", from: "the start", to: "the end", changes }).join("\n");
}

/** 50 MB: more than the first use of every page and operation compiles and keeps. */
const HELD_GROWTH_ALLOWED = 50 * 2 ** 20;
const grown = (before: Held, after: Held) => after.heapUsed + after.external - (before.heapUsed + before.external);
const describeHeld = (held: Held) =>
  `heap ${mb(held.heapUsed)} MB + external ${mb(held.external)} MB (RSS ${mb(held.rss)} MB)`;
