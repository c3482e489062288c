import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { toActionState, inviteMember, type ActionState, type Fields } from "../../lib/console/actions.ts";
import { acceptInvitation, signUp } from "../../lib/console/members.ts";
import {
  addWebhookFor,
  redeliverFor,
  rotateWebhookSecretFor,
  sendWebhookTestFor,
  setThresholdsFor,
  setWebhookEnabledFor,
} from "../../lib/console/webhooks.ts";
import { openDatabase, type DatabaseHandle } from "../../lib/db/index.ts";
import { auditLog, usageAlertSettings, webhookDeliveries, webhookEndpoints } from "../../lib/db/schema/index.ts";
import { UsageAlerts } from "../../lib/ops/webhooks/alerts.ts";
import { listDeliveries, listEndpoints } from "../../lib/ops/webhooks/endpoints.ts";
import { LOG_RETENTION_MS, WebhookWorker } from "../../lib/ops/webhooks/worker.ts";
import { seedReferenceData } from "../../seeds/index.ts";
import { adminCli } from "../../testing/admin.ts";
import { describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { recordSecret } from "../../testing/logs.ts";

// The Webhooks page's rules, called as its server actions call them (the user id a session carries
// and raw form fields), and the operator CLI's webhook commands: the same changes, each audited.

const at = new Date("2026-11-21T12:00:00Z");
const PASSWORD = "correct horse battery staple";
const RECEIVER = "http://127.0.0.1:9/hooks";

function refused<T>(state: ActionState<T>): string {
  if (!state || !("error" in state)) throw new Error(`expected a refusal, got ${JSON.stringify(state)}`);
  return state.error;
}

let counter = 0;
async function organisation(db: DatabaseHandle["db"]) {
  counter += 1;
  const { organisation, user } = await signUp(db, {
    organisation: `Hooks ${counter}`,
    name: "First Admin",
    email: `hooks-${counter}@example.test`,
    password: PASSWORD,
  });
  const { token } = await inviteMember(db, user.id, { role: "viewer" }, { at, ttlDays: 7 });
  const viewer = await acceptInvitation(
    db,
    { token, name: "Viewer", email: `hooks-viewer-${counter}@example.test`, password: PASSWORD },
    at,
  );
  return { orgId: organisation.id, adminId: user.id, viewerId: viewer.id };
}

describeEachBackend("webhook endpoints in the console and the CLI on $name", (backend) => {
  const database = useTestDatabase(backend);
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await openDatabase(database().config);
    await seedReferenceData(handle.db);
  });
  afterAll(async () => {
    await handle?.close();
  });
  const db = () => handle.db;
  const cli = adminCli(() => handle.db);

  it("lets an admin add (secret shown once), test, rotate, disable and resend, each in the audit log", async () => {
    const { orgId, adminId } = await organisation(db());
    const options = { at, allowPrivate: true };
    const added = await addWebhookFor(db(), adminId, { url: RECEIVER }, options);
    recordSecret(added.secret);
    expect(added.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    // Nothing lists the secret again.
    expect(JSON.stringify(await listEndpoints(db(), orgId))).not.toContain(added.secret);

    const fields = { endpointId: added.endpointId };
    const messageId = await sendWebhookTestFor(db(), adminId, fields, { at });
    const rotated = await rotateWebhookSecretFor(db(), adminId, fields, { at });
    recordSecret(rotated.secret);
    expect(rotated.secret).not.toBe(added.secret);
    const [stored] = await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, added.endpointId));
    expect(stored?.secret).toBe(rotated.secret);
    await setWebhookEnabledFor(db(), adminId, { ...fields, enabled: "0" }, { at });
    expect((await listEndpoints(db(), orgId))[0]?.enabled).toBe(false);
    await db()
      .update(webhookDeliveries)
      .set({ state: "failed", nextAttemptAt: null })
      .where(eq(webhookDeliveries.id, messageId));
    await redeliverFor(db(), adminId, { deliveryId: messageId }, { at });
    const [delivery] = await listDeliveries(db(), orgId, added.endpointId);
    expect(delivery).toMatchObject({ id: messageId, type: "webhook.test", state: "pending", nextAttemptAt: at });
    expect(await setThresholdsFor(db(), adminId, { thresholds: "95, 50 90" }, { at })).toEqual([50, 90, 95]);

    const audit = await db().select().from(auditLog).where(eq(auditLog.orgId, orgId)).orderBy(auditLog.id);
    expect(audit.map((e) => e.action).filter((a) => a.startsWith("webhook.") || a.startsWith("usage."))).toEqual([
      "webhook.created",
      "webhook.test_sent",
      "webhook.secret_rotated",
      "webhook.disabled",
      "webhook.redelivered",
      "usage.thresholds_set",
    ]);
    expect(JSON.stringify(audit)).not.toContain("whsec_");
  });

  it("refuses a private address unless allowed, and every change to a viewer, another organisation and the signed out", async () => {
    const target = await organisation(db());
    const intruder = await organisation(db());
    const local = await toActionState("done", () =>
      addWebhookFor(db(), target.adminId, { url: "http://10.0.0.7/hooks" }, { at, allowPrivate: false }),
    );
    expect(refused(local)).toMatch(/public internet/);
    expect(refused(local)).not.toContain("10.0.0.7");
    expect(
      refused(
        await toActionState("done", () => addWebhookFor(db(), target.adminId, { url: "" }, { at, allowPrivate: true })),
      ),
    ).toBe("Check the marked fields.");
    const { endpointId } = await addWebhookFor(db(), target.adminId, { url: RECEIVER }, { at, allowPrivate: true });
    const deliveryId = await sendWebhookTestFor(db(), target.adminId, { endpointId }, { at });

    const everything = async () =>
      JSON.stringify({
        endpoints: await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.orgId, target.orgId)),
        deliveries: await db()
          .select()
          .from(webhookDeliveries)
          .where(inArray(webhookDeliveries.id, [deliveryId])),
        settings: await db().select().from(usageAlertSettings).where(eq(usageAlertSettings.orgId, target.orgId)),
      });
    const actions: {
      name: string;
      run: (userId: string | null, fields: Fields) => Promise<unknown>;
      fields: Fields;
    }[] = [
      { name: "rotate", fields: { endpointId }, run: (u, f) => rotateWebhookSecretFor(db(), u, f, { at }) },
      {
        name: "disable",
        fields: { endpointId, enabled: "0" },
        run: (u, f) => setWebhookEnabledFor(db(), u, f, { at }),
      },
      { name: "test", fields: { endpointId }, run: (u, f) => sendWebhookTestFor(db(), u, f, { at }) },
      { name: "resend", fields: { deliveryId }, run: (u, f) => redeliverFor(db(), u, f, { at }) },
    ];
    const before = await everything();
    for (const [caller, userId, refusal] of [
      ["viewer", target.viewerId, /^Only an admin/],
      ["signed out", null, /sign in again/],
      ["another organisation's admin", intruder.adminId, /^No webhook (endpoint|message) \S+ in this organisation\.$/],
    ] as const) {
      for (const { name, fields, run } of actions) {
        expect(refused(await toActionState("done", () => run(userId, fields))), `${name} by ${caller}`).toMatch(
          refusal,
        );
      }
    }
    expect(
      refused(await toActionState("done", () => setThresholdsFor(db(), target.viewerId, { thresholds: "50" }, { at }))),
    ).toMatch(/^Only an admin/);
    expect(await everything()).toBe(before);
  });

  it("keeps messages no longer tried for 30 days, and pending ones until they are", async () => {
    const { orgId, adminId } = await organisation(db());
    const { endpointId } = await addWebhookFor(db(), adminId, { url: RECEIVER }, { at, allowPrivate: true });
    const [done, failed, pending] = [
      await sendWebhookTestFor(db(), adminId, { endpointId }, { at }),
      await sendWebhookTestFor(db(), adminId, { endpointId }, { at }),
      await sendWebhookTestFor(db(), adminId, { endpointId }, { at }),
    ];
    await db().update(webhookDeliveries).set({ state: "delivered" }).where(eq(webhookDeliveries.id, done));
    await db().update(webhookDeliveries).set({ state: "failed" }).where(eq(webhookDeliveries.id, failed));
    const worker = (days: number) =>
      new WebhookWorker(
        db(),
        new UsageAlerts(db()),
        { allowPrivate: true, retryBaseMs: 1_000 },
        () => new Date(at.getTime() + days),
      );
    await worker(LOG_RETENTION_MS - 60_000).pruneLog();
    expect((await listDeliveries(db(), orgId, endpointId)).map((d) => d.id).sort()).toEqual(
      [done, failed, pending].sort(),
    );
    await worker(LOG_RETENTION_MS + 60_000).pruneLog();
    expect((await listDeliveries(db(), orgId, endpointId)).map((d) => d.id)).toEqual([pending]);
  });

  it("gives the operator the same commands, with --json", async () => {
    const { orgId } = await organisation(db());
    const added = await cli.json<{ id: string; secret: string; url: string }>([
      "webhook",
      "add",
      "--org",
      orgId,
      "--url",
      RECEIVER,
    ]);
    recordSecret(added.secret);
    expect(added).toMatchObject({ url: RECEIVER, enabled: true });
    expect(added.secret).toMatch(/^whsec_/);
    expect(await cli.json(["webhook", "list", "--org", orgId])).toEqual([
      expect.objectContaining({ id: added.id, url: RECEIVER }),
    ]);
    const { messageId } = await cli.json<{ messageId: string }>(["webhook", "test", "--id", added.id]);
    const log = await cli.json<{ id: string; type: string; state: string }[]>(["webhook", "log", "--id", added.id]);
    expect(log).toEqual([expect.objectContaining({ id: messageId, type: "webhook.test", state: "pending" })]);
    const rotated = await cli.json<{ secret: string }>(["webhook", "rotate", "--id", added.id]);
    recordSecret(rotated.secret);
    expect(rotated.secret).not.toBe(added.secret);
    expect(await cli.json(["webhook", "disable", "--id", added.id])).toMatchObject({ enabled: false });
    expect(await cli.json(["webhook", "enable", "--id", added.id])).toMatchObject({ enabled: true });
    expect(await cli.json(["webhook", "resend", "--id", messageId])).toEqual({ messageId });
    expect(await cli.json(["webhook", "thresholds", "--org", orgId])).toEqual({ orgId, thresholds: [80, 95, 100] });
    expect(await cli.json(["webhook", "thresholds", "--org", orgId, "--set", "50,100"])).toEqual({
      orgId,
      thresholds: [50, 100],
    });
    const invalid = await cli.run(["webhook", "thresholds", "--org", orgId, "--set", "0,150", "--json"]);
    expect(invalid.code).toBe(1);
    expect(JSON.parse(invalid.stdout)).toMatchObject({ error: { code: "invalid_input" } });
    const unknown = await cli.run(["webhook", "rotate", "--id", "whe_nope"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No webhook endpoint whe_nope.");
    const audit = await db().select().from(auditLog).where(eq(auditLog.orgId, orgId)).orderBy(auditLog.id);
    expect(audit.filter((e) => e.actor === "operator (cli)").map((e) => e.action)).toEqual([
      "webhook.created",
      "webhook.test_sent",
      "webhook.secret_rotated",
      "webhook.disabled",
      "webhook.enabled",
      "webhook.redelivered",
      "usage.thresholds_set",
    ]);
  });
});
