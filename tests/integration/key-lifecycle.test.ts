import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "../../lib/audit.ts";
import { createProductionKeyFor, createSandboxKeyFor, toActionState, updateKeyFor } from "../../lib/console/actions.ts";
import { acceptInvitation, signUp } from "../../lib/console/members.ts";
import { inviteMember } from "../../lib/console/actions.ts";
import { openDatabase, type DatabaseHandle } from "../../lib/db/index.ts";
import { auditLog } from "../../lib/db/schema/index.ts";
import { listKeys } from "../../lib/keys/index.ts";
import { updateKey } from "../../lib/keys/settings.ts";
import { reviewLicence, setLicence } from "../../lib/licences.ts";
import { setPlan } from "../../lib/plans.ts";
import { seedReferenceData } from "../../seeds/index.ts";
import { adminCli } from "../../testing/admin.ts";
import { apiClient } from "../../testing/api.ts";
import { BACKENDS, useTestDatabase } from "../../testing/databases.ts";
import { FEED_TOKEN, ingest } from "../../testing/feed.ts";
import { liveEvent } from "../../testing/feed-updates.ts";
import { organisationWithKeys, productionKeys, withDatabase, type CreatedKey } from "../../testing/organisations.ts";
import { startServer, type RunningServer } from "../../testing/processes.ts";

// The key lifecycle's rules, as the console's server actions and the operator CLI reach them: the
// same validation and the same audit whoever asks.

const at = new Date("2026-11-21T12:00:00Z");
const PASSWORD = "correct horse battery staple";

let counter = 0;
/** An organisation on the starter plan (soccer, basketball, tennis) with a verified licence. */
async function organisation(db: DatabaseHandle["db"]) {
  counter += 1;
  const { organisation, user } = await signUp(db, {
    organisation: `Lifecycle ${counter}`,
    name: "Admin",
    email: `lifecycle-${counter}@example.test`,
    password: PASSWORD,
  });
  const licence = { reference: `L-${counter}`, authority: "MGA", holder: "Org Ltd", validUntil: "2027-12-31" };
  await setLicence(db, organisation.id, licence, OPERATOR, at);
  await reviewLicence(db, organisation.id, "verify", { actor: OPERATOR, at });
  await setPlan(db, organisation.id, "starter", OPERATOR);
  return { orgId: organisation.id, adminId: user.id };
}

describe("the key lifecycle's rules on pglite", () => {
  const database = useTestDatabase(BACKENDS[0]!);
  let handle: DatabaseHandle;
  let db: DatabaseHandle["db"];
  const cli = adminCli(() => db);

  beforeAll(async () => {
    handle = await openDatabase(database().config);
    db = handle.db;
    await seedReferenceData(db);
  });
  afterAll(() => handle?.close());

  const keyOf = async (orgId: string, keyId: string) => (await listKeys(db, orgId, at)).find((k) => k.id === keyId)!;
  const auditOf = async (keyId: string, action: string) =>
    db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.target, keyId), eq(auditLog.action, action)))
      .orderBy(auditLog.id);

  it("changes a production key's name, sport scope and expiry from the console, each change in the audit log", async () => {
    const { orgId, adminId } = await organisation(db);
    const key = await createProductionKeyFor(db, adminId, { name: "Old" }, { at });
    const fields = {
      keyId: key.id,
      name: "Web app",
      "sport:tennis": "on",
      "sport:soccer": "on",
      expiresAt: "2026-12-01T10:30",
    };
    const state = await toActionState("saved", () => updateKeyFor(db, adminId, fields, { at }));
    expect(state).toMatchObject({ ok: "saved", data: { changed: ["name", "sports", "expiresAt"] } });
    expect(await keyOf(orgId, key.id)).toMatchObject({
      name: "Web app",
      sports: ["soccer", "tennis"],
      sportScope: ["soccer", "tennis"],
      expiresAt: new Date("2026-12-01T10:30:00Z"),
      status: "active",
    });
    const [entry] = await auditOf(key.id, "key.updated");
    expect(entry).toMatchObject({
      actorUserId: adminId,
      details: {
        name: { from: "Old", to: "Web app" },
        sports: { from: null, to: ["soccer", "tennis"] },
        expiresAt: { from: null, to: "2026-12-01T10:30:00.000Z" },
      },
    });

    // The same form sent back untouched changes nothing and records nothing.
    const again = { ...fields, expiresAtShown: "2026-12-01T10:30" };
    expect(await updateKeyFor(db, adminId, again, { at })).toMatchObject({ changed: [] });
    expect(await auditOf(key.id, "key.updated")).toHaveLength(1);

    // Emptied: no name, the plan's sports, no expiry.
    expect(
      await updateKeyFor(db, adminId, { keyId: key.id, expiresAtShown: "2026-12-01T10:30" }, { at }),
    ).toMatchObject({ changed: ["name", "sports", "expiresAt"] });
    expect(await keyOf(orgId, key.id)).toMatchObject({
      name: null,
      sports: ["soccer", "basketball", "tennis"],
      sportScope: null,
      expiresAt: null,
    });
  });

  it("refuses a sport beyond the plan, an expiry in the past, a sandbox key's scope, a viewer and another organisation", async () => {
    const { orgId, adminId } = await organisation(db);
    const key = await createProductionKeyFor(db, adminId, {}, { at });
    const before = await keyOf(orgId, key.id);
    const refusal = async (userId: string, fields: Record<string, string>) => {
      const state = await toActionState("saved", () => updateKeyFor(db, userId, fields, { at }));
      if (!state || !("error" in state)) throw new Error(`expected a refusal, got ${JSON.stringify(state)}`);
      return state.error;
    };
    expect(await refusal(adminId, { keyId: key.id, "sport:cs2": "on" })).toMatch(/subset of its plan's.*cs2 is not/);
    expect(await refusal(adminId, { keyId: key.id, expiresAt: "2026-11-21T11:59" })).toMatch(/in the future/);
    expect(await refusal(adminId, { keyId: key.id, expiresAt: "next week" })).toBe("Check the marked fields.");

    const sandbox = await createSandboxKeyFor(db, adminId, { sport: "soccer" }, { at, ttlDays: 30 });
    expect(
      await updateKeyFor(db, adminId, { keyId: sandbox.id, name: "Trial", "sport:tennis": "on" }, { at }),
    ).toMatchObject({ changed: ["name"] });
    expect((await keyOf(orgId, sandbox.id)).sports).toEqual(["soccer"]);

    const { token } = await inviteMember(db, adminId, { role: "viewer" }, { at, ttlDays: 7 });
    counter += 1;
    const viewer = await acceptInvitation(
      db,
      { token, name: "Viewer", email: `viewer-${counter}@example.test`, password: PASSWORD },
      at,
    );
    expect(await refusal(viewer.id, { keyId: key.id, name: "Mine" })).toMatch(/admin/i);
    const other = await organisation(db);
    expect(await refusal(other.adminId, { keyId: key.id, name: "Mine" })).toMatch(/No key/);
    expect(await keyOf(orgId, key.id)).toEqual(before);
    expect(await auditOf(key.id, "key.updated")).toHaveLength(0);
  });

  it("gives the operator CLI the same settings, with the same validation and audit", async () => {
    const { orgId, adminId } = await organisation(db);
    const key = await createProductionKeyFor(db, adminId, {}, { at });
    const updated = await cli.json<{ name: string; sports: string[]; changed: string[] }>([
      "key",
      "update",
      "--id",
      key.id,
      "--name",
      "Batch jobs",
      "--sports",
      "basketball",
    ]);
    expect(updated).toMatchObject({ name: "Batch jobs", sports: ["basketball"], changed: ["name", "sports"] });
    const [entry] = await auditOf(key.id, "key.updated");
    expect(entry).toMatchObject({ actorUserId: null, actor: OPERATOR.label });

    const beyond = await cli.run(["key", "update", "--id", key.id, "--sports", "cs2", "--json"]);
    expect(beyond.code).toBe(1);
    expect(JSON.parse(beyond.stdout)).toMatchObject({ error: { code: "invalid_input" } });
    const past = await cli.run(["key", "update", "--id", key.id, "--expires", "2020-01-01T00:00:00Z", "--json"]);
    expect(JSON.parse(past.stdout)).toMatchObject({ error: { code: "invalid_input", message: /in the future/ } });
    const nothing = await cli.run(["key", "update", "--id", key.id, "--json"]);
    expect(nothing.code).toBe(2);

    const lifted = await cli.json(["key", "update", "--id", key.id, "--sports", "all", "--name", ""]);
    expect(lifted).toMatchObject({ name: null, sportScope: null, sports: ["soccer", "basketball", "tennis"] });
    expect(await auditOf(key.id, "key.updated")).toHaveLength(2);
    expect((await keyOf(orgId, key.id)).expiresAt).toBeNull();
  });
});

type Problem = { code: string; detail: string };

// A key's settings as the API applies them, on both entries (node:http and Next's route handlers).
describe.each(["node", "next"] as const)("a key's settings over HTTP through %s", (entry) => {
  const database = useTestDatabase(BACKENDS[0]!);
  let server: RunningServer;
  let call: ReturnType<typeof apiClient>;
  let keys: { full: CreatedKey; scoped: CreatedKey; ended: CreatedKey };

  beforeAll(async () => {
    const env = database().env;
    const org = await organisationWithKeys(env, `settings-${entry}`, { plan: "starter", sandboxSport: "soccer" });
    keys = await withDatabase(env, async (db) => {
      const now = new Date();
      const [scoped, ended] = await productionKeys(db, org.orgId, 2, now);
      await updateKey(db, scoped!.id, null, { name: "Tennis only", sports: ["tennis"] }, { actor: OPERATOR, at: now });
      // An expiry that passed: set where no rule looks, as a clock an hour on would see it.
      await db.execute(sql`update api_keys set expires_at = now() - interval '1 minute' where id = ${ended!.id}`);
      return { full: org.production, scoped: scoped!, ended: ended! };
    });
    server = await startServer({ ...env, FEED_TOKEN, API_ENTRY: entry });
    call = apiClient(server.url, 9);
    await ingest(server.url, [liveEvent("set-soc", "soccer", "Settings league", { home: "A", away: "B" })]);
    // The view follows the change bus: wait until it serves the event.
    for (let tries = 0; (await call("/api/v1/events/set-soc", { key: keys.full.key })).status !== 200; tries++) {
      expect(tries, "the ingested event is served").toBeLessThan(200);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("describes the key with its name and its scope in /me", async () => {
    const me = await call<{ data: Record<string, unknown> }>("/api/v1/me", { key: keys.scoped.key });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ name: "Tennis only", sports: ["tennis"], plan: "starter", expires_at: null });
  });

  it("refuses a sport of the plan outside the key's scope with 403 sport_not_covered", async () => {
    const tennis = await call("/api/v1/events?sport=tennis", { key: keys.scoped.key });
    expect(tennis.status).toBe(200);
    const soccer = await call<Problem>("/api/v1/events?sport=soccer", { key: keys.scoped.key });
    expect(soccer.status).toBe(403);
    expect(soccer.body).toMatchObject({ code: "sport_not_covered", detail: /limited to tennis \(its sport scope/ });
    const event = await call<Problem>("/api/v1/events/set-soc", { key: keys.scoped.key });
    expect(event.body).toMatchObject({ code: "sport_not_covered" });
  });

  it("refuses a production key past its expiry with 401 key_expired", async () => {
    const answer = await call<Problem>("/api/v1/me", { key: keys.ended.key });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: "key_expired", detail: /^This key expired at .*use its successor/ });
  });
});
