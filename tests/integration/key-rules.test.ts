import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "../../lib/accounts/audit.ts";
import {
  createProductionKeyFor,
  createSandboxKeyFor,
  inviteMember,
  revokeKeyFor,
  rollKeyFor,
  toActionState,
  updateKeyFor,
} from "../../lib/console/actions.ts";
import { acceptInvitation, signUp } from "../../lib/console/members.ts";
import { openDatabase, type DatabaseHandle } from "../../lib/db/index.ts";
import { auditLog } from "../../lib/db/schema/index.ts";
import { listKeys } from "../../lib/keys/index.ts";
import { reviewLicence, setLicence } from "../../lib/accounts/licences.ts";
import { setPlan } from "../../lib/accounts/plans.ts";
import { seedReferenceData } from "../../seeds/index.ts";
import { adminCli } from "../../testing/admin.ts";
import { BACKENDS, useTestDatabase } from "../../testing/databases.ts";

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

  it("rolls a key from the console: a successor with its settings, the old key expiring at the overlap's end", async () => {
    const { orgId, adminId } = await organisation(db);
    const key = await createProductionKeyFor(db, adminId, { name: "Web app" }, { at });
    await updateKeyFor(
      db,
      adminId,
      { keyId: key.id, name: "Web app", "sport:tennis": "on", allowedIps: "::1" },
      { at },
    );
    const rolled = await rollKeyFor(db, adminId, { keyId: key.id, overlapSeconds: "3600" }, { at });
    expect(rolled.key).toMatch(/^svc_sk_/);
    expect(rolled).toMatchObject({ predecessorHint: key.hint, predecessorExpiresAt: "2026-11-21T13:00:00.000Z" });
    expect((await listKeys(db, orgId, at)).map((k) => k.id).sort()).toEqual([rolled.id, key.id].sort());
    expect(await keyOf(orgId, rolled.id)).toMatchObject({
      name: "Web app",
      sportScope: ["tennis"],
      allowedIps: ["::1/128"],
      expiresAt: null,
      replaces: key.id,
      status: "active",
    });
    expect(await keyOf(orgId, key.id)).toMatchObject({
      replacedBy: rolled.id,
      expiresAt: new Date("2026-11-21T13:00:00Z"),
      status: "active",
    });
    expect((await listKeys(db, orgId, new Date("2026-11-21T13:00:00Z"))).find((k) => k.id === key.id)!.status).toBe(
      "expired",
    );
    const [entry] = await auditOf(key.id, "key.rolled");
    expect(entry).toMatchObject({
      actorUserId: adminId,
      details: { successor: rolled.id, overlapSeconds: 3_600, expiresAt: "2026-11-21T13:00:00.000Z" },
    });
    expect(await auditOf(rolled.id, "key.created")).toMatchObject([{ details: { rolledFrom: key.id } }]);

    // The overlap ends sooner if asked, never later.
    // The whole form, as the dialog sends it, with the expiry moved.
    const form = { keyId: key.id, name: "Web app", "sport:tennis": "on", allowedIps: "::1/128" };
    const later = { ...form, expiresAt: "2026-11-21T14:00", expiresAtShown: "2026-11-21T13:00" };
    expect(await toActionState("saved", () => updateKeyFor(db, adminId, later, { at }))).toMatchObject({
      error: expect.stringMatching(/brought forward, not put off/),
    });
    const sooner = { ...later, expiresAt: "2026-11-21T12:30" };
    expect(await updateKeyFor(db, adminId, sooner, { at })).toMatchObject({ changed: ["expiresAt"] });
  });

  it("refuses an overlap under an hour or over 7 days, a second roll, a sandbox key and a revoked key", async () => {
    const { orgId, adminId } = await organisation(db);
    const key = await createProductionKeyFor(db, adminId, {}, { at });
    const refusal = async (fields: Record<string, string>) => {
      const state = await toActionState("rolled", () => rollKeyFor(db, adminId, fields, { at }));
      if (!state || !("error" in state)) throw new Error(`expected a refusal, got ${JSON.stringify(state)}`);
      return state;
    };
    expect(await refusal({ keyId: key.id, overlapSeconds: "3599" })).toMatchObject({
      fieldErrors: { overlapSeconds: expect.stringMatching(/at least an hour/) },
    });
    expect(await refusal({ keyId: key.id, overlapSeconds: String(7 * 86_400 + 1) })).toMatchObject({
      fieldErrors: { overlapSeconds: expect.stringMatching(/at most 7 days/) },
    });
    expect(await listKeys(db, orgId, at)).toHaveLength(1);
    await rollKeyFor(db, adminId, { keyId: key.id, overlapSeconds: String(7 * 86_400) }, { at });
    expect((await refusal({ keyId: key.id, overlapSeconds: "3600" })).error).toMatch(/rolled already/);
    const sandbox = await createSandboxKeyFor(db, adminId, { sport: "soccer" }, { at, ttlDays: 30 });
    expect((await refusal({ keyId: sandbox.id, overlapSeconds: "3600" })).error).toMatch(
      /sandbox key cannot be rolled/,
    );
    const revoked = await createProductionKeyFor(db, adminId, {}, { at });
    await revokeKeyFor(db, adminId, { keyId: revoked.id }, { at });
    expect((await refusal({ keyId: revoked.id, overlapSeconds: "3600" })).error).toMatch(/revoked/);
    expect(await listKeys(db, orgId, at)).toHaveLength(4);
    expect(await auditOf(key.id, "key.rolled")).toHaveLength(1);
  });

  it("rolls a key with the operator CLI under the same rules", async () => {
    const { orgId, adminId } = await organisation(db);
    const key = await createProductionKeyFor(db, adminId, { name: "Feed" }, { at });
    const short = await cli.run(["key", "roll", "--id", key.id, "--overlap", "59m", "--json"]);
    expect(short.code).toBe(1);
    expect(JSON.parse(short.stdout)).toMatchObject({ error: { code: "invalid_input", message: /at least an hour/ } });
    expect((await cli.run(["key", "roll", "--id", key.id, "--overlap", "soon"])).code).toBe(2);
    const before = Date.now();
    const rolled = await cli.json<{ key: string; id: string; name: string; predecessor: { expiresAt: string } }>([
      "key",
      "roll",
      "--id",
      key.id,
      "--overlap",
      "36h",
    ]);
    expect(rolled).toMatchObject({ name: "Feed", key: expect.stringMatching(/^svc_sk_/) });
    const overlapEnd = Date.parse(rolled.predecessor.expiresAt) - 36 * 3_600_000;
    expect(overlapEnd).toBeGreaterThanOrEqual(before);
    expect(overlapEnd).toBeLessThanOrEqual(Date.now());
    const [entry] = await auditOf(key.id, "key.rolled");
    expect(entry).toMatchObject({ actor: OPERATOR.label, details: { successor: rolled.id, overlapSeconds: 129_600 } });
    expect((await listKeys(db, orgId, new Date())).map((k) => k.id).sort()).toEqual([key.id, rolled.id].sort());
    // The list says what the console says: the old key expiring, and which key replaced it.
    const list = (await cli.run(["key", "list", "--org", orgId])).stdout.split("\n");
    expect(list.find((line) => line.startsWith(key.id))).toMatch(new RegExp(`  expiring  rolled-to=${rolled.id}  `));
    expect(list.find((line) => line.startsWith(rolled.id))).toMatch(/  active  /);
    const text = await cli.run(["key", "roll", "--id", rolled.id, "--overlap", "1h"]);
    expect(text.stdout).toMatch(/only time the key is shown[^]*keeps working until/);
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
