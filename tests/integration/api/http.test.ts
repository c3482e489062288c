import { expect, it } from "vitest";
import { admin } from "../../../testing/processes.ts";
import { describeApi, sleep } from "../../../testing/api-suite.ts";

// HTTP around every operation: HEAD and other methods, unknown paths, conditional requests, the per-second limit, and a key revoked elsewhere or not checkable (PostgreSQL).

describeApi("HTTP", (api) => {
  it("answers HEAD like GET without a body, and 405 with Allow for other methods", async () => {
    const head = await api.fast("/api/v1/events", { key: api.enterprise.production.key, method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
    // Next sends no length for HEAD; ours sends the GET's.
    if (api.entry === "node") expect(Number(head.headers.get("content-length"))).toBeGreaterThan(1000);
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const answer = await api.fast("/api/v1/events", { key: api.enterprise.production.key, method });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.get("allow")).toBe("GET, HEAD");
      expect(answer.body).toMatchObject({ code: "method_not_allowed" });
    }
  });

  it("answers 404 for an unknown path to a known key, and counts it", async () => {
    const before = await api.fast("/api/v1/me", { key: api.enterprise.production.key });
    const answer = await api.fast("/api/v1/fixtures", { key: api.enterprise.production.key });
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ code: "not_found" });
    const after = await api.fast("/api/v1/me", { key: api.enterprise.production.key });
    expect(after.body.meta.requests_used).toBe((before.body.meta.requests_used as number) + 2);
    expect((await api.fast("/api/v1/fixtures")).status).toBe(401);
  });

  it("answers 304 to If-None-Match while nothing changed, and counts it", async () => {
    const first = await api.fast("/api/v1/events?sport=soccer", { key: api.enterprise.production.key });
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^W\/"/);
    const again = await api.fast("/api/v1/events?sport=soccer", {
      key: api.enterprise.production.key,
      headers: { "if-none-match": etag! },
    });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    const after = await api.fast("/api/v1/events?sport=soccer", { key: api.enterprise.production.key });
    expect(after.headers.get("etag")).toBe(etag);
    expect(after.body.meta.requests_used).toBe((first.body.meta.requests_used as number) + 2);
  });

  it("carries the rate-limit headers, and refuses beyond the per-second limit without counting", async () => {
    const answer = await api.fast("/api/v1/me", { key: api.starter.production.key });
    expect(answer.headers.get("ratelimit-policy")).toBe('"second";q=10;w=1, "month";q=100000;w=2592000');
    expect(answer.headers.get("ratelimit")).toMatch(/^"second";r=\d+;t=1, "month";r=\d+;t=\d+$/);

    await sleep(1000 - (Date.now() % 1000) + 20); // a fresh second for the sandbox key's 2/s
    const burst = await Promise.all(
      Array.from({ length: 5 }, () =>
        fetch(`${api.server.url}/api/v1/me`, { headers: { "x-api-key": api.enterprise.sandbox.key } }).then(
          async (r) => ({
            status: r.status,
            retryAfter: r.headers.get("retry-after"),
            second: r.headers.get("date"),
            body: (await r.json()) as {
              code?: string;
              "violated-policies"?: string[];
              meta?: { requests_used: number };
            },
          }),
        ),
      ),
    );
    const refused = burst.filter((r) => r.status === 429);
    const admitted = burst.filter((r) => r.status === 200);
    // A busy machine may spread the burst over two seconds: at most two admitted in each.
    const admittedPerSecond = Map.groupBy(admitted, (r) => r.second);
    expect(Math.max(...[...admittedPerSecond.values()].map((rs) => rs.length))).toBe(2);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(admitted.length + refused.length).toBe(5);
    for (const r of refused) {
      expect(r.body).toMatchObject({ code: "rate_limited", "violated-policies": ["second"] });
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    await sleep(1000);
    const next = await api.sandboxPaced("/api/v1/me", { key: api.enterprise.sandbox.key });
    expect(next.body.meta.requests_used).toBe(Math.max(...admitted.map((r) => r.body.meta!.requests_used)) + 1);
  });

  it.runIf(api.backend.name === "postgres")(
    "refuses a key on the next request after it is revoked elsewhere",
    async () => {
      expect((await api.fast("/api/v1/me", { key: api.starter.production.key })).status).toBe(200);
      await admin(["key", "revoke", "--id", api.starter.production.id], api.database().env);
      const answer = await api.fast("/api/v1/me", { key: api.starter.production.key });
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ code: "key_revoked" });
    },
  );

  it.runIf(api.backend.name === "postgres")("answers 503 with Retry-After when a key cannot be checked", async () => {
    // A key not yet cached needs the database: take the database away under the running api.server.
    const postgres = (await import("postgres")).default(process.env.TEST_DATABASE_URL!, {
      max: 1,
      onnotice: () => {},
    });
    const name = new URL(api.database().env.DATABASE_URL!).pathname.slice(1);
    await postgres.unsafe(`alter database "${name}" allow_connections false`);
    await postgres.unsafe(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}'`);
    try {
      const answer = await api.fast("/api/v1/me", { key: api.full.production.key });
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ code: "unavailable" });
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      await postgres.unsafe(`alter database "${name}" allow_connections true`);
      await postgres.end();
    }
  });
});
