import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openDatabase, rowsOf } from "../../lib/db/index.ts";
import { SPORTS } from "../../lib/db/schema/index.ts";
import { seed } from "../../seeds/index.ts";
import { apiClient } from "../../testing/api.ts";
import { describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { keyOnOwnPlan, productionKeys } from "../../testing/organisations.ts";
import { startServer, type RunningServer } from "../../testing/processes.ts";
import { openSse, type SseClient } from "../../testing/sse.ts";

// A plan's limits belong to the organisation: its production keys share the monthly quota, the
// per-second rate and the concurrent streams, so a second key (or a tenth) buys nothing more.

type Plan = { monthlyQuota: number; requestsPerSecond: number; concurrentStreams: number };
type Organisation = { orgId: string; keys: string[] };

describeEachBackend("limits pooled per organisation on $name", { timeout: 180_000 }, (backend) => {
  const database = useTestDatabase(backend);
  let server: RunningServer;
  const orgs = {} as Record<"quota" | "rate" | "streams", Organisation>;
  const streams: SseClient[] = [];

  beforeAll(async () => {
    const handle = await openDatabase(database().config);
    const at = new Date();
    await seed(handle.db, at);
    const organisation = async (code: string, plan: Plan, keys: number): Promise<Organisation> => {
      const first = await keyOnOwnPlan(
        handle.db,
        {
          code,
          name: `Pooled ${code}`,
          environment: "production",
          description: "A plan of the pooled-limit tests.",
          sports: [...SPORTS],
          ...plan,
          monthlyPriceCents: null,
          ordinal: 200 + Object.keys(orgs).length,
        },
        at,
      );
      const more = await productionKeys(handle.db, first.orgId, keys - 1, at);
      return { orgId: first.orgId, keys: [first.key, ...more.map((k) => k.key)] };
    };
    orgs.quota = await organisation(
      "pool-quota",
      { monthlyQuota: 30, requestsPerSecond: 1000, concurrentStreams: 10 },
      2,
    );
    orgs.rate = await organisation(
      "pool-rate",
      { monthlyQuota: 1_000_000, requestsPerSecond: 3, concurrentStreams: 10 },
      4,
    );
    orgs.streams = await organisation(
      "pool-streams",
      { monthlyQuota: 1_000_000, requestsPerSecond: 1000, concurrentStreams: 2 },
      2,
    );
    await handle.close();
    server = await startServer(database().env);
  });
  afterAll(async () => {
    for (const stream of streams) stream.close();
    await server?.stop();
  });

  const call = <T>(path: string, key: string) => apiClient(server.url)<T>(path, { key });

  it("shares the monthly quota between two keys of one organisation, and shows both figures in /me", async () => {
    const [first, second] = orgs.quota.keys as [string, string];
    for (let i = 0; i < 20; i++) expect((await call("/api/v1/events", first)).status).toBe(200);
    type Me = {
      data: { usage: { requests_used: number; organisation: { requests_used: number; requests_quota: number } } };
    };
    const me = await call<Me>("/api/v1/me", second);
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    expect(me.body.data.usage.requests_used).toBe(1);
    expect(me.body.data.usage.organisation).toMatchObject({ requests_used: 21, requests_quota: 30 });
    const statuses: number[] = [];
    let refusal: { code?: string; detail?: string } = {};
    for (let i = 0; i < 12; i++) {
      const answer = await call<{ code?: string; detail?: string }>("/api/v1/events", second);
      statuses.push(answer.status);
      if (answer.status === 429) refusal = answer.body;
    }
    // 21 used: nine more, then the organisation's quota refuses the second key as well as the first.
    expect(statuses.filter((s) => s === 200)).toHaveLength(9);
    expect(statuses.slice(9)).toEqual([429, 429, 429]);
    expect(refusal.code).toBe("quota_exceeded");
    expect(refusal.detail).toContain("organisation");
    expect((await call("/api/v1/events", first)).status).toBe(429);
  });

  it("shares the per-second rate between the keys of one organisation", async () => {
    // Four keys, one request each at once, at a rate of 3 a second: each key is well within its
    // own rate, so only the organisation's can refuse one. A round that straddles a second's end
    // may admit all four; within a few rounds one lands in one second.
    let refusal: { code?: string; detail?: string; "violated-policies"?: string[] } | undefined;
    for (let round = 0; round < 10 && !refusal; round++) {
      const answers = await Promise.all(
        orgs.rate.keys.map((key) => call<{ code?: string; detail?: string }>("/api/v1/events", key)),
      );
      refusal = answers.find((answer) => answer.status === 429)?.body;
    }
    expect(refusal).toMatchObject({ code: "rate_limited", "violated-policies": ["second"] });
    expect(refusal!.detail).toContain("organisation");
  });

  it("shares the concurrent streams between the keys of one organisation", async () => {
    const [first, second] = orgs.streams.keys as [string, string];
    const open = async (key: string) => {
      const stream = await openSse(`${server.url}/api/v1/odds/stream`, { headers: { authorization: `Bearer ${key}` } });
      streams.push(stream);
      return stream;
    };
    await (await open(first)).waitFor((m) => m.event === "snapshot");
    await (await open(second)).waitFor((m) => m.event === "snapshot");
    // Each key has one open; the plan allows two, for the organisation.
    const third = await fetch(`${server.url}/api/v1/odds/stream`, { headers: { authorization: `Bearer ${first}` } });
    const body = (await third.json()) as { code: string; detail: string };
    expect(third.status).toBe(429);
    expect(body.code).toBe("rate_limited");
    expect(body.detail).toContain("organisation");
  });

  it("stores the organisation's count beside each key's", async () => {
    await server.stop();
    const handle = await openDatabase(database().config);
    try {
      const [row] = rowsOf<{ org: string | number; keys: string | number }>(
        await handle.db.execute(sql`
          select (select coalesce(sum(requests), 0) from org_usage_monthly where org_id = ${orgs.quota.orgId}) as org,
                 (select coalesce(sum(u.requests), 0) from usage_monthly u join api_keys k on k.id = u.key_id
                  where k.org_id = ${orgs.quota.orgId}) as keys`),
      );
      expect(Number(row!.org)).toBe(30);
      expect(Number(row!.keys)).toBe(30);
    } finally {
      await handle.close();
    }
  });
});
