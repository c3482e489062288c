import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "../../lib/accounts/audit.ts";
import * as consoleActions from "../../lib/console/actions.ts";
import * as webhookActions from "../../lib/console/webhooks.ts";
import {
  addWebhookFor,
  redeliverFor,
  rotateWebhookSecretFor,
  sendWebhookTestFor,
  setThresholdsFor,
  setWebhookEnabledFor,
} from "../../lib/console/webhooks.ts";
import { consoleAccess } from "../../lib/console/access.ts";
import {
  changeMemberRole,
  choosePlan,
  createProductionKeyFor,
  requestPlanFor,
  createSandboxKeyFor,
  inviteMember,
  recordLicence,
  removeMemberFrom,
  revokeKeyFor,
  rollKeyFor,
  toActionState,
  updateKeyFor,
  withdrawInvitation,
  type ActionState,
  type Fields,
} from "../../lib/console/actions.ts";
import {
  acceptInvitation,
  changeRole,
  findInvitation,
  listMembers,
  listPendingInvitations,
  removeMember,
  signUp,
} from "../../lib/console/members.ts";
import { emailDelaySeconds, recentFailures, SIGN_IN_LIMITS, signInWithPassword } from "../../lib/accounts/sign-in.ts";
import { usageForMonth } from "../../lib/console/usage.ts";
import { openDatabase, type DatabaseHandle } from "../../lib/db/index.ts";
import {
  apiKeys,
  auditLog,
  invitations,
  licences,
  memberships,
  organisations,
  usageDaily,
  usageAlertSettings,
  users,
  webhookDeliveries,
  webhookEndpoints,
} from "../../lib/db/schema/index.ts";
import { listKeys } from "../../lib/keys/index.ts";
import { getLicence, mayHoldProductionKeys, reviewLicence } from "../../lib/accounts/licences.ts";
import { approvePlanRequest } from "../../lib/accounts/plans.ts";
import { seedReferenceData } from "../../seeds/index.ts";
import { describeEachBackend, POSTGRES, useTestDatabase } from "../../testing/databases.ts";

// The console's rules, called exactly as the server actions call them: with nothing but the user
// id a session would carry, and raw form fields. A forged POST to a server action reaches these.

const at = new Date("2026-11-21T12:00:00Z");
const PASSWORD = "correct horse battery staple";
const LICENCE = { reference: "MGA/B2B/1", authority: "MGA", holder: "Org Ltd", validUntil: "2027-12-31" };

function refused<T>(state: ActionState<T>): string {
  if (!state || !("error" in state)) throw new Error(`expected a refusal, got ${JSON.stringify(state)}`);
  return state.error;
}

let counter = 0;
async function organisation(db: DatabaseHandle["db"], label: string) {
  counter += 1;
  const email = `${label.toLowerCase().replace(/\W+/g, "-")}-${counter}@example.test`;
  const { organisation, user } = await signUp(db, {
    organisation: `${label} ${counter}`,
    name: "First Admin",
    email,
    password: PASSWORD,
  });
  return { orgId: organisation.id, adminId: user.id, email };
}

/** The operator's verification, as `npm run admin -- licence verify` does it. */
async function verified(db: DatabaseHandle["db"], orgId: string) {
  await reviewLicence(db, orgId, "verify", { actor: OPERATOR, at });
}

/** A member who joined through an invitation of `role`. */
async function invited(db: DatabaseHandle["db"], adminId: string, role: "admin" | "viewer", name: string) {
  const { token } = await inviteMember(db, adminId, { role }, { at, ttlDays: 7 });
  counter += 1;
  const email = `${name.toLowerCase()}-${counter}@example.test`;
  return acceptInvitation(db, { token, name, email, password: PASSWORD }, at);
}

/** Everything an organisation's console could change: its row, licence, keys, members, invitations, audit. */
async function everythingOf(db: DatabaseHandle["db"], orgId: string): Promise<string> {
  const members = await db
    .select({ membership: memberships, user: users })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.orgId, orgId));
  return JSON.stringify({
    organisation: await db.select().from(organisations).where(eq(organisations.id, orgId)),
    licence: await db.select().from(licences).where(eq(licences.orgId, orgId)),
    keys: await db.select().from(apiKeys).where(eq(apiKeys.orgId, orgId)).orderBy(apiKeys.id),
    members: members.sort((a, b) => a.user.id.localeCompare(b.user.id)),
    invitations: await db.select().from(invitations).where(eq(invitations.orgId, orgId)).orderBy(invitations.id),
    webhooks: await db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.orgId, orgId))
      .orderBy(webhookEndpoints.id),
    deliveries: await db
      .select({ id: webhookDeliveries.id, state: webhookDeliveries.state, next: webhookDeliveries.nextAttemptAt })
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .where(eq(webhookEndpoints.orgId, orgId))
      .orderBy(webhookDeliveries.id),
    thresholds: await db.select().from(usageAlertSettings).where(eq(usageAlertSettings.orgId, orgId)),
    audit: await db.select().from(auditLog).where(eq(auditLog.orgId, orgId)).orderBy(auditLog.id),
  });
}

async function keyCount(db: DatabaseHandle["db"], orgId: string): Promise<number> {
  return (await db.select().from(apiKeys).where(eq(apiKeys.orgId, orgId))).length;
}

describeEachBackend("console rules on $name", (backend) => {
  const database = useTestDatabase(backend);
  let handle: DatabaseHandle;
  let db: DatabaseHandle["db"];

  beforeAll(async () => {
    handle = await openDatabase(database().config);
    db = handle.db;
    await seedReferenceData(db);
  });
  afterAll(() => handle?.close());

  it("signs up an organisation with its first admin, whose access is read from the database", async () => {
    const { orgId, adminId, email } = await organisation(db, "Signup");
    const access = await consoleAccess(db, adminId);
    expect(access).toMatchObject({ role: "admin", organisation: { id: orgId }, user: { email } });
    const actions = (await db.select().from(auditLog).where(eq(auditLog.orgId, orgId))).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(["organisation.created", "member.added"]));
    expect(await consoleAccess(db, "usr_nobody")).toBeNull();
  });

  it("lets a viewer see but neither create nor revoke keys, nor change licence, plan or members", async () => {
    const { orgId, adminId } = await organisation(db, "Viewer");
    await recordLicence(db, adminId, LICENCE, at);
    await verified(db, orgId);
    await choosePlan(db, adminId, { plan: "pro" });
    const key = await createProductionKeyFor(db, adminId, { name: "Admin's" }, { at });
    const invitation = await inviteMember(db, adminId, { role: "viewer" }, { at, ttlDays: 7 });
    const viewer = await acceptInvitation(
      db,
      { token: invitation.token, name: "Vera Viewer", email: `viewer-${orgId}@example.test`, password: PASSWORD },
      at,
    );
    expect((await consoleAccess(db, viewer.id))?.role).toBe("viewer");
    const before = await keyCount(db, orgId);

    const attempts: Array<() => Promise<unknown>> = [
      () => createSandboxKeyFor(db, viewer.id, { sport: "soccer" }, { at, ttlDays: 30 }),
      () => createProductionKeyFor(db, viewer.id, { name: "Sneaky" }, { at }),
      () => revokeKeyFor(db, viewer.id, { keyId: key.id }, { at }),
      () => recordLicence(db, viewer.id, { ...LICENCE, reference: "FORGED" }, at),
      () => choosePlan(db, viewer.id, { plan: "starter" }),
      () => inviteMember(db, viewer.id, { role: "admin" }, { at, ttlDays: 7 }),
    ];
    for (const attempt of attempts) {
      expect(refused(await toActionState("done", attempt))).toMatch(/only an admin/i);
    }
    expect(await keyCount(db, orgId)).toBe(before);
    const [stored] = await db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
    expect(stored!.revokedAt).toBeNull();
    // The role is read on every action: promoted, the same session may now act.
    await changeRole(db, orgId, { userId: viewer.id, role: "admin" }, OPERATOR);
    await expect(revokeKeyFor(db, viewer.id, { keyId: key.id }, { at })).resolves.toBe(key.hint);
  });

  it("refuses every console action to a viewer, to another organisation's admin and when signed out, changing nothing", async () => {
    const target = await organisation(db, "Target");
    await recordLicence(db, target.adminId, LICENCE, at);
    await verified(db, target.orgId);
    await choosePlan(db, target.adminId, { plan: "pro" });
    const key = await createProductionKeyFor(db, target.adminId, { name: "Target's" }, { at });
    const secondAdmin = await invited(db, target.adminId, "admin", "Second");
    const viewer = await invited(db, target.adminId, "viewer", "Viewer");
    const pending = await inviteMember(db, target.adminId, { role: "viewer" }, { at, ttlDays: 7 });
    const [invitation] = await listPendingInvitations(db, target.orgId, at);
    expect(invitation?.expiresAt.toISOString()).toBe(pending.expiresAt);
    const hook = await addWebhookFor(
      db,
      target.adminId,
      { url: "http://127.0.0.1:9/hooks" },
      { at, allowPrivate: true },
    );
    const message = await sendWebhookTestFor(db, target.adminId, { endpointId: hook.endpointId }, { at });
    // Another organisation, licensed and on a plan, so that what it may do in its own organisation succeeds.
    const intruder = await organisation(db, "Intruder");
    await recordLicence(db, intruder.adminId, LICENCE, at);
    await verified(db, intruder.orgId);
    await choosePlan(db, intruder.adminId, { plan: "pro" });

    // Every action of lib/console/actions.ts with the target's ids; a forged orgId rides along on
    // those that name none, and must be ignored: they act on the caller's own organisation.
    const forged = { orgId: target.orgId };
    const actions: Array<{
      name: string;
      fields: Fields;
      run: (userId: string | null, f: Fields) => Promise<unknown>;
    }> = [
      {
        name: "recordLicence",
        fields: { ...LICENCE, ...forged },
        run: (u, f) => recordLicence(db, u, f, at),
      },
      { name: "choosePlan", fields: { plan: "starter", ...forged }, run: (u, f) => choosePlan(db, u, f) },
      {
        name: "requestPlanFor",
        fields: { plan: "enterprise", ...forged },
        run: (u, f) => requestPlanFor(db, u, f, at),
      },
      {
        name: "createSandboxKeyFor",
        fields: { sport: "soccer", ...forged },
        run: (u, f) => createSandboxKeyFor(db, u, f, { at, ttlDays: 30 }),
      },
      {
        name: "createProductionKeyFor",
        fields: { name: "Sneaky", ...forged },
        run: (u, f) => createProductionKeyFor(db, u, f, { at }),
      },
      { name: "revokeKeyFor", fields: { keyId: key.id }, run: (u, f) => revokeKeyFor(db, u, f, { at }) },
      {
        name: "inviteMember",
        fields: { role: "admin", ...forged },
        run: (u, f) => inviteMember(db, u, f, { at, ttlDays: 7 }),
      },
      {
        name: "withdrawInvitation",
        fields: { invitationId: invitation!.id },
        run: (u, f) => withdrawInvitation(db, u, f),
      },
      {
        name: "changeMemberRole",
        fields: { userId: viewer.id, role: "admin" },
        run: (u, f) => changeMemberRole(db, u, f),
      },
      { name: "removeMemberFrom", fields: { userId: secondAdmin.id }, run: (u, f) => removeMemberFrom(db, u, f) },
      {
        name: "updateKeyFor",
        fields: { keyId: key.id, name: "Renamed", nameShown: "Target's" },
        run: (u, f) => updateKeyFor(db, u, f, { at }),
      },
      {
        name: "rollKeyFor",
        fields: { keyId: key.id, overlapSeconds: "3600" },
        run: (u, f) => rollKeyFor(db, u, f, { at }),
      },
      {
        name: "addWebhookFor",
        fields: { url: "http://127.0.0.1:9/sneaky", ...forged },
        run: (u, f) => addWebhookFor(db, u, f, { at, allowPrivate: true }),
      },
      {
        name: "rotateWebhookSecretFor",
        fields: { endpointId: hook.endpointId },
        run: (u, f) => rotateWebhookSecretFor(db, u, f, { at }),
      },
      {
        name: "setWebhookEnabledFor",
        fields: { endpointId: hook.endpointId, enabled: "0" },
        run: (u, f) => setWebhookEnabledFor(db, u, f, { at }),
      },
      {
        name: "sendWebhookTestFor",
        fields: { endpointId: hook.endpointId },
        run: (u, f) => sendWebhookTestFor(db, u, f, { at }),
      },
      { name: "redeliverFor", fields: { deliveryId: message }, run: (u, f) => redeliverFor(db, u, f, { at }) },
      {
        name: "setThresholdsFor",
        fields: { thresholds: "50", ...forged },
        run: (u, f) => setThresholdsFor(db, u, f, { at }),
      },
    ];
    // Derived from the modules' exports, so that a new action cannot be left out of this table.
    const helpers = new Set(["formFields", "formValues", "toActionState", "utcFromField", "keySettingsFromForm"]);
    const exported = [...Object.entries(consoleActions), ...Object.entries(webhookActions)]
      .filter(([name, value]) => typeof value === "function" && !helpers.has(name))
      .map(([name]) => name);
    expect(actions.map((action) => action.name).sort()).toEqual(exported.sort());
    const notFound: Record<string, RegExp> = {
      revokeKeyFor: /^No key \S+ in this organisation\.$/,
      withdrawInvitation: /^No open invitation with that id in this organisation\.$/,
      changeMemberRole: /^No such member in this organisation\.$/,
      removeMemberFrom: /^No such member in this organisation\.$/,
      updateKeyFor: /^No key \S+ in this organisation\.$/,
      rollKeyFor: /^No key \S+ in this organisation\.$/,
      rotateWebhookSecretFor: /^No webhook endpoint \S+ in this organisation\.$/,
      setWebhookEnabledFor: /^No webhook endpoint \S+ in this organisation\.$/,
      sendWebhookTestFor: /^No webhook endpoint \S+ in this organisation\.$/,
      redeliverFor: /^No webhook message \S+ in this organisation\.$/,
    };
    const callers = [
      {
        caller: "a viewer of the organisation",
        userId: viewer.id,
        refusal: () => /^Only an admin of the organisation/,
      },
      { caller: "signed out", userId: null, refusal: () => /sign in again/ },
      {
        caller: "another organisation's admin",
        userId: intruder.adminId,
        refusal: (action: string) => notFound[action] ?? null,
      },
    ];

    const before = await everythingOf(db, target.orgId);
    for (const { caller, userId, refusal } of callers) {
      for (const { name, fields, run } of actions) {
        const state = await toActionState("done", () => run(userId, fields));
        const expected = refusal(name);
        if (expected) expect(refused(state), `${name} by ${caller}`).toMatch(expected);
        else expect(state, `${name} by ${caller}, in its own organisation`).toMatchObject({ ok: "done" });
        expect(await everythingOf(db, target.orgId), `${name} by ${caller} changed the organisation`).toBe(before);
      }
    }
    // The intruder's id-less actions landed in its own organisation.
    expect((await listKeys(db, intruder.orgId, at)).map((k) => k.environment).sort()).toEqual([
      "production",
      "sandbox",
    ]);
    const intruderAudit = await db.select().from(auditLog).where(eq(auditLog.orgId, intruder.orgId));
    expect(intruderAudit.filter((e) => e.action === "licence.set")).toHaveLength(2);
  });

  it("keeps the last admin: they can neither be demoted nor removed, nor leave", async () => {
    const { orgId, adminId } = await organisation(db, "Last Admin");
    const viewer = await invited(db, adminId, "viewer", "Viewer");
    const before = await everythingOf(db, orgId);
    expect(
      refused(await toActionState("done", () => changeMemberRole(db, adminId, { userId: adminId, role: "viewer" }))),
    ).toBe("The organisation needs at least one admin: make someone else admin first.");
    expect(refused(await toActionState("done", () => removeMemberFrom(db, adminId, { userId: adminId })))).toBe(
      "You cannot remove yourself.",
    );
    // The operator's path has no "yourself": the rule itself refuses.
    await expect(removeMember(db, orgId, { userId: adminId }, OPERATOR)).rejects.toThrow(
      "The organisation needs at least one admin: the last admin cannot be removed.",
    );
    expect(await everythingOf(db, orgId)).toBe(before);

    // With a second admin, either may step down, and then the other is the last.
    await changeMemberRole(db, adminId, { userId: viewer.id, role: "admin" });
    await changeMemberRole(db, viewer.id, { userId: adminId, role: "viewer" });
    expect(
      refused(
        await toActionState("done", () => changeMemberRole(db, viewer.id, { userId: viewer.id, role: "viewer" })),
      ),
    ).toMatch(/at least one admin/);
    expect((await listMembers(db, orgId)).map((m) => m.role).sort()).toEqual(["admin", "viewer"]);
  });

  it("refuses an invitation once it has expired, and stops listing it", async () => {
    const { orgId, adminId } = await organisation(db, "Expiring");
    const ttlDays = 7;
    const early = await inviteMember(db, adminId, { role: "viewer" }, { at, ttlDays });
    const late = await inviteMember(db, adminId, { role: "viewer" }, { at, ttlDays });
    const expiry = new Date(late.expiresAt);
    expect(expiry.getTime()).toBe(at.getTime() + ttlDays * 86_400_000);
    const accept = (token: string, when: Date) =>
      toActionState("done", () =>
        acceptInvitation(
          db,
          { token, name: "Late", email: `late-${randomUUID()}@example.test`, password: PASSWORD },
          when,
        ),
      );

    const justAfter = new Date(expiry.getTime() + 1);
    expect(await findInvitation(db, late.token, justAfter)).toBeNull();
    expect(await listPendingInvitations(db, orgId, justAfter)).toEqual([]);
    expect(refused(await accept(late.token, justAfter))).toMatch(
      /not valid: it was used already, revoked or has expired/,
    );
    expect(await listMembers(db, orgId)).toHaveLength(1);
    // The moment before, it still works.
    expect(await accept(early.token, new Date(expiry.getTime() - 1))).toMatchObject({ ok: "done" });
    expect(await listMembers(db, orgId)).toHaveLength(2);
  });

  it("refuses everything to a session whose user was removed, at once", async () => {
    const { orgId, adminId } = await organisation(db, "Removed");
    const invitation = await inviteMember(db, adminId, { role: "admin" }, { at, ttlDays: 7 });
    const second = await acceptInvitation(
      db,
      { token: invitation.token, name: "Second", email: `second-${orgId}@example.test`, password: PASSWORD },
      at,
    );
    await removeMember(db, orgId, { userId: second.id }, OPERATOR);
    expect(await consoleAccess(db, second.id)).toBeNull();
    expect(refused(await toActionState("done", () => choosePlan(db, second.id, { plan: "pro" })))).toMatch(
      /sign in again/,
    );
    expect(refused(await toActionState("done", () => choosePlan(db, null, { plan: "pro" })))).toMatch(/sign in again/);
  });

  it("never lets an admin of one organisation read or revoke another's keys, even with the other's key id", async () => {
    const a = await organisation(db, "Org A");
    const b = await organisation(db, "Org B");
    const bKey = await createSandboxKeyFor(db, b.adminId, { sport: "tennis" }, { at, ttlDays: 30 });
    await db.insert(usageDaily).values({ keyId: bKey.id, day: "2026-11-03", requests: 42 });

    const error = refused(await toActionState("done", () => revokeKeyFor(db, a.adminId, { keyId: bKey.id }, { at })));
    expect(error).toBe(`No key ${bKey.id} in this organisation.`);
    const [stored] = await db.select().from(apiKeys).where(eq(apiKeys.id, bKey.id));
    expect(stored!.revokedAt).toBeNull();
    expect(await db.select().from(auditLog).where(eq(auditLog.action, "key.revoked"))).not.toContainEqual(
      expect.objectContaining({ target: bKey.id }),
    );

    // What A's console reads is scoped to A: neither the key list nor the usage names B's key.
    const aAccess = (await consoleAccess(db, a.adminId))!;
    expect(aAccess.organisation.id).toBe(a.orgId);
    expect((await listKeys(db, aAccess.organisation.id, at)).map((k) => k.id)).not.toContain(bKey.id);
    const aUsage = await usageForMonth(db, aAccess.organisation.id, "2026-11");
    expect(aUsage.total).toBe(0);
    expect(aUsage.keys.map((k) => k.keyId)).not.toContain(bKey.id);
  });

  it("gives one sandbox key and refuses a second, and the key list shows it with its expiry", async () => {
    const { orgId, adminId } = await organisation(db, "Sandbox");
    const created = await createSandboxKeyFor(db, adminId, { sport: "cs2" }, { at, ttlDays: 30 });
    expect(created.key).toMatch(/^svc_sb_/);
    expect(created.expiresAt).toBe("2026-12-21T12:00:00.000Z");
    const second = refused(
      await toActionState("done", () => createSandboxKeyFor(db, adminId, { sport: "soccer" }, { at, ttlDays: 30 })),
    );
    expect(second).toMatch(/already has its sandbox key/);
    expect(await keyCount(db, orgId)).toBe(1);
    expect(
      refused(
        await toActionState("done", () => createSandboxKeyFor(db, adminId, { sport: "chess" }, { at, ttlDays: 30 })),
      ),
    ).toBe("Check the marked fields.");
  });

  it("refuses a production key without a licence, with a lapsed one, or without a plan, saying what is missing", async () => {
    const { orgId, adminId } = await organisation(db, "Production");
    const attempt = () => toActionState("done", () => createProductionKeyFor(db, adminId, {}, { at }));

    const neither = refused(await attempt());
    expect(neither).toContain("No licence record");
    expect(neither).toContain("No plan");

    await recordLicence(db, adminId, { ...LICENCE, validFrom: "2025-01-01", validUntil: "2026-11-20" }, at);
    await verified(db, orgId);
    const lapsed = refused(await attempt());
    expect(lapsed).toContain("lapsed after 2026-11-20");
    expect(lapsed).toContain("No plan");

    await recordLicence(db, adminId, LICENCE, at);
    await verified(db, orgId);
    expect(refused(await attempt())).toBe("A production key cannot be created yet. No plan: choose a plan first.");
    expect(await keyCount(db, orgId)).toBe(0);

    await choosePlan(db, adminId, { plan: "starter" });
    const created = await createProductionKeyFor(db, adminId, { name: "Web app" }, { at });
    expect(created).toMatchObject({
      environment: "production",
      sports: ["soccer", "basketball", "tennis"],
      expiresAt: null,
    });
    // The licence's history: both versions are in the audit log.
    const licenceEntries = await db.select().from(auditLog).where(eq(auditLog.action, "licence.set"));
    expect(licenceEntries.filter((e) => e.orgId === orgId)).toHaveLength(2);
  });

  it("keeps a licence recorded in the console pending, without production keys, until an operator verifies it", async () => {
    const { orgId, adminId } = await organisation(db, "Pending");
    await choosePlan(db, adminId, { plan: "pro" });
    const recorded = await recordLicence(db, adminId, LICENCE, at);
    expect(recorded.verification).toBe("pending");
    const attempt = () => toActionState("done", () => createProductionKeyFor(db, adminId, {}, { at }));
    expect(refused(await attempt())).toContain("MGA/B2B/1 awaits an operator's verification");
    expect(await mayHoldProductionKeys(db, orgId, at)).toBe(false);

    await verified(db, orgId);
    expect(await mayHoldProductionKeys(db, orgId, at)).toBe(true);
    await createProductionKeyFor(db, adminId, {}, { at });
    // Saved unchanged, it stays verified; changed (a later expiry, say), it is checked again.
    await recordLicence(db, adminId, LICENCE, at);
    expect(await mayHoldProductionKeys(db, orgId, at)).toBe(true);
    await recordLicence(db, adminId, { ...LICENCE, validUntil: "2099-12-31" }, at);
    expect((await getLicence(db, orgId))?.verification).toBe("pending");
    expect(await mayHoldProductionKeys(db, orgId, at)).toBe(false);
    expect(refused(await attempt())).toContain("awaits an operator's verification");

    await reviewLicence(db, orgId, "reject", { actor: OPERATOR, at, reason: "No such licence in the register" });
    expect(refused(await attempt())).toContain("was rejected on 2026-11-21 (No such licence in the register)");
    const actions = (await db.select().from(auditLog).where(eq(auditLog.orgId, orgId))).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(["licence.set", "licence.verified", "licence.rejected"]));
  });

  it("lets an admin choose a listed plan but only request one priced on request, which an operator approves", async () => {
    const { orgId, adminId } = await organisation(db, "Enterprise");
    await recordLicence(db, adminId, LICENCE, at);
    await verified(db, orgId);
    expect(refused(await toActionState("done", () => choosePlan(db, adminId, { plan: "enterprise" })))).toMatch(
      /Enterprise is priced on request/,
    );
    expect((await consoleAccess(db, adminId))?.organisation.planCode).toBeNull();
    expect(refused(await toActionState("done", () => requestPlanFor(db, adminId, { plan: "starter" }, at)))).toMatch(
      /listed price/,
    );

    await choosePlan(db, adminId, { plan: "starter" });
    await requestPlanFor(db, adminId, { plan: "enterprise" }, at);
    // Until the approval the organisation stays on its plan, and its keys on that plan's limits.
    expect((await consoleAccess(db, adminId))?.organisation).toMatchObject({
      planCode: "starter",
      requestedPlanCode: "enterprise",
    });
    await approvePlanRequest(db, orgId, OPERATOR);
    expect((await consoleAccess(db, adminId))?.organisation).toMatchObject({
      planCode: "enterprise",
      requestedPlanCode: null,
    });
    const actions = (await db.select().from(auditLog).where(eq(auditLog.orgId, orgId))).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(["plan.requested", "plan.approved"]));
    await expect(approvePlanRequest(db, orgId, OPERATOR)).rejects.toThrow(/no plan request waiting/);
  });

  it("lets an invitation link be used once", async () => {
    const { orgId, adminId } = await organisation(db, "Invite");
    const { token } = await inviteMember(db, adminId, { role: "viewer" }, { at, ttlDays: 7 });
    const accept = (email: string) =>
      toActionState("done", () => acceptInvitation(db, { token, name: "Someone", email, password: PASSWORD }, at));
    const results = await Promise.all([accept(`one-${orgId}@example.test`), accept(`two-${orgId}@example.test`)]);
    expect(results.filter((r) => r && "ok" in r)).toHaveLength(1);
    expect(refused(await accept(`three-${orgId}@example.test`))).toMatch(/not valid/);
  });

  it("charts requests per day of the month, per key and in total, from usage_daily", async () => {
    const { orgId, adminId } = await organisation(db, "Usage");
    await recordLicence(db, adminId, LICENCE, at);
    await verified(db, orgId);
    await choosePlan(db, adminId, { plan: "pro" });
    const one = await createProductionKeyFor(db, adminId, { name: "One" }, { at });
    const two = await createProductionKeyFor(db, adminId, {}, { at });
    await db.insert(usageDaily).values([
      { keyId: one.id, day: "2026-11-01", requests: 10 },
      { keyId: one.id, day: "2026-11-21", requests: 5 },
      { keyId: two.id, day: "2026-11-21", requests: 7 },
      { keyId: two.id, day: "2026-10-31", requests: 1000 }, // another month
      { keyId: two.id, day: "2026-12-01", requests: 1000 },
    ]);
    const usage = await usageForMonth(db, orgId, "2026-11");
    expect(usage.days).toHaveLength(30);
    expect(usage.days[0]).toMatchObject({ day: "2026-11-01", total: 10, [one.id]: 10, [two.id]: 0 });
    expect(usage.days[20]).toMatchObject({ day: "2026-11-21", total: 12, [one.id]: 5, [two.id]: 7 });
    expect(usage.total).toBe(22);
    expect(usage.keys).toHaveLength(2);
    expect(usage.keys).toEqual(
      expect.arrayContaining([
        { keyId: one.id, label: `One (${one.hint})`, total: 15 },
        { keyId: two.id, label: `Production ${two.hint}`, total: 7 },
      ]),
    );
    expect((await usageForMonth(db, orgId, "2026-02")).days).toHaveLength(28);
  });

  it("throttles one client's failed sign-ins for an e-mail, even with the right password, until the window passes", async () => {
    const { email } = await organisation(db, "Throttle");
    const address = "198.51.100.7";
    for (let i = 0; i < SIGN_IN_LIMITS.perEmailAndAddress; i++) {
      expect(await signInWithPassword(db, { email, password: "wrong password!", address }, at)).toEqual({
        ok: false,
        reason: "invalid",
      });
    }
    expect(await recentFailures(db, email, at)).toBe(SIGN_IN_LIMITS.perEmailAndAddress);
    const throttled = await signInWithPassword(db, { email: email.toUpperCase(), password: PASSWORD, address }, at);
    expect(throttled).toEqual({ ok: false, reason: "throttled", retryAfterSeconds: SIGN_IN_LIMITS.windowSeconds });

    const later = new Date(at.getTime() + SIGN_IN_LIMITS.windowSeconds * 1000 + 1000);
    const signedIn = await signInWithPassword(db, { email, password: PASSWORD, address }, later);
    expect(signedIn.ok).toBe(true);
    expect(await recentFailures(db, email, later)).toBe(0);
  });

  it("lets the member in from their own address while others fail at their e-mail, only slower", async () => {
    const { email } = await organisation(db, "Lockout");
    const pauses: number[] = [];
    const pause = async (ms: number) => void pauses.push(ms);
    // Attackers from a few addresses, each up to its limit for this e-mail.
    for (let i = 0; i < 2 * SIGN_IN_LIMITS.perEmailAndAddress; i++) {
      const address = `203.0.113.${i % 2}`;
      const attempt = await signInWithPassword(db, { email, password: "wrong password!", address }, at, { pause });
      expect(attempt).toMatchObject({ reason: "invalid" });
    }
    pauses.length = 0;
    const member = await signInWithPassword(db, { email, password: PASSWORD, address: "198.51.100.20" }, at, { pause });
    expect(member.ok).toBe(true);
    // Ten failures, five past the free ones: the delay has doubled up to its ceiling.
    expect(pauses).toEqual([SIGN_IN_LIMITS.maxDelaySeconds * 1000]);
    expect(emailDelaySeconds(SIGN_IN_LIMITS.emailDelayAfter - 1)).toBe(0);
    expect(emailDelaySeconds(SIGN_IN_LIMITS.emailDelayAfter)).toBe(1);
    expect(emailDelaySeconds(SIGN_IN_LIMITS.emailDelayAfter + 2)).toBe(4);
  });

  it("throttles one address guessing across many e-mail addresses, known or not", async () => {
    const { email } = await organisation(db, "Spray");
    const address = "192.0.2.55";
    for (let i = 0; i < SIGN_IN_LIMITS.perAddress; i++) {
      await signInWithPassword(db, { email: `guess-${i}@nowhere.test`, password: "wrong password!", address }, at);
    }
    expect(await signInWithPassword(db, { email, password: PASSWORD, address }, at)).toMatchObject({
      reason: "throttled",
    });
    expect((await signInWithPassword(db, { email, password: PASSWORD, address: "192.0.2.56" }, at)).ok).toBe(true);
  });
});

describe.runIf(POSTGRES)("sign-in throttling across instances on postgres", () => {
  const database = useTestDatabase(POSTGRES!);
  const instances: DatabaseHandle[] = [];

  beforeAll(async () => {
    // Two handles with pools of their own stand for two server instances sharing PostgreSQL.
    instances.push(await openDatabase(database().config), await openDatabase(database().config));
    await seedReferenceData(instances[0]!.db);
  });
  afterAll(async () => {
    for (const instance of instances) await instance.close();
  });

  it("counts failures made on one instance when another is asked", async () => {
    const [one, two] = instances as [DatabaseHandle, DatabaseHandle];
    const { email } = await organisation(one.db, "Shared");
    const address = "10.0.0.1";
    for (let i = 0; i < SIGN_IN_LIMITS.perEmailAndAddress; i++) {
      const instance = i % 2 === 0 ? one : two;
      await signInWithPassword(instance.db, { email, password: "wrong password!", address }, at);
    }
    expect(await signInWithPassword(two.db, { email, password: PASSWORD, address }, at)).toMatchObject({
      reason: "throttled",
    });
    expect(await signInWithPassword(one.db, { email, password: PASSWORD, address }, at)).toMatchObject({
      reason: "throttled",
    });
    expect(rowsCount(await one.db.execute(sql`select count(*)::int as n from sign_in_failures`))).toBe(
      SIGN_IN_LIMITS.perEmailAndAddress,
    );
  });
});

function rowsCount(result: unknown): number {
  const rows = Array.isArray(result) ? result : (result as { rows: unknown[] }).rows;
  return (rows[0] as { n: number }).n;
}
