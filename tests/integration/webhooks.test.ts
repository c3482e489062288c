import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { OPERATOR } from "../../lib/accounts/audit.ts";
import { addMember } from "../../lib/accounts/users.ts";
import { openDatabase, rowsOf, type Database } from "../../lib/db/index.ts";
import { SPORTS } from "../../lib/db/schema/index.ts";
import { createSandboxKey, revokeKey } from "../../lib/keys/index.ts";
import { updateKey } from "../../lib/keys/settings.ts";
import { addEndpoint, listDeliveries, rotateSecret, sendTest } from "../../lib/ops/webhooks/endpoints.ts";
import { queueEvent } from "../../lib/ops/webhooks/events.ts";
import { newSecret } from "../../lib/ops/webhooks/signature.ts";
import { seed } from "../../seeds/index.ts";
import { describeEachBackend, POSTGRES, useTestDatabase, type TestDatabase } from "../../testing/databases.ts";
import { recordSecret } from "../../testing/logs.ts";
import { keyOnOwnPlan, productionKeys } from "../../testing/organisations.ts";
import { startServer } from "../../testing/processes.ts";

// Usage alerts and webhooks through real servers: thresholds crossed by real requests are posted
// once each, signed so that the standard's own verifier accepts them; a failing receiver is tried
// again with backoff, and the delivery log shows each attempt; two instances post each message once.

type Received = { headers: IncomingHttpHeaders; body: string; at: number };

/** A receiver that answers `statuses` in turn (then 204), after `delayMs`, and keeps what it was sent. */
async function receiver(
  statuses: number[] = [],
  delayMs = 0,
): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString(), at: Date.now() });
      const status = statuses.shift() ?? 204;
      setTimeout(() => response.writeHead(status).end(), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function until(condition: () => boolean, what: string, withinMs = 15_000): Promise<void> {
  const end = Date.now() + withinMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`Waited ${withinMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Nothing more arrives: longer than the worker's look at the outbox. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 1_500));

async function onDatabase<T>(database: TestDatabase, work: (db: Database) => Promise<T>): Promise<T> {
  const handle = await openDatabase(database.config);
  try {
    return await work(handle.db);
  } finally {
    await handle.close();
  }
}

let plansMade = 0;

/** An organisation on a plan of `quota` requests a month, with one key and an endpoint at `url`. */
async function organisation(db: Database, quota: number, url: string) {
  const at = new Date();
  await seed(db, at);
  const code = `webhooks-${++plansMade}`;
  const made = await keyOnOwnPlan(
    db,
    {
      code,
      name: `Webhooks ${plansMade}`,
      environment: "production",
      description: "A plan of the webhook tests.",
      sports: [...SPORTS],
      monthlyQuota: quota,
      requestsPerSecond: 1_000,
      concurrentStreams: 2,
      monthlyPriceCents: null,
      ordinal: 200 + plansMade,
    },
    at,
  );
  const { endpoint, secret } = await addEndpoint(db, made.orgId, url, {
    actor: OPERATOR,
    at,
    allowPrivate: true,
    secret: newSecret(),
  });
  recordSecret(secret);
  return { ...made, endpointId: endpoint.id, secret };
}

const me = (url: string, key: string) => fetch(`${url}/api/v1/me`, { headers: { "x-api-key": key } });

function verified(secret: string, message: Received) {
  return new Webhook(secret).verify(message.body, message.headers as Record<string, string>) as {
    type: string;
    data: Record<string, unknown>;
  };
}

const serverEnv = (database: TestDatabase) => ({
  ...database.env,
  SIM: "off",
  WEBHOOKS_ALLOW_PRIVATE: "1",
  WEBHOOKS_RETRY_BASE_MS: "150",
});

describeEachBackend("usage alerts and webhooks on $name", (backend) => {
  const database = useTestDatabase(backend);
  const receivers: Awaited<ReturnType<typeof receiver>>[] = [];
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
  });

  it("posts each threshold crossed by real requests once, signed, and announces revoked and expiring keys", async () => {
    const hooks = await receiver();
    receivers.push(hooks);
    const made = await onDatabase(database(), async (db) => {
      const org = await organisation(db, 20, hooks.url);
      // Queued before the server starts, in the outbox: posted once it runs.
      const [spare] = await productionKeys(db, org.orgId, 1, new Date(), "spare");
      await revokeKey(db, spare!.id, org.orgId, { actor: OPERATOR, at: new Date() });
      const sandbox = await createSandboxKey(
        db,
        org.orgId,
        { sport: "soccer" },
        { actor: OPERATOR, at: new Date(), ttlDays: 3 },
      );
      recordSecret(sandbox.key);
      return { ...org, revokedKeyId: spare!.id, sandboxKeyId: sandbox.summary.id };
    });
    const server = await startServer(serverEnv(database()));
    try {
      await until(() => hooks.received.length >= 2, "key.revoked and key.expiring");
      // 16 of 20 is 80 %, 19 is 95 %, 20 is 100 %; the 21st is refused.
      let last: Record<string, unknown> = {};
      for (let i = 1; i <= 21; i++) {
        const answer = await me(server.url, made.key);
        expect(answer.status).toBe(i <= 20 ? 200 : 429);
        if (i === 20) last = ((await answer.json()) as { data: Record<string, unknown> }).data;
        else await answer.body?.cancel();
      }
      expect(last.usage).toMatchObject({ requests_used: 20, requests_quota: 20 });
      // The quota is used up: it runs out now.
      expect((last.usage as { projected_exhaustion_at: string }).projected_exhaustion_at).not.toBeNull();
      await until(() => hooks.received.length >= 5, "three usage alerts");
      await settle();
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(hooks.received).toHaveLength(5);
    const events = hooks.received.map((message) => verified(made.secret, message));
    const byType = (type: string) => events.filter((event) => event.type === type);
    expect(byType("key.revoked").map((e) => e.data.key_id)).toEqual([made.revokedKeyId]);
    expect(byType("key.expiring").map((e) => e.data.key_id)).toEqual([made.sandboxKeyId]);
    // Posted concurrently, they may arrive in any order.
    const alerts = byType("usage.threshold_reached").sort(
      (a, b) => Number(a.data.threshold_percent) - Number(b.data.threshold_percent),
    );
    expect(alerts.map((e) => e.data.threshold_percent)).toEqual([80, 95, 100]);
    expect(alerts.map((e) => e.data.requests_used)).toEqual([16, 19, 20]);
    // The key is held to its plan's quota only, which its organisation's pool holds too: the
    // organisation's alert speaks for it (a key of its own lower quota is alerted as itself, below).
    expect(
      alerts.every((e) => e.data.scope === "organisation" && e.data.key_id === null && e.data.requests_quota === 20),
    ).toBe(true);
    expect(new Set(hooks.received.map((m) => m.headers["webhook-id"])).size).toBe(5);

    // A restart in the same month raises nothing again: the alerts are recorded.
    const again = await startServer(serverEnv(database()));
    try {
      expect((await me(again.url, made.key)).status).toBe(429);
      await settle();
    } finally {
      expect(await again.stop()).toBe(0);
    }
    expect(hooks.received).toHaveLength(5);
  });

  it("alerts the organisation's pooled count, which no key reaches alone, and a key's own lower quota, once per threshold and month, by webhook and mail", async () => {
    const hooks = await receiver();
    receivers.push(hooks);
    // Its own address on each run, so that a retry starts afresh.
    const admin = `admin-${Date.now()}@pooled-alerts.test`;
    const made = await onDatabase(database(), async (db) => {
      const org = await organisation(db, 20, hooks.url);
      const [second, capped] = await productionKeys(db, org.orgId, 2, new Date());
      await updateKey(db, capped!.id, org.orgId, { monthlyQuota: 5 }, { actor: OPERATOR, at: new Date() });
      await addMember(
        db,
        { orgId: org.orgId, email: admin, name: "Admin", password: "an-admin-password-0123", role: "admin" },
        OPERATOR,
      );
      return { ...org, second: second!.key, capped: capped! };
    });
    const server = await startServer(serverEnv(database()));
    const spend = async (key: string, times: number) => {
      for (let i = 0; i < times; i++) expect((await me(server.url, key)).status).toBe(200);
    };
    try {
      // The capped key: 4 of its own 5 is 80 %, 5 is 95 % and 100 %. The organisation: 5 of 20.
      await spend(made.capped.key, 5);
      // 8 and 7 of the plan's 20 each, no key near it alone; together 16 (80 %), 19 (95 %), 20 (100 %).
      await spend(made.key, 6);
      await spend(made.second, 6);
      await spend(made.key, 2);
      await spend(made.second, 1);
      expect((await me(server.url, made.key)).status).toBe(429);
      await until(() => hooks.received.length >= 6, "three alerts of the key and three of the organisation");
      await settle();
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const again = await startServer(serverEnv(database()));
    try {
      expect((await me(again.url, made.second)).status).toBe(429);
      await settle();
    } finally {
      expect(await again.stop()).toBe(0);
    }
    expect(hooks.received).toHaveLength(6);
    const alerts = hooks.received
      .map((message) => verified(made.secret, message).data)
      .sort(
        (a, b) =>
          String(a.scope).localeCompare(String(b.scope)) || Number(a.threshold_percent) - Number(b.threshold_percent),
      );
    expect(alerts.map((d) => [d.scope, d.key_id, d.threshold_percent, d.requests_used, d.requests_quota])).toEqual([
      ["key", made.capped.id, 80, 4, 5],
      ["key", made.capped.id, 95, 5, 5],
      ["key", made.capped.id, 100, 5, 5],
      ["organisation", null, 80, 16, 20],
      ["organisation", null, 95, 19, 20],
      ["organisation", null, 100, 20, 20],
    ]);
    const subjects = await onDatabase(database(), async (db) =>
      rowsOf<{ subject: string }>(await db.execute(sql`select subject from mail_messages where recipient = ${admin}`))
        .map((row) => row.subject)
        .sort(),
    );
    expect(subjects).toEqual([
      "A key reached 100 % of its monthly quota · Sports Event Data",
      "A key reached 80 % of its monthly quota · Sports Event Data",
      "A key reached 95 % of its monthly quota · Sports Event Data",
      "Your organisation reached 100 % of its monthly quota · Sports Event Data",
      "Your organisation reached 80 % of its monthly quota · Sports Event Data",
      "Your organisation reached 95 % of its monthly quota · Sports Event Data",
    ]);
  });

  it("tries a failing receiver again with growing waits, and the log shows every attempt", async () => {
    const hooks = await receiver([500, 503, 500]);
    receivers.push(hooks);
    const made = await onDatabase(database(), async (db) => {
      const org = await organisation(db, 1_000, hooks.url);
      const deliveryId = await sendTest(db, org.orgId, org.endpointId, { actor: OPERATOR, at: new Date() });
      return { ...org, deliveryId };
    });
    const server = await startServer(serverEnv(database()));
    try {
      await until(() => hooks.received.length >= 4, "four attempts");
      await settle();
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(hooks.received).toHaveLength(4);
    expect(new Set(hooks.received.map((m) => m.headers["webhook-id"]))).toEqual(new Set([made.deliveryId]));
    for (const message of hooks.received) expect(verified(made.secret, message).type).toBe("webhook.test");
    const waits = hooks.received.slice(1).map((m, i) => m.at - hooks.received[i]!.at);
    // 150, 300 and 600 ms after each failure (the worker looks every 150 ms at this base).
    expect(waits[0]).toBeGreaterThanOrEqual(140);
    expect(waits[1]).toBeGreaterThanOrEqual(290);
    expect(waits[2]).toBeGreaterThanOrEqual(590);
    const [delivery] = await onDatabase(database(), (db) => listDeliveries(db, made.orgId, made.endpointId));
    expect(delivery).toMatchObject({ id: made.deliveryId, state: "delivered", attempts: 4, nextAttemptAt: null });
    expect(delivery!.log.map((attempt) => attempt.statusCode)).toEqual([500, 503, 500, 204]);
    expect(delivery!.log.every((attempt) => attempt.latencyMs >= 0 && attempt.error === null)).toBe(true);
  });

  it("signs with the old secret beside the new one for a day after a rotation, then with the new one only", async () => {
    const hooks = await receiver();
    receivers.push(hooks);
    const made = await onDatabase(database(), (db) => organisation(db, 1_000, hooks.url));
    // Rotated at `at`, a test message queued, and posted by a server started for it.
    const rotateAndPost = async (at: Date, count: number) => {
      const secret = await onDatabase(database(), async (db) => {
        const rotated = await rotateSecret(db, made.orgId, made.endpointId, {
          actor: OPERATOR,
          at,
          secret: newSecret(),
        });
        recordSecret(rotated.secret);
        await sendTest(db, made.orgId, made.endpointId, { actor: OPERATOR, at: new Date() });
        return rotated.secret;
      });
      const server = await startServer(serverEnv(database()));
      try {
        await until(() => hooks.received.length === count, "the test message");
      } finally {
        expect(await server.stop()).toBe(0);
      }
      return { secret, message: hooks.received[count - 1]! };
    };
    const rotated = await rotateAndPost(new Date(), 1);
    expect(String(rotated.message.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verified(made.secret, rotated.message).type).toBe("webhook.test");
    expect(verified(rotated.secret, rotated.message).type).toBe("webhook.test");

    // Rotated again 25 hours ago: the secret it replaced no longer signs.
    const latest = await rotateAndPost(new Date(Date.now() - 25 * 3_600_000), 2);
    expect(String(latest.message.headers["webhook-signature"]).split(" ")).toHaveLength(1);
    expect(verified(latest.secret, latest.message).type).toBe("webhook.test");
    expect(() => verified(rotated.secret, latest.message)).toThrow();
  });
});

describe.skipIf(!POSTGRES)("webhooks from two instances sharing PostgreSQL", () => {
  const database = useTestDatabase(POSTGRES!);
  let hooks: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    // A slow receiver: a message being posted by one instance stays due long enough for the other to look.
    hooks = await receiver([], 400);
  });
  afterAll(async () => {
    await hooks.close();
  });

  it("record each threshold once and post every message once", async () => {
    const made = await onDatabase(database(), async (db) => {
      const org = await organisation(db, 40, hooks.url);
      const tests: string[] = [];
      // Queued as an admin's tests are, past the cap of test messages a minute an admin may send.
      for (let i = 0; i < 30; i++) {
        const [id] = await queueEvent(db, {
          orgId: org.orgId,
          type: "webhook.test",
          at: new Date(),
          endpointId: org.endpointId,
          data: { endpoint_id: org.endpointId, message: `test ${i}` },
        });
        tests.push(id!);
      }
      return { ...org, tests };
    });
    const servers = await Promise.all([startServer(serverEnv(database())), startServer(serverEnv(database()))]);
    try {
      // Both at once, each seeing the other's counts late: 32 of 40 (80 %) and 38 (95 %) and 40.
      const answers = await Promise.all(
        Array.from({ length: 44 }, (_, i) =>
          me(servers[i % 2]!.url, made.key).then(async (r) => (await r.body?.cancel(), r.status)),
        ),
      );
      // Two instances may admit a few beyond the quota between hearing each other (docs/metering.md).
      expect(answers.filter((status) => status === 200).length).toBeGreaterThanOrEqual(40);
      // One attempt at a time per endpoint across both instances: 33 answers of 400 ms, one after another.
      await until(() => hooks.received.length >= 33, "30 tests and 3 alerts", 60_000);
      await settle();
    } finally {
      await Promise.all(servers.map(async (server) => expect(await server.stop()).toBe(0)));
    }
    const ids = hooks.received.map((m) => m.headers["webhook-id"]);
    expect(ids).toHaveLength(33);
    expect(new Set(ids).size).toBe(33);
    const events = hooks.received.map((message) => verified(made.secret, message));
    expect(events.filter((e) => e.type === "webhook.test")).toHaveLength(30);
    const alerts = events.filter((e) => e.type === "usage.threshold_reached").map((e) => e.data.threshold_percent);
    expect(alerts.sort((a, b) => Number(a) - Number(b))).toEqual([80, 95, 100]);
  });
});
