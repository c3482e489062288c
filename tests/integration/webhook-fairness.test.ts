import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "../../lib/accounts/audit.ts";
import { auditLog, webhookDeliveries, webhookEndpoints } from "../../lib/db/schema/index.ts";
import { openDatabase, type Database, type DatabaseHandle } from "../../lib/db/index.ts";
import { createOrganisation } from "../../lib/accounts/organisations.ts";
import { UsageAlerts } from "../../lib/ops/webhooks/alerts.ts";
import {
  addEndpoint,
  autoDisabledEndpoints,
  listDeliveries,
  sendTest,
  setEndpointEnabled,
} from "../../lib/ops/webhooks/endpoints.ts";
import { queueEvent } from "../../lib/ops/webhooks/events.ts";
import {
  ATTEMPTS_IN_FLIGHT_PER_ORGANISATION,
  ENDPOINTS_PER_ORGANISATION,
  FAILING_DISABLES_AFTER_MS,
  TEST_SENDS_PER_MINUTE,
} from "../../lib/ops/webhooks/limits.ts";
import { newSecret } from "../../lib/ops/webhooks/signature.ts";
import { WebhookWorker } from "../../lib/ops/webhooks/worker.ts";
import { seedReferenceData } from "../../seeds/index.ts";
import { describeEachBackend, POSTGRES, useTestDatabase } from "../../testing/databases.ts";
import { recordSecret } from "../../testing/logs.ts";
import { startServer } from "../../testing/processes.ts";

// The webhook worker as one organisation's stalled receiver meets another's (docs/webhooks.md):
// attempts are scheduled per organisation and per endpoint with bounded concurrency, endpoints and
// test messages are capped, an endpoint failing for a day is disabled with the organisation told,
// and an endpoint has one attempt open at a time across every instance.

type Receiver = { url: string; received: number; open: number; close(): Promise<void> };

/** A receiver answering 204, or (`stall`) never answering, keeping count of what it was sent. */
async function receiver(answer: "204" | "500" | "stall"): Promise<Receiver> {
  const held: ServerResponse[] = [];
  const state = { received: 0, open: 0 };
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    request.on("end", () => {
      state.received += 1;
      if (answer === "stall") {
        state.open += 1;
        response.on("close", () => (state.open -= 1));
        held.push(response);
      } else response.writeHead(answer === "204" ? 204 : 500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    get received() {
      return state.received;
    },
    get open() {
      return state.open;
    },
    close: () =>
      new Promise((resolve) => {
        for (const response of held) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function until(condition: () => boolean | Promise<boolean>, what: string, withinMs = 20_000): Promise<void> {
  const end = Date.now() + withinMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`Waited ${withinMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let made = 0;

/** A fresh organisation (each test owns its own) with one endpoint at `url`. */
async function organisation(db: Database, url: string, at = new Date()) {
  made += 1;
  const org = await createOrganisation(db, { name: `Fair ${made}`, slug: `fair-${made}-${Date.now()}` }, OPERATOR);
  const { endpoint, secret } = await addEndpoint(db, org.id, url, {
    actor: OPERATOR,
    at,
    allowPrivate: true,
    secret: newSecret(),
  });
  recordSecret(secret);
  return { orgId: org.id, endpointId: endpoint.id };
}

describeEachBackend("fair webhook deliveries on $name", { timeout: 60_000 }, (backend) => {
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

  it("posts another organisation's message while one organisation's receiver never answers", async () => {
    const stalled = await receiver("stall");
    const answering = await receiver("204");
    // Answers are awaited far longer than the test runs: only fair scheduling lets B's through.
    const worker = new WebhookWorker(
      db(),
      new UsageAlerts(db()),
      { allowPrivate: true, retryBaseMs: 60_000, timeoutMs: 600_000 },
      () => new Date(),
    );
    try {
      const a = await organisation(db(), stalled.url);
      await addEndpoint(db(), a.orgId, stalled.url.replace("/hooks", "/other"), {
        actor: OPERATOR,
        at: new Date(),
        allowPrivate: true,
        secret: newSecret(),
      });
      const b = await organisation(db(), answering.url);
      const at = new Date(Date.now() - 1_000);
      for (let i = 0; i < 100; i++) {
        await queueEvent(db(), { orgId: a.orgId, type: "webhook.test", at, data: { n: i } });
      }
      const [bMessage] = await queueEvent(db(), { orgId: b.orgId, type: "webhook.test", at: new Date(), data: {} });
      worker.start();
      await until(() => answering.received === 1, "B's message");
      await until(async () => (await stateOf(db(), bMessage!)) === "delivered", "B's message recorded");
      // A holds one attempt per endpoint, within its organisation's share, and nothing more.
      expect(stalled.open).toBe(2);
      expect(stalled.open).toBeLessThanOrEqual(ATTEMPTS_IN_FLIGHT_PER_ORGANISATION);
      expect(stalled.received).toBe(2);
    } finally {
      await worker.stop();
      await stalled.close();
      await answering.close();
    }
  });

  it(`caps an organisation at ${ENDPOINTS_PER_ORGANISATION} endpoints and ${TEST_SENDS_PER_MINUTE} test messages a minute`, async () => {
    const at = new Date();
    const { orgId, endpointId } = await organisation(db(), "http://127.0.0.1:9/hooks", at);
    for (let i = 1; i < ENDPOINTS_PER_ORGANISATION; i++) {
      await addEndpoint(db(), orgId, `http://127.0.0.1:9/hooks/${i}`, {
        actor: OPERATOR,
        at,
        allowPrivate: true,
        secret: newSecret(),
      });
    }
    await expect(
      addEndpoint(db(), orgId, "http://127.0.0.1:9/one-too-many", {
        actor: OPERATOR,
        at,
        allowPrivate: true,
        secret: newSecret(),
      }),
    ).rejects.toMatchObject({ code: "conflict", message: expect.stringMatching(/at most 10 webhook endpoints/) });

    for (let i = 0; i < TEST_SENDS_PER_MINUTE; i++) await sendTest(db(), orgId, endpointId, { actor: OPERATOR, at });
    await expect(sendTest(db(), orgId, endpointId, { actor: OPERATOR, at })).rejects.toMatchObject({
      code: "throttled",
      message: expect.stringMatching(/At most 10 test messages a minute: try again in 60 s/),
    });
    // A minute on, the organisation may test again.
    const later = new Date(at.getTime() + 60_001);
    await expect(sendTest(db(), orgId, endpointId, { actor: OPERATOR, at: later })).resolves.toMatch(/^msg_/);
    // Its messages are this test's: no other test's worker is to post them.
    await db().update(webhookEndpoints).set({ enabled: false }).where(eq(webhookEndpoints.orgId, orgId));
  });

  it("disables an endpoint after a day of failed attempts and tells the organisation (banner and audit)", async () => {
    const failing = await receiver("500");
    let clockMs = Date.now();
    const worker = new WebhookWorker(
      db(),
      new UsageAlerts(db()),
      // Each message is tried once (its retry would fall past its day), so the attempts are the test's.
      { allowPrivate: true, retryBaseMs: 2 * FAILING_DISABLES_AFTER_MS },
      () => new Date(clockMs),
    );
    try {
      const { orgId, endpointId } = await organisation(db(), failing.url, new Date(clockMs));
      const attempt = async (n: number) => {
        await queueEvent(db(), { orgId, type: "webhook.test", at: new Date(clockMs), data: { n } });
        worker.wake();
        await until(() => failing.received === n, `attempt ${n}`);
        await until(async () => (await attemptsOf(db(), endpointId)) === n, `attempt ${n} recorded`);
      };
      worker.start();
      await attempt(1);
      clockMs += FAILING_DISABLES_AFTER_MS - 60_000;
      await attempt(2);
      expect(await autoDisabledEndpoints(db(), orgId)).toEqual([]);
      clockMs += 120_000;
      await attempt(3);
      const [disabled] = await autoDisabledEndpoints(db(), orgId);
      expect(disabled).toMatchObject({ id: endpointId, enabled: false, url: failing.url });
      const audit = await db()
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.orgId, orgId), eq(auditLog.action, "webhook.auto_disabled")));
      expect(audit).toMatchObject([{ target: endpointId, actor: "webhook deliveries" }]);

      // Disabled: nothing more is posted. The worker stops before the endpoint is enabled again, or
      // it would post that message then and start a new run of failures.
      await queueEvent(db(), { orgId, type: "webhook.test", at: new Date(clockMs), data: {}, endpointId });
      worker.wake();
      await worker.stop();
      expect(failing.received).toBe(3);
      // Enabled again, the banner goes and the run starts afresh.
      await setEndpointEnabled(db(), orgId, endpointId, true, { actor: OPERATOR, at: new Date(clockMs) });
      expect(await autoDisabledEndpoints(db(), orgId)).toEqual([]);
      const [endpoint] = await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpointId));
      expect(endpoint).toMatchObject({ enabled: true, failingSince: null, autoDisabledAt: null });
    } finally {
      await worker.stop();
      await failing.close();
    }
  });
});

async function stateOf(db: Database, deliveryId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ state: webhookDeliveries.state })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.id, deliveryId));
  return row?.state;
}

async function attemptsOf(db: Database, endpointId: string): Promise<number> {
  const rows = await listDeliveries(db, null, endpointId);
  return rows.reduce((sum, row) => sum + row.log.length, 0);
}

describe.skipIf(!POSTGRES)(
  "one attempt at a time per endpoint across instances on postgres",
  { timeout: 120_000 },
  () => {
    const database = useTestDatabase(POSTGRES!);

    it("never has two attempts open on one endpoint, though two server processes post its messages", async () => {
      // A receiver that answers after a while, keeping the most requests it ever had open at once.
      const seen = { received: 0, open: 0, mostOpen: 0 };
      const slow = createServer((request, response) => {
        request.resume();
        request.on("end", () => {
          seen.received += 1;
          seen.open += 1;
          seen.mostOpen = Math.max(seen.mostOpen, seen.open);
          setTimeout(() => {
            seen.open -= 1;
            response.writeHead(204).end();
          }, 300);
        });
      });
      await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", resolve));
      const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/hooks`;
      const env = { ...database().env, SIM: "off", WEBHOOKS_ALLOW_PRIVATE: "1", WEBHOOKS_RETRY_BASE_MS: "100" };
      const servers = await Promise.all([startServer(env), startServer(env)]);
      // Queued in one transaction once both instances look at the outbox, so both find them due.
      const handle = await openDatabase(database().config);
      let org: { orgId: string; endpointId: string };
      try {
        org = await organisation(handle.db, url);
        const at = new Date(Date.now() - 1_000);
        await handle.db.transaction(async (tx) => {
          for (let i = 0; i < 12; i++) {
            await queueEvent(tx, { orgId: org.orgId, type: "webhook.test", at, data: { n: i } });
          }
        });
      } finally {
        await handle.close();
      }
      try {
        await until(() => seen.received >= 12, "the 12 messages", 60_000);
        // Each instance looks every 100 ms: without the endpoint's lease each would hold one open.
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      } finally {
        await Promise.all(servers.map(async (server) => expect(await server.stop()).toBe(0)));
        slow.closeAllConnections();
        await new Promise((resolve) => slow.close(resolve));
      }
      expect(seen.received).toBe(12);
      expect(seen.mostOpen).toBe(1);
      const after = await openDatabase(database().config);
      try {
        const deliveries = await listDeliveries(after.db, org.orgId, org.endpointId);
        expect(deliveries.map((d) => [d.state, d.attempts])).toEqual(Array(12).fill(["delivered", 1]));
        const [endpoint] = await after.db
          .select({ leaseUntil: webhookEndpoints.leaseUntil })
          .from(webhookEndpoints)
          .where(eq(webhookEndpoints.id, org.endpointId));
        expect(endpoint?.leaseUntil).toBeNull();
      } finally {
        await after.close();
      }
    });
  },
);
