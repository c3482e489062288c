import { describe, expect, it } from "vitest";
import { channelId, channelSports } from "./channels.ts";
import { AllowList } from "../keys/allowlist.ts";
import { keyRecord } from "../../testing/stream-fakes.ts";
import { expiredEnding, hasExpired, keyChangeConcerns, keyRefusal, sessionRevoked } from "./revocation.ts";

const principal = (overrides = {}) => ({
  key: keyRecord(),
  keyHash: "hash_1",
  session: false,
  address: "203.0.113.7" as string | null,
  ...overrides,
});
const at = new Date("2026-11-25T12:00:00Z");

describe("keyRefusal", () => {
  it("lets a stream go on while its key covers what it shows", () => {
    expect(keyRefusal(keyRecord(), principal(), ["soccer", "tennis"], at)).toBeNull();
  });

  it("ends a stream whose key is gone, revoked, expired or no longer covers a sport it shows", () => {
    const code = (key: Parameters<typeof keyRefusal>[0], sports = ["soccer"]) =>
      keyRefusal(key, principal(), sports, at)?.code;
    expect(code(null)).toBe("invalid_api_key");
    expect(code(keyRecord({ revokedAt: at }))).toBe("key_revoked");
    expect(code(keyRecord({ environment: "sandbox", expiresAt: at }))).toBe("key_expired");
    expect(code(keyRecord({ sports: ["tennis"] }), ["soccer", "tennis"])).toBe("sport_not_covered");
  });

  it("ends a stream whose address the key's IP allowlist no longer includes, and keeps the others", () => {
    const limited = keyRecord({ allowList: new AllowList(["198.51.100.0/24"]) });
    const refusal = keyRefusal(limited, principal({ address: "203.0.113.7" }), ["soccer"], at);
    expect(refusal?.code).toBe("ip_not_allowed");
    expect(refusal?.message).toMatch(/198\.51\.100\.0\/24.*203\.0\.113\.7/);
    expect(keyRefusal(limited, principal({ address: "198.51.100.9" }), ["soccer"], at)).toBeNull();
    // A stream whose address is unknown (a token minted before addresses were kept) is not kept.
    expect(keyRefusal(limited, principal({ address: null }), ["soccer"], at)?.code).toBe("ip_not_allowed");
    // A member's stream has no key of its own to limit.
    expect(keyRefusal(limited, principal({ address: null, session: true }), ["soccer"], at)).toBeNull();
  });

  it("says which sport the plan no longer covers and when the key was revoked", () => {
    expect(keyRefusal(keyRecord({ sports: ["tennis"] }), principal(), ["soccer"], at)?.message).toBe(
      "The key's plan no longer covers soccer.",
    );
    expect(keyRefusal(keyRecord({ revokedAt: at }), principal(), ["soccer"], at)?.message).toBe(
      "This key was revoked on 2026-11-25T12:00:00.000Z.",
    );
  });
});

describe("expiry", () => {
  it("ends a key's stream with key_expired and a session's with session_expired", () => {
    const expires = { key: keyRecord({ expiresAt: at }) };
    expect(hasExpired(principal(expires), at)).toBe(true);
    expect(hasExpired(principal(expires), new Date(at.getTime() - 1))).toBe(false);
    expect(hasExpired(principal(), at)).toBe(false);
    expect(expiredEnding(principal(expires)).code).toBe("key_expired");
    expect(expiredEnding(principal({ ...expires, keyHash: null, session: true })).code).toBe("session_expired");
  });
});

describe("keyChangeConcerns", () => {
  it("concerns the streams of the key, of its organisation, or every key's; never a session's", () => {
    expect(keyChangeConcerns({ keyId: "key_1" }, principal())).toBe(true);
    expect(keyChangeConcerns({ keyId: "key_2" }, principal())).toBe(false);
    expect(keyChangeConcerns({ orgId: "org_1" }, principal())).toBe(true);
    expect(keyChangeConcerns({ orgId: "org_2" }, principal())).toBe(false);
    expect(keyChangeConcerns(null, principal())).toBe(true);
    expect(keyChangeConcerns(null, principal({ keyHash: null, session: true }))).toBe(false);
  });
});

describe("sessionRevoked", () => {
  it("concerns the streams of that member's sessions only", () => {
    const member = principal({ key: keyRecord({ id: "member:u1" }), keyHash: null, session: true });
    expect(sessionRevoked(member, { userId: "u1" })).toBe(true);
    expect(sessionRevoked(member, { userId: "u2" })).toBe(false);
    expect(sessionRevoked(principal({ key: keyRecord({ id: "member:u1" }) }), { userId: "u1" })).toBe(false);
  });
});

describe("channels", () => {
  it("names a board by its sports in any order, and knows the sports a channel shows", () => {
    const board = (sports: ("soccer" | "tennis")[]) => ({ kind: "board" as const, filter: { sports, type: null } });
    expect(channelId("present", board(["tennis", "soccer"]))).toBe(channelId("present", board(["soccer", "tennis"])));
    expect(channelId("present", board(["soccer"]))).not.toBe(channelId("delayed", board(["soccer"])));
    expect(channelSports({ kind: "event", eventId: "e1", sport: "soccer" })).toEqual(["soccer"]);
    expect(channelSports(board(["tennis"]))).toEqual(["tennis"]);
  });
});
