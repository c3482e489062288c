import { Agent, get } from "node:http";
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { openDatabase } from "../../lib/db/index.ts";
import { SPORTS } from "../../lib/db/schema/index.ts";
import { seed } from "../../seeds/index.ts";
import { BACKENDS, POSTGRES, useTestDatabase, type TestDatabase } from "../../testing/databases.ts";
import { freshDataDir } from "../../testing/data-dirs.ts";
import { keyOnOwnPlan, storedRequests } from "../../testing/organisations.ts";
import { startServer, type RunningServer } from "../../testing/processes.ts";

// Metering through HTTP against real server processes: 10,000 concurrent requests against one
// instance and against two sharing PostgreSQL, then the count stored equals the answers that said
// admitted; a quota of N admits exactly N; `kill -9` under load, restart, and nothing admitted is
// missing. The meter's own rules (rollover, windows, replay) are in meter.test.ts.

const REQUESTS = 10_000;
// Requests in flight at once: the client queues all 10,000 at once on this many connections.
const CONNECTIONS = 200;
// Enough queued that the kill lands mid-load: each request left after it fails on its own.
const UNDER_LOAD = 20_000;

type Limits = { monthlyQuota: number; requestsPerSecond: number };
type Answer = { status: number; used?: number; code?: string };

let plansMade = 0;

/** A production key on a plan of the limits a test needs. */
async function keyWithLimits(database: TestDatabase, limits: Limits): Promise<{ key: string; keyId: string }> {
  const handle = await openDatabase(database.config);
  try {
    const at = new Date();
    await seed(handle.db, at);
    const code = `metering-${++plansMade}`;
    return await keyOnOwnPlan(
      handle.db,
      {
        code,
        name: `Metering ${plansMade}`,
        environment: "production",
        description: "A plan of the metering tests.",
        sports: [...SPORTS],
        ...limits,
        concurrentStreams: 10,
        monthlyPriceCents: null,
        ordinal: 100 + plansMade,
      },
      at,
    );
  } finally {
    await handle.close();
  }
}

async function storedCount(database: TestDatabase, keyId: string): Promise<number> {
  const handle = await openDatabase(database.config);
  try {
    return await storedRequests(handle.db, keyId);
  } finally {
    await handle.close();
  }
}

/** GET /api/v1/me with the key; a connection the server dropped (killed) is status 0. */
function request(agent: Agent, url: string, key: string): Promise<Answer> {
  return new Promise((resolve) => {
    const req = get(`${url}/api/v1/me`, { agent, headers: { "x-api-key": key } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", () => resolve({ status: 0 }));
      res.on("end", () => {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as {
          meta?: { requests_used: number };
          code?: string;
        };
        resolve({ status: res.statusCode ?? 0, used: body.meta?.requests_used, code: body.code });
      });
    });
    req.on("error", () => resolve({ status: 0 }));
  });
}

/** Sends `count` requests at once, spread over the servers in turn; `answered` hears each answer as it comes. */
function flood(servers: string[], key: string, count: number, answered?: (answer: Answer) => void): Promise<Answer[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      request(agent, servers[i % servers.length]!, key).then((answer) => {
        answered?.(answer);
        return answer;
      }),
    ),
  ).finally(() => agent.destroy());
}

const admittedOf = (answers: Answer[]) => answers.filter((a) => a.status === 200);

for (const backend of BACKENDS) {
  describe(`metering one instance on ${backend.name}`, () => {
    const database = useTestDatabase(backend);
    const env = () => ({ ...database().env, SIM: "off" });

    it(`admits exactly a quota of N out of ${REQUESTS} concurrent requests, and stores exactly what it admitted`, async () => {
      const quota = 7_000;
      const { key, keyId } = await keyWithLimits(database(), { monthlyQuota: quota, requestsPerSecond: 1_000_000 });
      const server = await startServer(env());
      let answers: Answer[];
      try {
        answers = await flood([server.url], key, REQUESTS);
      } finally {
        expect(await server.stop()).toBe(0);
      }
      const admitted = admittedOf(answers);
      expect(admitted.length).toBe(quota);
      // Every admitted answer has its own count, 1 to N: none counted twice, none skipped.
      expect(new Set(admitted.map((a) => a.used)).size).toBe(quota);
      expect(Math.max(...admitted.map((a) => a.used!))).toBe(quota);
      const refused = answers.filter((a) => a.status === 429);
      expect(refused.length).toBe(REQUESTS - quota);
      expect(refused.every((a) => a.code === "quota_exceeded")).toBe(true);
      expect(await storedCount(database(), keyId)).toBe(quota);
    });

    it("loses no admitted request when the instance is killed with SIGKILL under load", async () => {
      const { key, keyId } = await keyWithLimits(database(), {
        monthlyQuota: 1_000_000_000,
        requestsPerSecond: 1_000_000,
      });
      const server = await startServer(env());
      // Killed as soon as the flood itself has seen 3,000 admitted, while the rest are still being
      // answered, whatever it had flushed by then. (Asking the server for its count instead could, on
      // a busy machine, take until the whole flood was answered and flushed: nothing left to replay.)
      let admitted = 0;
      const answers = flood([server.url], key, UNDER_LOAD, (answer) => {
        if (answer.status === 200 && ++admitted === 3_000) server.process.kill("SIGKILL");
      });
      const seen = admittedOf(await answers);
      expect(seen.length).toBeGreaterThanOrEqual(3_000);
      expect(seen.length, "the kill landed after the whole load was answered").toBeLessThan(UNDER_LOAD);

      const restarted = await startServer(env());
      try {
        expect(restarted.output()).toMatch(/Metering: \d+ requests replayed/);
        const after = await request(new Agent(), restarted.url, key);
        // The restart replayed the journal before answering: at least every answer seen, plus this one.
        expect(after.used).toBeGreaterThanOrEqual(seen.length + 1);
        // And no more than what may have been admitted without its answer arriving.
        expect(after.used).toBeLessThanOrEqual(seen.length + CONNECTIONS + 1);
      } finally {
        expect(await restarted.stop()).toBe(0);
      }
      const stored = await storedCount(database(), keyId);
      expect(stored).toBeGreaterThanOrEqual(seen.length + 1);
      expect(stored).toBeLessThanOrEqual(seen.length + CONNECTIONS + 1);
    });
  });
}

/** Resolves once the server has admitted at least `count` requests of the key (by its own count). */
async function waitForAnswers(server: RunningServer, key: string, count: number): Promise<void> {
  const agent = new Agent();
  for (let i = 0; i < 300; i++) {
    const answer = await request(agent, server.url, key);
    if ((answer.used ?? 0) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the server did not reach ${count} admitted requests`);
}

const sharedBackend = POSTGRES;
if (sharedBackend) {
  describe("metering two instances sharing PostgreSQL", () => {
    const database = useTestDatabase(sharedBackend);
    // Both instances on one DATA_DIR: each keeps its own journal in it.
    const env = () => ({ ...database().env, SIM: "off", DATA_DIR: sharedDataDir });
    let sharedDataDir = "";

    it(`stores exactly the ${REQUESTS} requests they admitted between them`, async () => {
      sharedDataDir = freshDataDir();
      const { key, keyId } = await keyWithLimits(database(), {
        monthlyQuota: 1_000_000_000,
        requestsPerSecond: 1_000_000,
      });
      const servers = [await startServer(env()), await startServer(env())];
      let answers: Answer[];
      try {
        answers = await flood(
          servers.map((s) => s.url),
          key,
          REQUESTS,
        );
      } finally {
        for (const server of servers) expect(await server.stop()).toBe(0);
      }
      expect(admittedOf(answers).length).toBe(REQUESTS);
      expect(await storedCount(database(), keyId)).toBe(REQUESTS);
    });

    it("adds a killed instance's journal from the instance still running, without a restart", async () => {
      const { key, keyId } = await keyWithLimits(database(), {
        monthlyQuota: 1_000_000_000,
        requestsPerSecond: 1_000_000,
      });
      const [killed, survivor] = [await startServer(env()), await startServer(env())];
      try {
        const answers = flood([killed.url], key, UNDER_LOAD);
        await waitForAnswers(killed, key, 2_000);
        killed.process.kill("SIGKILL");
        // The survivor replays the ended instance's journals (named `<pid>-<id>.journal`, listed
        // before it can take them) and deletes each once its lines are in the database.
        const meterDir = path.join(sharedDataDir, "meter");
        const journalId = (file: string) => file.slice(file.indexOf("-") + 1).split(".")[0];
        const orphaned = readdirSync(meterDir)
          .filter((file) => file.startsWith(`${killed.process.pid}-`))
          .map(journalId);
        expect(orphaned.length).toBeGreaterThan(0);
        const seen = admittedOf(await answers).length;
        await vi.waitFor(
          () => expect(readdirSync(meterDir).filter((file) => orphaned.includes(journalId(file)))).toEqual([]),
          { timeout: 30_000, interval: 250 },
        );
        const stored = await storedCount(database(), keyId);
        expect(stored).toBeGreaterThanOrEqual(seen);
        expect(stored).toBeLessThanOrEqual(seen + CONNECTIONS);
      } finally {
        expect(await survivor.stop()).toBe(0);
      }
    });

    it("admits beyond a quota by no more than twice the other instance's per-second limit", async () => {
      const quota = 3_000;
      const perSecond = 1_000;
      const { key, keyId } = await keyWithLimits(database(), { monthlyQuota: quota, requestsPerSecond: perSecond });
      const servers = [await startServer(env()), await startServer(env())];
      const answers: Answer[] = [];
      try {
        // Until both instances refuse for the quota (the per-second limit refuses many before).
        for (let round = 0; round < 30; round++) {
          const batch = await flood(
            servers.map((s) => s.url),
            key,
            2_000,
          );
          answers.push(...batch);
          if (batch.filter((a) => a.code === "quota_exceeded").length >= 100) break;
        }
      } finally {
        for (const server of servers) expect(await server.stop()).toBe(0);
      }
      const admitted = admittedOf(answers).length;
      const stored = await storedCount(database(), keyId);
      console.log(`two instances, quota ${quota}, ${perSecond}/s: admitted ${admitted}, stored ${stored}`);
      expect(stored).toBe(admitted);
      expect(admitted).toBeGreaterThanOrEqual(quota);
      expect(admitted).toBeLessThanOrEqual(quota + 2 * perSecond);
    });
  });
}
