import { activeKey } from "../../../testing/keys.ts";
import { describe, expect, it } from "vitest";
import { generateKey, hashKey } from "../../keys/format.ts";
import { authenticate } from "./authentication.ts";
import { KeyHashes } from "./key-hashes.ts";
import { AllowList } from "../../keys/allowlist.ts";
import type { ApiKeyRecord } from "../../keys/lookup.ts";
import { StreamTokens, type StreamTokenGrant } from "../../keys/stream-token.ts";
import { listOdds } from "../endpoints/index.ts";
import { streamOdds } from "../endpoints/streams.ts";
import { ApiError } from "../request/errors.ts";
import { KeyGuesses } from "./guesses.ts";
import type { ApiRequest, ApiServices, Endpoint } from "../request/types.ts";

const at = new Date("2026-11-23T12:00:00Z");

const key = activeKey();

function request(headers: Record<string, string>): ApiRequest {
  return { method: "GET", path: "/api/v1/odds", query: new URLSearchParams(), header: (name) => headers[name] };
}

describe("the hashes of keys already seen", () => {
  it("are a well-formed key's SHA-256, the same object's every time", () => {
    const hashes = new KeyHashes();
    const value = generateKey("production");
    expect(hashes.wellFormed(value)).toBe(hashKey(value));
    expect(hashes.wellFormed(value)).toBe(hashKey(value));
  });

  it("are null for a key whose checksum does not match", () => {
    const value = generateKey("sandbox");
    const mistyped = `${value.slice(0, -1)}${value.endsWith("a") ? "b" : "a"}`;
    expect(new KeyHashes().wellFormed(mistyped)).toBeNull();
    expect(new KeyHashes().wellFormed("")).toBeNull();
  });
});

/** A key directory that has every key it is asked for cached, as `resolve` says. */
const knownKeys = (resolve: () => unknown) =>
  ({ resolve, knows: () => true, knowsUnknown: () => false }) as unknown as ApiServices["keys"];

describe("a request's principal", () => {
  const services = (parts: Partial<ApiServices> = {}) =>
    ({
      keyHashes: new KeyHashes(),
      keys: knownKeys(() => key),
      guesses: new KeyGuesses(),
      trustedHops: 0,
      ...parts,
    }) as unknown as ApiServices;

  it("is the active key sent, with its hash, at once when the key is cached", () => {
    const value = generateKey("production");
    expect(authenticate(services(), listOdds, request({ "x-api-key": value }), at)).toEqual({
      key,
      keyValue: value,
      keyHash: hashKey(value),
      userId: null,
      onlyEvent: null,
      // No peer: the address kept for the stream's allowlist check says so.
      address: "unknown",
    });
  });

  it("is refused for a key no one has, and for a revoked key", () => {
    const value = generateKey("production");
    const refusal = (parts: Partial<ApiServices>) => {
      try {
        authenticate(services(parts), listOdds, request({ "x-api-key": value }), at);
      } catch (error) {
        return (error as ApiError).code;
      }
    };
    expect(refusal({ keys: knownKeys(() => null) })).toBe("invalid_api_key");
    expect(refusal({ keys: knownKeys(() => ({ ...key, revokedAt: at })) })).toBe("key_revoked");
  });

  it("is refused from an address outside the key's allowlist, the client's address as TRUST_PROXY_HOPS says", async () => {
    const value = generateKey("production");
    const limited = { ...key, allowList: new AllowList(["203.0.113.0/24", "2001:db8::/32"]) };
    const from = (headers: Record<string, string>, peer: string | undefined, trustedHops: number) => {
      const parts = { keys: knownKeys(() => limited), trustedHops };
      try {
        authenticate(services(parts), listOdds, { ...request({ "x-api-key": value, ...headers }), peer }, at);
        return "admitted";
      } catch (error) {
        return (error as ApiError).code;
      }
    };
    // Straight from node:http: the peer, and a client's own X-Forwarded-For is not believed.
    expect(from({}, "203.0.113.9", 0)).toBe("admitted");
    expect(from({}, "::ffff:203.0.113.9", 0)).toBe("admitted");
    expect(from({ "x-forwarded-for": "203.0.113.9" }, "192.0.2.1", 0)).toBe("ip_not_allowed");
    // Behind one load balancer: the address it saw, whatever the client wrote before it.
    expect(from({ "x-forwarded-for": "203.0.113.9" }, "10.0.0.2", 1)).toBe("admitted");
    expect(from({ "x-forwarded-for": "203.0.113.9, 192.0.2.1" }, "10.0.0.2", 1)).toBe("ip_not_allowed");
    expect(from({ "x-forwarded-for": "192.0.2.1, 2001:db8::5" }, "10.0.0.2", 1)).toBe("admitted");
    // Through Next: server.ts has put the peer at the end of X-Forwarded-For already.
    expect(from({ "x-forwarded-for": "203.0.113.9, 10.0.0.2" }, undefined, 1)).toBe("admitted");
    expect(from({ "x-forwarded-for": "203.0.113.9" }, undefined, 0)).toBe("admitted");
    expect(from({ "x-forwarded-for": "192.0.2.1" }, undefined, 0)).toBe("ip_not_allowed");
    // A key without a list is served anywhere.
    expect(
      authenticate(services(), listOdds, { ...request({ "x-api-key": value }), peer: "192.0.2.1" }, at),
    ).toMatchObject({ key });
  });

  it("is the console member whose session cookie a board's read carries, counted under the member", async () => {
    const member = { key: { ...key, id: "member:user-1" }, userId: "user-1" };
    const principal = authenticate(
      services({ session: async () => member }),
      listOdds,
      request({ cookie: "next-auth.session-token=a.session.token" }),
      at,
    );
    expect(await principal).toEqual({
      key: member.key,
      keyValue: "",
      keyHash: null,
      userId: "user-1",
      onlyEvent: null,
      address: null,
    });
  });
});

describe("a stream token's principal", () => {
  const tokens = new StreamTokens("a-secret-of-the-instance-0123456789abcdef");
  const keyWithSports = { ...key, sports: ["soccer", "tennis"] as ApiKeyRecord["sports"] };
  const services = (record: ApiKeyRecord | null = keyWithSports) =>
    ({
      streamTokens: tokens,
      keyHashes: new KeyHashes(),
      keys: { resolveById: async () => (record ? { record, keyHash: "hash-1" } : null) },
    }) as unknown as ApiServices;
  const minted = (grant: Partial<StreamTokenGrant> = {}) =>
    tokens.mint({
      keyId: key.id,
      sport: null,
      eventId: null,
      expiresAt: new Date(at.getTime() + 60_000),
      mintedFrom: "203.0.113.7",
      ...grant,
    });
  const withToken = (token: string, headers: Record<string, string> = {}): ApiRequest => ({
    ...request(headers),
    query: new URLSearchParams({ token }),
  });
  const refusal = async (token: string, endpoint: Endpoint = streamOdds, headers = {}, record?: ApiKeyRecord) => {
    try {
      await authenticate(services(record), endpoint, withToken(token, headers), at);
    } catch (error) {
      return { code: (error as ApiError).code, detail: (error as ApiError).message };
    }
  };

  it("is the key that minted it, narrowed to the token's sport or event, on a stream", async () => {
    expect(await authenticate(services(), streamOdds, withToken(minted({ sport: "tennis" })), at)).toMatchObject({
      key: { id: key.id, sports: ["tennis"] },
      keyHash: "hash-1",
      onlyEvent: null,
    });
    expect(await authenticate(services(), streamOdds, withToken(minted({ eventId: "ten-1" })), at)).toMatchObject({
      key: { sports: ["soccer", "tennis"] },
      onlyEvent: "ten-1",
    });
  });

  it("is refused anywhere but a stream, expired, altered, with a key beside it, or once its key is revoked", async () => {
    expect(await refusal(minted(), listOdds)).toMatchObject({ code: "invalid_api_key", detail: /streams only/ });
    expect(await refusal(minted({ expiresAt: at }))).toMatchObject({ code: "token_expired" });
    expect(await refusal(`${minted().slice(0, -2)}AA`)).toMatchObject({ code: "invalid_api_key" });
    expect(await refusal(minted(), streamOdds, { "x-api-key": generateKey("production") })).toMatchObject({
      code: "conflicting_credentials",
    });
    expect(await refusal(minted(), streamOdds, {}, { ...key, revokedAt: at })).toMatchObject({ code: "key_revoked" });
  });

  it("is held to its key's IP allowlist as it is now, by the address that minted it", async () => {
    const limited = { ...keyWithSports, allowList: new AllowList(["198.51.100.0/24"]) };
    // Minted from inside the list, opened by a browser anywhere.
    expect(
      await authenticate(services(limited), streamOdds, withToken(minted({ mintedFrom: "198.51.100.7" })), at),
    ).toMatchObject({ key: { id: key.id }, address: "198.51.100.7" });
    // Minted before the list changed, from an address it no longer includes; or from an address not recorded.
    expect(await refusal(minted({ mintedFrom: "203.0.113.7" }), streamOdds, {}, limited)).toMatchObject({
      code: "ip_not_allowed",
    });
    expect(await refusal(minted({ mintedFrom: null }), streamOdds, {}, limited)).toMatchObject({
      code: "ip_not_allowed",
    });
  });

  it("sent as a key in a header is refused, saying where a token goes", () => {
    expect(() => authenticate(services(), streamOdds, request({ authorization: `Bearer ${minted()}` }), at)).toThrow(
      /Stream tokens \(svc_st_\) are for streams only/,
    );
  });
});
