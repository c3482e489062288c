import { describe, expect, it } from "vitest";
import { StreamTokens, TOKEN_PREFIX } from "./stream-token.ts";

const SECRET = "a-secret-of-the-instance-0123456789abcdef";
const grant = {
  keyId: "key_4Zq1",
  sport: "soccer" as const,
  eventId: null,
  expiresAt: new Date("2026-11-26T19:00:00Z"),
  mintedFrom: "203.0.113.7",
};

describe("stream tokens", () => {
  it("carry their grant, signed, to any instance with the same secret", () => {
    const token = new StreamTokens(SECRET).mint(grant);
    expect(token.startsWith(TOKEN_PREFIX)).toBe(true);
    expect(token).toMatch(/^svc_st_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(new StreamTokens(SECRET).read(token)).toEqual(grant);
    expect(
      new StreamTokens(SECRET).read(new StreamTokens(SECRET).mint({ ...grant, sport: null, eventId: "soc-1" })),
    ).toMatchObject({ sport: null, eventId: "soc-1" });
  });

  it("refuse a token signed with another secret, or with its scope or expiry changed", () => {
    const tokens = new StreamTokens(SECRET);
    const token = tokens.mint(grant);
    expect(new StreamTokens(`${SECRET}-other`).read(token)).toBeNull();
    const [payload, signature] = token.slice(TOKEN_PREFIX.length).split(".");
    const widened = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload!, "base64url").toString()), s: null, x: 4_000_000_000 }),
    ).toString("base64url");
    expect(tokens.read(`${TOKEN_PREFIX}${widened}.${signature}`)).toBeNull();
  });

  it("refuse what is not a whole token", () => {
    const tokens = new StreamTokens(SECRET);
    const token = tokens.mint(grant);
    for (const value of [
      "",
      TOKEN_PREFIX,
      token.slice(0, -1),
      `${token}.x`,
      token.replace(".", ""),
      `svc_sk_${token.slice(TOKEN_PREFIX.length)}`,
      `${TOKEN_PREFIX}${"A".repeat(600)}.${"B".repeat(43)}`,
    ]) {
      expect(tokens.read(value), value).toBeNull();
    }
  });
});
