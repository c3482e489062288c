import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { OPERATOR } from "../../lib/accounts/audit.ts";
import { addDays, utcDay } from "../../lib/clock.ts";
import { openDatabase, type Database } from "../../lib/db/index.ts";
import { auditLog, licences, organisations } from "../../lib/db/schema/index.ts";
import { createProductionKey } from "../../lib/keys/index.ts";
import { reviewLicence, setLicence } from "../../lib/accounts/licences.ts";
import { createOrganisation } from "../../lib/accounts/organisations.ts";
import { setPlan } from "../../lib/accounts/plans.ts";
import { seedReferenceData } from "../../seeds/index.ts";
import { apiClient } from "../../testing/api.ts";
import { describeEachBackend, type TestDatabase, useTestDatabase } from "../../testing/databases.ts";
import { recordSecret } from "../../testing/logs.ts";
import { storedRequests } from "../../testing/organisations.ts";
import { admin, startServer, type RunningServer } from "../../testing/processes.ts";
import { openSse } from "../../testing/sse.ts";

// A licence is a claim until an operator verifies it, and production keys are served only while
// their organisation's licence is verified and in force: the operator's CLI against the real
// servers, whose key caches must hear a revocation at once.

const today = new Date();
const yesterday = utcDay(addDays(today, -1));

async function withDatabase<T>(database: TestDatabase, work: (db: Database) => Promise<T>): Promise<T> {
  const handle = await openDatabase(database.config);
  try {
    return await work(handle.db);
  } finally {
    await handle.close();
  }
}

async function productionKey(db: Database, orgId: string, at: Date) {
  const created = await createProductionKey(db, orgId, {}, { actor: OPERATOR, at });
  recordSecret(created.key);
  return { id: created.summary.id, key: created.key };
}

describeEachBackend("licence verification on $name", (backend) => {
  const database = useTestDatabase(backend);
  // Two instances share PostgreSQL; PGlite admits one process, whose server runs the operator's
  // commands sent to it by the CLI.
  const instances = backend.name === "postgres" ? 2 : 1;
  let servers: RunningServer[] = [];
  let verified: { id: string; key: string };
  let lapsed: { id: string; key: string };

  const start = async () => {
    servers = await Promise.all(Array.from({ length: instances }, () => startServer(database().env)));
  };
  const stop = async () => {
    await Promise.all(servers.map((server) => server.stop()));
    servers = [];
  };
  const operator = <T = Record<string, unknown>>(args: string[]): Promise<T> => admin<T>(args, database().env);

  beforeAll(async () => {
    const env = database().env;
    await withDatabase(database(), async (db) => {
      await seedReferenceData(db);
      const org = await createOrganisation(db, { name: "Licensed", slug: "licensed" }, OPERATOR);
      await setPlan(db, org.id, "pro", OPERATOR);
      await setLicence(
        db,
        org.id,
        { reference: "MGA/B2B/7", authority: "MGA", holder: "Licensed Ltd", validUntil: "2099-12-31" },
        OPERATOR,
        today,
      );
      await expect(productionKey(db, org.id, today)).rejects.toThrow(/MGA\/B2B\/7 awaits an operator's verification/);
    });
    const pending = await admin<{ orgId: string; verification: string }[]>(
      ["licence", "list", "--status", "pending"],
      env,
    );
    expect(pending).toEqual([expect.objectContaining({ verification: "pending" })]);
    expect(await admin(["licence", "verify", "--org", "licensed", "--reference", "MGA/B2B/7"], env)).toMatchObject({
      reference: "MGA/B2B/7",
      verification: "verified",
    });

    await withDatabase(database(), async (db) => {
      const [org] = await db.select().from(organisations).where(eq(organisations.slug, "licensed"));
      verified = await productionKey(db, org!.id, today);
      // A key made while its licence was in force, a licence that has lapsed since.
      const old = await createOrganisation(db, { name: "Lapsed", slug: "lapsed" }, OPERATOR);
      const then = new Date("2024-06-01T12:00:00Z");
      await setLicence(
        db,
        old.id,
        {
          reference: "UKGC/OLD/1",
          authority: "UKGC",
          holder: "Lapsed Ltd",
          validFrom: "2024-01-01",
          validUntil: yesterday,
        },
        OPERATOR,
        then,
      );
      await reviewLicence(db, old.id, "verify", { actor: OPERATOR, at: then });
      await setPlan(db, old.id, "starter", OPERATOR);
      lapsed = await productionKey(db, old.id, then);
    });
    await start();
  });
  afterAll(stop);

  const call = (server: RunningServer, key: string) => apiClient(server.url)("/api/v1/me", { key });

  it("serves a production key once its licence is verified, and refuses one whose licence lapsed, not counted", async () => {
    for (const server of servers) expect((await call(server, verified.key)).status).toBe(200);
    const refused = await call(servers[0]!, lapsed.key);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      code: "licence_inactive",
      detail: expect.stringContaining(`licence UKGC/OLD/1 lapsed after ${yesterday}`),
    });
    // Refused before the count: no quota headers, nothing stored.
    expect(refused.headers.get("ratelimit")).toBeNull();
  });

  it("refuses the organisation's production keys on every instance as soon as the operator revokes its licence", async () => {
    // Cached on every instance first: the revocation must reach the caches, not wait for them.
    for (const server of servers) expect((await call(server, verified.key)).status).toBe(200);
    // A stream open on the last instance, which the revocation must end.
    const openStream = () =>
      openSse(`${servers.at(-1)!.url}/api/v1/odds/stream`, { headers: { "x-api-key": verified.key } });
    const stream = await openStream();
    await stream.waitFor((m) => m.event === "snapshot");
    const revoked = await operator<{ verification: string; reviewReason: string }>([
      "licence",
      "revoke",
      "--org",
      "licensed",
      "--reason",
      "Withdrawn by the authority",
    ]);
    expect(revoked).toMatchObject({ verification: "revoked", reviewReason: "Withdrawn by the authority" });
    for (const server of servers) {
      const answer = await call(server, verified.key);
      expect(answer.status).toBe(403);
      expect(answer.body).toMatchObject({
        code: "licence_inactive",
        detail: expect.stringContaining(`licence MGA/B2B/7 was revoked on ${utcDay(new Date())}`),
      });
    }
    // The open stream ends with the problem, as a revoked key's does; a new one is refused.
    const ending = await stream.waitFor((m) => m.event === "error");
    expect(ending.data).toMatchObject({ code: "licence_inactive" });
    await stream.closed;
    const refused = await openStream();
    expect(refused.status).toBe(403);
    expect(refused.problem).toMatchObject({ code: "licence_inactive" });
  });

  it("counted only the requests it served, and logged the operator's decisions", async () => {
    await stop();
    await withDatabase(database(), async (db) => {
      // Two rounds of one request per instance were served, and one stream opened; the refusals
      // were not counted.
      expect(await storedRequests(db, verified.id)).toBe(2 * instances + 1);
      expect(await storedRequests(db, lapsed.id)).toBe(0);
      const entries = await db
        .select()
        .from(auditLog)
        .where(eq(auditLog.target, (await licenceId(db))!));
      expect(entries.map((e) => [e.action, e.actor])).toEqual(
        expect.arrayContaining([
          ["licence.verified", OPERATOR.label],
          ["licence.revoked", OPERATOR.label],
        ]),
      );
      expect(entries.find((e) => e.action === "licence.revoked")?.details).toMatchObject({
        reference: "MGA/B2B/7",
        reason: "Withdrawn by the authority",
      });
    });
  });
});

async function licenceId(db: Database): Promise<string | undefined> {
  const [licence] = await db.select().from(licences).where(eq(licences.reference, "MGA/B2B/7"));
  return licence?.id;
}
