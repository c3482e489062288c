import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { OPERATOR } from "../../lib/accounts/audit.ts";
import { addMember } from "../../lib/accounts/users.ts";
import { openDatabase, rowsOf } from "../../lib/db/index.ts";
import { SPORTS } from "../../lib/db/schema/index.ts";
import { updateKey } from "../../lib/keys/settings.ts";
import { seed } from "../../seeds/index.ts";
import { apiClient } from "../../testing/api.ts";
import { signIn } from "../../testing/console.ts";
import { describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { keyOnOwnPlan, productionKeys } from "../../testing/organisations.ts";
import { startServer, type RunningServer } from "../../testing/processes.ts";
import { openSse, type SseClient } from "../../testing/sse.ts";

// A plan's limits belong to the organisation: its production keys share the monthly quota, the
// per-second rate and the concurrent streams, so a second key (or a tenth) buys nothing more; a
// key may have lower limits of its own inside the pool, and the members' reads draw on it too.

type Plan = { monthlyQuota: number; requestsPerSecond: number; concurrentStreams: number };
type Organisation = { orgId: string; keys: string[]; keyIds: string[] };

describeEachBackend("limits pooled per organisation on $name", { timeout: 180_000 }, (backend) => {
  const database = useTestDatabase(backend);
  let server: RunningServer;
  const orgs = {} as Record<"quota" | "rate" | "streams" | "own" | "members", Organisation>;
  const member = { email: "reader@pooled-members.test", password: "a-member-password-0123" };
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
      return {
        orgId: first.orgId,
        keys: [first.key, ...more.map((k) => k.key)],
        keyIds: [first.keyId, ...more.map((k) => k.id)],
      };
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
    // Three keys: one held to 5 requests a month of its own, one to 1 a second, one with the plan's.
    orgs.own = await organisation(
      "pool-own",
      { monthlyQuota: 1_000_000, requestsPerSecond: 1000, concurrentStreams: 10 },
      3,
    );
    const [capped, rated] = orgs.own.keyIds as [string, string];
    await updateKey(handle.db, capped, orgs.own.orgId, { monthlyQuota: 5 }, { actor: OPERATOR, at });
    await updateKey(handle.db, rated, orgs.own.orgId, { requestsPerSecond: 1 }, { actor: OPERATOR, at });
    // An own limit above the plan's would promise what the pool never gives.
    await expect(
      updateKey(handle.db, rated, orgs.own.orgId, { monthlyQuota: 1_000_001 }, { actor: OPERATOR, at }),
    ).rejects.toThrow("at most 1000000");
    orgs.members = await organisation(
      "pool-members",
      { monthlyQuota: 12, requestsPerSecond: 1000, concurrentStreams: 10 },
      1,
    );
    await addMember(
      handle.db,
      { orgId: orgs.members.orgId, email: member.email, name: "Reader", password: member.password, role: "viewer" },
      OPERATOR,
    );
    await handle.close();
    server = await startServer({ ...database().env, AUTH_SECRET: "a-secret-for-the-pooled-limits-0123456789" });
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

  it("holds a key to its own lower monthly quota inside the pool while another key of the organisation still reads", async () => {
    const [capped, , free] = orgs.own.keys as [string, string, string];
    type Me = {
      data: {
        limits: { requests_per_month: number };
        own_limits: { requests_per_month: number | null; requests_per_second: number | null } | null;
        usage: { requests_used: number; requests_quota: number; organisation: { requests_quota: number } };
      };
    };
    const me = await call<Me>("/api/v1/me", capped);
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    expect(me.body.data.own_limits).toEqual({ requests_per_month: 5, requests_per_second: null });
    expect(me.body.data.limits.requests_per_month).toBe(5);
    expect(me.body.data.usage).toMatchObject({ requests_used: 1, requests_quota: 5 });
    expect(me.body.data.usage.organisation.requests_quota).toBe(1_000_000);
    const statuses: number[] = [];
    let refusal: { code?: string; detail?: string } = {};
    for (let i = 0; i < 6; i++) {
      const answer = await call<{ code?: string; detail?: string }>("/api/v1/events", capped);
      statuses.push(answer.status);
      if (answer.status === 429) refusal = answer.body;
    }
    // One used by /me: four more, then the key's own quota refuses it, far below the pool's.
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    expect(refusal.code).toBe("quota_exceeded");
    expect(refusal.detail).toContain("monthly quota of 5");
    expect(refusal.detail).not.toContain("organisation");
    const other = await call<Me>("/api/v1/me", free);
    expect(other.status).toBe(200);
    expect(other.body.data.own_limits).toEqual({ requests_per_month: null, requests_per_second: null });
    expect(other.body.data.limits.requests_per_month).toBe(1_000_000);
    expect((await call("/api/v1/events", free)).status).toBe(200);
  });

  it("holds a key to its own lower per-second rate inside the pool while another key of the organisation still reads", async () => {
    const [, rated, free] = orgs.own.keys as [string, string, string];
    // Two at once at 1 a second: one is refused, unless they straddle a second's end; the other
    // key, at the plan's 1000 a second, is never refused.
    let refusal: { code?: string; detail?: string; "violated-policies"?: string[] } | undefined;
    for (let round = 0; round < 10 && !refusal; round++) {
      const answers = await Promise.all(
        [rated, rated, free, free].map((key) => call<{ code?: string; detail?: string }>("/api/v1/events", key)),
      );
      expect(answers.slice(2).map((answer) => answer.status)).toEqual([200, 200]);
      refusal = answers.slice(0, 2).find((answer) => answer.status === 429)?.body;
    }
    expect(refusal).toMatchObject({ code: "rate_limited", "violated-policies": ["second"] });
    expect(refusal!.detail).toContain("the key's limit of 1 requests per second");
  });

  it("counts a member's console reads and a production key's in one organisation's pool", async () => {
    const [key] = orgs.members.keys as [string];
    const session = (await signIn(server.url, member.email, member.password)).session!;
    expect(session).toBeTruthy();
    const read = (headers: Record<string, string>) => fetch(`${server.url}/api/v1/odds`, { headers });
    type Meta = { meta: { requests_used: number; requests_quota: number }; code?: string; detail?: string };
    for (let i = 0; i < 5; i++) expect((await call("/api/v1/events", key)).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      const answer = await read({ cookie: session });
      expect(answer.status).toBe(200);
      const body = (await answer.json()) as Meta;
      // The member's own count is its allowance's; the organisation's is nearer the plan's quota of 12.
      expect(body.meta).toMatchObject({ requests_used: 6 + i, requests_quota: 12 });
    }
    type Me = { data: { usage: { requests_used: number; organisation: { requests_used: number } } } };
    const me = await call<Me>("/api/v1/me", key);
    expect(me.body.data.usage.requests_used).toBe(6);
    expect(me.body.data.usage.organisation.requests_used).toBe(11);
    expect((await call("/api/v1/events", key)).status).toBe(200);
    // 12 of 12: the key's reads used the pool up for the member too, and the member's for the key.
    const refused = await read({ cookie: session });
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as Meta;
    expect(body.code).toBe("quota_exceeded");
    expect(body.detail).toContain("members' reads share");
    expect((await call("/api/v1/events", key)).status).toBe(429);
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
