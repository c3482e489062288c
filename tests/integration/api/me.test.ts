import { expect, it } from "vitest";
import { DELAY_SECONDS, describeApi } from "../../../testing/api-suite.ts";

// GET /api/v1/me: what a key is, its plan and its usage; and the month's last request.

describeApi("GET /api/v1/me", (api) => {
  it("describes a production key, with meta and no-store", async () => {
    const first = await api.fast("/api/v1/me", { key: api.starter.production.key });
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-store");
    expect(first.body.data).toMatchObject({
      key: api.starter.production.key,
      environment: "production",
      sports: ["soccer", "basketball", "tennis"],
      expires_at: null,
      plan: "starter",
      delay_seconds: 0,
      limits: { requests_per_month: 100_000, requests_per_second: 10 },
    });
    expect(first.body.meta).toMatchObject({ sandbox: false, delay_seconds: 0, requests_quota: 100_000 });
    const data = first.body.data as Record<string, unknown>;
    // A few hundred requests in the month so far do not reach 100 000 before it ends.
    const { organisation, ...own } = data.usage as Record<string, unknown>;
    expect(own).toEqual({
      requests_used: first.body.meta.requests_used,
      requests_quota: 100_000,
      resets_at: data.quota_resets_at,
      projected_exhaustion_at: null,
    });
    // The plan's limits are the organisation's, shared by its keys: its count is at least this key's.
    expect(organisation).toMatchObject({ requests_quota: 100_000, requests_per_second: 10, concurrent_streams: 5 });
    expect((organisation as { requests_used: number }).requests_used).toBeGreaterThanOrEqual(
      first.body.meta.requests_used as number,
    );
    const second = await api.fast("/api/v1/me", { key: api.starter.production.key });
    expect(second.body.meta.requests_used).toBe((first.body.meta.requests_used as number) + 1);
  });

  it("describes a sandbox key: one sport, an expiry, no plan, the delay", async () => {
    const answer = await api.sandboxPaced("/api/v1/me", { key: api.starter.sandbox.key });
    expect(answer.status).toBe(200);
    const data = answer.body.data as Record<string, unknown>;
    expect(data).toMatchObject({
      environment: "sandbox",
      sports: ["soccer"],
      plan: null,
      delay_seconds: DELAY_SECONDS,
    });
    expect(Date.parse(data.expires_at as string)).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    expect(answer.body.meta).toMatchObject({ sandbox: true, delay_seconds: DELAY_SECONDS, requests_quota: 1_000 });
  });

  it("admits a key's last request of the month, then answers 429 quota_exceeded until the month turns", async () => {
    const last = await api.sandboxPaced("/api/v1/me", { key: api.full.sandbox.key });
    expect(last.status).toBe(200);
    expect(last.body.meta).toMatchObject({ requests_used: 1_000, requests_quota: 1_000 });
    expect(last.headers.get("ratelimit")).toMatch(/"month";r=0;/);
    const now = new Date();
    const untilNextMonth = (Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime()) / 1000;
    for (let i = 0; i < 2; i++) {
      const refused = await api.sandboxPaced("/api/v1/events", { key: api.full.sandbox.key });
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ code: "quota_exceeded", "violated-policies": ["month"] });
      expect(Math.abs(Number(refused.headers.get("retry-after")) - untilNextMonth)).toBeLessThan(5);
    }
  });
});
