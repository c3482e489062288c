import { sql } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import { OPERATOR } from "../../lib/accounts/audit.ts";
import { rowsOf } from "../../lib/db/index.ts";
import { requestLog } from "../../lib/db/schema/index.ts";
import { requestLogFor } from "../../lib/console/requests.ts";
import { RequestLogRecorder } from "../../lib/ops/request-log/recorder.ts";
import { revokeKey } from "../../lib/keys/index.ts";
import { adminCli } from "../../testing/admin.ts";
import { describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { randomPart, recordSecret } from "../../testing/logs.ts";
import { organisationWithKeys, productionKeys, withDatabase, type CreatedKey } from "../../testing/organisations.ts";
import { startServer, type RunningServer } from "../../testing/processes.ts";

// The request log over real HTTP: what the server records of its answers (off the request path,
// written within a second and at stop), found again as the console's Requests page and the
// operator CLI read it, never with a credential in it; and what the leader's minute job prunes.

const DAY_MS = 86_400_000;
// A credential in a query parameter the API does not know: refused 400 under the header's key
// (`token=` or `api_key=` themselves are refused 401 before any key is read, with no key to file under).
const QUERY_TOKEN = "query-token-8f3a1c5e9b7d";
const ADMITTED = 5;

type Logged = { request_id: string; status: number; code: string | null; path: string; key_id: string };

describeEachBackend("the request log on $name", { timeout: 120_000 }, (backend) => {
  const database = useTestDatabase(backend);
  let org: { orgId: string; production: CreatedKey };
  let revoked: CreatedKey;
  let other: { orgId: string; production: CreatedKey };
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    const env = database().env;
    org = await organisationWithKeys(env, `reqlog-${backend.name}`, { plan: "starter", sandboxSport: "soccer" });
    other = await organisationWithKeys(env, `reqlog-other-${backend.name}`, {
      plan: "starter",
      sandboxSport: "soccer",
    });
    recordSecret(QUERY_TOKEN);
    const now = Date.now();
    revoked = await withDatabase(env, async (db) => {
      const [key] = await productionKeys(db, org.orgId, 1, new Date(now));
      await revokeKey(db, key!.id, org.orgId, { actor: OPERATOR, at: new Date(now) });
      // Rows from before this run: one past the 7 days the log keeps, one within them.
      for (const [requestId, age] of [
        ["req_past_seven_days", 8 * DAY_MS],
        ["req_within_seven_days", 6 * DAY_MS],
      ] as const) {
        await db.insert(requestLog).values({
          orgId: org.orgId,
          keyId: org.production.id,
          at: new Date(now - age),
          method: "GET",
          path: "/api/v1/events",
          status: 404,
          code: "not_found",
          latencyMs: 1,
          requestId,
        });
      }
      return key!;
    });

    const server: RunningServer = await startServer(env);
    try {
      const call = async (name: string, path: string, key?: string) => {
        const answer = await fetch(`${server.url}${path}`, { headers: key ? { "x-api-key": key } : {} });
        await answer.arrayBuffer();
        ids[name] = answer.headers.get("x-request-id")!;
        return answer.status;
      };
      expect(await call("tokenInQuery", `/api/v1/events?limit=2&auth_token=${QUERY_TOKEN}`, org.production.key)).toBe(
        400,
      );
      expect(await call("noSuchPath", "/api/v1/nowhere", org.production.key)).toBe(404);
      expect(await call("revoked", "/api/v1/events", revoked.key)).toBe(401);
      expect(await call("unknownKey", "/api/v1/events", "svc_sk_0000000000000000000000000000000")).toBe(401);
      expect(await call("noKey", "/api/v1/events")).toBe(401);
      // A key pasted into a path, percent-encoded: the log decodes before it masks.
      const encoded = other.production.key.replaceAll("_", "%5F");
      expect(await call("encodedKeyInPath", `/api/v1/events/${encoded}`, org.production.key)).toBe(404);
      expect(await call("otherOrg", "/api/v1/nowhere-else", other.production.key)).toBe(404);
      for (let i = 0; i < ADMITTED; i++)
        expect(await call(`admitted${i}`, "/api/v1/events", org.production.key)).toBe(200);
    } finally {
      // Stopping writes whatever the buffer still holds.
      await server.stop();
    }
    // The other entry, Next's route handlers, goes through the same wrapper and is logged alike.
    const next = await startServer({ ...env, API_ENTRY: "next" });
    try {
      const answer = await fetch(`${next.url}/api/v1/nowhere?via=next`, {
        headers: { authorization: `Bearer ${org.production.key}` },
      });
      expect(answer.status).toBe(404);
      ids.nextEntry = answer.headers.get("x-request-id")!;
    } finally {
      await next.stop();
    }
  });

  const cli = (db: Parameters<Parameters<typeof withDatabase>[1]>[0]) => adminCli(() => db);

  it("finds a refused request by its id, in the console and the CLI, with its status, code and path", async () => {
    await withDatabase(database().env, async (db) => {
      const view = await requestLogFor(db, org.orgId, { id: ids.tokenInQuery });
      expect(view.problem).toBeNull();
      expect(view.rows).toHaveLength(1);
      expect(view.rows[0]).toMatchObject({
        requestId: ids.tokenInQuery,
        keyId: org.production.id,
        method: "GET",
        status: 400,
        code: "unknown_parameter",
        path: "/api/v1/events?limit=2&auth_token=***",
      });
      const found = await cli(db).json<Logged & { org_id: string }>(["requests", "find", "--id", ids.tokenInQuery!]);
      expect(found).toMatchObject({
        org_id: org.orgId,
        request_id: ids.tokenInQuery,
        status: 400,
        code: "unknown_parameter",
        path: "/api/v1/events?limit=2&auth_token=***",
      });
      const notFound = await cli(db).json<Logged[]>(["requests", "list", "--org", org.orgId, "--code", "not_found"]);
      expect(notFound.map((row) => row.request_id)).toContain(ids.noSuchPath);
      expect(notFound.find((row) => row.request_id === ids.noSuchPath)).toMatchObject({
        status: 404,
        path: "/api/v1/nowhere",
      });
    });
  });

  it("logs the requests of Next's route handlers as those of the node:http entry", async () => {
    await withDatabase(database().env, async (db) => {
      const [row] = (await requestLogFor(db, org.orgId, { id: ids.nextEntry })).rows;
      expect(row).toMatchObject({ status: 404, code: "not_found", path: "/api/v1/nowhere?via=next" });
    });
  });

  it("writes its buffer on its timer, not on the recording call, and holds at most so many rows", async () => {
    await withDatabase(database().env, async (db) => {
      const recorder = new RequestLogRecorder(db, { flushEveryMs: 100, bufferMax: 3 });
      recorder.start();
      const at = Date.now();
      const sent = Array.from({ length: 5 }, (_, i) => `req_buffered_${backend.name}_${i}`);
      for (const requestId of sent) {
        recorder.record({
          orgId: org.orgId,
          keyId: org.production.id,
          at,
          method: "GET",
          path: "/api/v1/events/e-1",
          query: new URLSearchParams(),
          status: 404,
          code: "not_found",
          latencyMs: 2.4,
          requestId,
        });
      }
      expect(recorder.dropped).toBe(2);
      const written = async () =>
        rowsOf<{ request_id: string }>(
          await db.execute(sql`select request_id from request_log where request_id like 'req_buffered_%' order by id`),
        ).map((row) => row.request_id);
      // Nothing is written on the recording call itself.
      expect(await written()).toEqual([]);
      const deadline = Date.now() + 5000;
      while ((await written()).length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(await written()).toEqual(sent.slice(0, 3));
      await recorder.close();
    });
  });

  it("keeps no credential: not the key, not the token sent in the query", async () => {
    await withDatabase(database().env, async (db) => {
      const stored = JSON.stringify(rowsOf(await db.execute(sql`select * from request_log`)));
      expect(stored).toContain(ids.tokenInQuery);
      for (const secret of [QUERY_TOKEN, org.production.key, revoked.key, other.production.key]) {
        expect(stored).not.toContain(randomPart(secret) ?? secret);
      }
      const pasted = rowsOf<{ path: string }>(
        await db.execute(sql`select path from request_log where request_id = ${ids.encodedKeyInPath}`),
      );
      expect(pasted).toEqual([{ path: "/api/v1/events/svc_sk_***" }]);
    });
  });

  it("files a revoked key's requests under it, and requests with no known key nowhere", async () => {
    await withDatabase(database().env, async (db) => {
      const view = await requestLogFor(db, org.orgId, { key: revoked.id });
      expect(view.rows.map((row) => [row.requestId, row.status, row.code])).toEqual([
        [ids.revoked, 401, "key_revoked"],
      ]);
      for (const name of ["unknownKey", "noKey"]) {
        const rows = rowsOf(await db.execute(sql`select 1 from request_log where request_id = ${ids[name]!}`));
        expect(rows, name).toEqual([]);
      }
      // Each organisation reads its own keys' requests only.
      expect((await requestLogFor(db, org.orgId, { id: ids.otherOrg })).rows).toEqual([]);
      expect((await requestLogFor(db, other.orgId, { id: ids.otherOrg })).rows).toHaveLength(1);
      expect((await requestLogFor(db, org.orgId, { key: other.production.id })).rows).toEqual([]);
    });
  });

  it("samples the admitted requests: the first of each key's minute, not all of them", async () => {
    await withDatabase(database().env, async (db) => {
      const admitted = (await requestLogFor(db, org.orgId, { status: "2xx" })).rows;
      const sent = Array.from({ length: ADMITTED }, (_, i) => ids[`admitted${i}`]);
      expect(admitted.length).toBeGreaterThanOrEqual(1);
      // Five requests within a second or two: one minute, two if one began meanwhile.
      expect(admitted.length).toBeLessThanOrEqual(2);
      expect(admitted[admitted.length - 1]!.requestId).toBe(sent[0]);
      for (const row of admitted) expect(sent).toContain(row.requestId);
      expect(admitted.every((row) => row.status === 200 && row.code === null)).toBe(true);
      // The refused ones are all there: refused narrows to 4xx and 5xx.
      const refused = (await requestLogFor(db, org.orgId, { status: "refused" })).rows.map((row) => row.requestId);
      expect(refused).toEqual(expect.arrayContaining([ids.tokenInQuery, ids.noSuchPath, ids.revoked]));
      expect(refused).not.toEqual(expect.arrayContaining([sent[0]]));
    });
  });

  it("prunes what is older than 7 days, with the leader's minute job, and keeps the rest", async () => {
    await withDatabase(database().env, async (db) => {
      const ids = rowsOf<{ request_id: string }>(
        await db.execute(sql`select request_id from request_log where request_id like 'req_%seven_days'`),
      ).map((row) => row.request_id);
      expect(ids).toEqual(["req_within_seven_days"]);
    });
  });
});
