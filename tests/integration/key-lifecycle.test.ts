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
import { openSse } from "../../testing/sse.ts";

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

  it("keeps a key's IP allowlist as networks, refusing an entry that is none with the entry named", async () => {
    const { orgId, adminId } = await organisation(db);
    const key = await createProductionKeyFor(db, adminId, {}, { at });
    const fields = { keyId: key.id, allowedIps: "203.0.113.0/24\r\n2001:DB8::/32\n198.51.100.7" };
    expect(await updateKeyFor(db, adminId, fields, { at })).toMatchObject({ changed: ["allowedIps"] });
    expect((await keyOf(orgId, key.id)).allowedIps).toEqual(["203.0.113.0/24", "2001:db8::/32", "198.51.100.7/32"]);
    const state = await toActionState("saved", () =>
      updateKeyFor(db, adminId, { keyId: key.id, allowedIps: "10.0.0.0/8\nintranet" }, { at }),
    );
    expect(state).toMatchObject({ fieldErrors: { allowedIps: expect.stringMatching(/"intranet" is not/) } });
    const [entry] = await auditOf(key.id, "key.updated");
    expect(entry!.details).toEqual({
      allowedIps: { from: null, to: ["203.0.113.0/24", "2001:db8::/32", "198.51.100.7/32"] },
    });
    // Emptied: from any address again.
    await updateKeyFor(db, adminId, { keyId: key.id }, { at });
    expect((await keyOf(orgId, key.id)).allowedIps).toBeNull();

    const cliSet = await cli.json(["key", "update", "--id", key.id, "--allow-ips", "192.0.2.0/24,::1"]);
    expect(cliSet).toMatchObject({ allowedIps: ["192.0.2.0/24", "::1/128"], changed: ["allowedIps"] });
    const wrong = await cli.run(["key", "update", "--id", key.id, "--allow-ips", "192.0.2.0/33", "--json"]);
    expect(JSON.parse(wrong.stdout)).toMatchObject({ error: { code: "invalid_input", message: /from 0 to 32/ } });
    expect(await cli.json(["key", "update", "--id", key.id, "--allow-ips", "any"])).toMatchObject({ allowedIps: null });
    expect(await auditOf(key.id, "key.updated")).toHaveLength(4);
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
  let keys: { full: CreatedKey; scoped: CreatedKey; ended: CreatedKey; limited: CreatedKey };

  beforeAll(async () => {
    const env = database().env;
    const org = await organisationWithKeys(env, `settings-${entry}`, { plan: "starter", sandboxSport: "soccer" });
    keys = await withDatabase(env, async (db) => {
      const now = new Date();
      const [scoped, ended, limited] = await productionKeys(db, org.orgId, 3, now);
      await updateKey(db, scoped!.id, null, { name: "Tennis only", sports: ["tennis"] }, { actor: OPERATOR, at: now });
      const allowlist = "198.51.100.0/24\n2001:db8::/32";
      await updateKey(db, limited!.id, null, { allowedIps: allowlist }, { actor: OPERATOR, at: now });
      // An expiry that passed: set where no rule looks, as a clock an hour on would see it.
      await db.execute(sql`update api_keys set expires_at = now() - interval '1 minute' where id = ${ended!.id}`);
      return { full: org.production, scoped: scoped!, ended: ended!, limited: limited! };
    });
    // One load balancer in front, as the suite presents it: X-Forwarded-For says who the client is.
    const proxied = { TRUST_PROXY_HOPS: "1", NEXTAUTH_URL: "http://127.0.0.1" };
    server = await startServer({ ...env, ...proxied, FEED_TOKEN, API_ENTRY: entry });
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

  it("serves a key with an IP allowlist to a client in it, the client being who the load balancer saw", async () => {
    const from = (forwardedFor: string) =>
      call<{ data: Record<string, unknown> }>("/api/v1/me", {
        key: keys.limited.key,
        headers: { "x-forwarded-for": forwardedFor },
      });
    const inside = await from("198.51.100.7");
    expect(inside.status).toBe(200);
    expect(inside.body.data).toMatchObject({ allowed_ips: ["198.51.100.0/24", "2001:db8::/32"] });
    expect((await from("203.0.113.5, 2001:db8::7")).status).toBe(200);
    // A key without a list, from anywhere.
    const me = await call<{ data: Record<string, unknown> }>("/api/v1/me", {
      key: keys.scoped.key,
      headers: { "x-forwarded-for": "203.0.113.5" },
    });
    expect(me.body.data).toMatchObject({ allowed_ips: null });
  });

  it("refuses a key with an IP allowlist from elsewhere with 403 ip_not_allowed, not counted", async () => {
    const from = (headers: Record<string, string>) =>
      call<Problem & { meta?: { requests_used: number } }>("/api/v1/me", { key: keys.limited.key, headers });
    const before = (await from({ "x-forwarded-for": "198.51.100.7" })).body.meta!.requests_used;
    // The client's own claim before the load balancer's entry is not who it is.
    for (const forwardedFor of ["203.0.113.5", "198.51.100.7, 203.0.113.5", "2001:db9::1"]) {
      const answer = await from({ "x-forwarded-for": forwardedFor });
      expect(answer.status, forwardedFor).toBe(403);
      expect(answer.body).toMatchObject({ code: "ip_not_allowed", detail: /came from (203\.0\.113\.5|2001:db9::1)/ });
    }
    // No X-Forwarded-For: the load balancer's own address (this machine) is not in the list either.
    expect((await from({})).body).toMatchObject({ code: "ip_not_allowed" });
    const after = (await from({ "x-forwarded-for": "198.51.100.7" })).body.meta!.requests_used;
    expect(after).toBe(before + 1);
  });

  it("refuses to open a stream for a key with an IP allowlist from elsewhere, and opens it from inside", async () => {
    const open = (forwardedFor: string) =>
      openSse(`${server.url}/api/v1/events/set-soc/stream`, {
        headers: { "x-api-key": keys.limited.key, "x-forwarded-for": forwardedFor },
      });
    const refused = await open("203.0.113.5");
    refused.close();
    expect(refused.status).toBe(403);
    expect(refused.problem).toMatchObject({ code: "ip_not_allowed" });
    const opened = await open("198.51.100.7");
    try {
      expect(opened.status).toBe(200);
      await opened.waitFor((message) => message.event === "snapshot");
    } finally {
      opened.close();
    }
  });

  it("refuses a production key past its expiry with 401 key_expired", async () => {
    const answer = await call<Problem>("/api/v1/me", { key: keys.ended.key });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: "key_expired", detail: /^This key expired at .*use its successor/ });
  });
});
