import { expect, it } from "vitest";
import { describeApi } from "../../../testing/api-suite.ts";

// How a key is presented and refused: the headers, the contract's 401 codes, never the query string.

describeApi(
  "authentication",
  (api) => {
    it("accepts Authorization: Bearer in any case of the scheme, and both headers with the same key", async () => {
      const variants: Record<string, string>[] = [
        { authorization: `Bearer ${api.enterprise.production.key}` },
        { authorization: `bearer ${api.enterprise.production.key}` },
        { authorization: `Bearer ${api.enterprise.production.key}`, "x-api-key": api.enterprise.production.key },
      ];
      for (const headers of variants) {
        expect((await api.fast("/api/v1/me", { headers })).status).toBe(200);
      }
    });

    it("refuses different keys in the two headers, without counting either", async () => {
      const before = await api.fast("/api/v1/me", { key: api.enterprise.production.key });
      const answer = await api.fast("/api/v1/me", {
        headers: { authorization: `Bearer ${api.enterprise.production.key}`, "x-api-key": api.starter.production.key },
      });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ code: "conflicting_credentials" });
      const after = await api.fast("/api/v1/me", { key: api.enterprise.production.key });
      expect(after.body.meta.requests_used).toBe((before.body.meta.requests_used as number) + 1);
    });

    it("answers 401 with the contract's codes", async () => {
      const missing = await api.fast("/api/v1/events");
      expect(missing.status).toBe(401);
      expect(missing.body).toMatchObject({ code: "missing_api_key" });
      expect(missing.headers.get("www-authenticate")).toBe("Bearer");

      const key = api.enterprise.production.key;
      const flipped = key.slice(0, 10) + (key[10] === "a" ? "b" : "a") + key.slice(11); // checksum fails
      for (const bad of ["nonsense", flipped, "svc_sk_" + "A".repeat(32), `${key}x`]) {
        const answer = await api.fast("/api/v1/events", { key: bad });
        expect(answer.status, bad).toBe(401);
        expect(answer.body).toMatchObject({ code: "invalid_api_key" });
      }
      const basic = await api.fast("/api/v1/events", { headers: { authorization: "Basic dXNlcjpwYXNz" } });
      expect(basic.body).toMatchObject({ code: "invalid_api_key" });

      expect((await api.fast("/api/v1/events", { key: api.gone.production.key })).body).toMatchObject({
        code: "key_revoked",
      });
      expect((await api.fast("/api/v1/events", { key: api.gone.sandbox.key })).body).toMatchObject({
        code: "key_expired",
      });
    });

    it("never accepts a key in the query string, even beside a valid header", async () => {
      for (const query of [`api_key=${api.starter.production.key}`, `key=x`, `token=${api.starter.production.key}`]) {
        const answer = await api.fast(`/api/v1/me?${query}`, { key: api.starter.production.key });
        expect(answer.status).toBe(401);
        expect(answer.body).toMatchObject({ code: "invalid_api_key" });
        expect((answer.body as unknown as { detail: string }).detail).toMatch(/header/);
      }
    });
  },
  { nodeOnly: true },
);
