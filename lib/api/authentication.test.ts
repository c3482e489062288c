import { activeKey } from "../../testing/keys.ts";
import { describe, expect, it } from "vitest";
import { generateKey, hashKey } from "../keys/format.ts";
import { authenticate, KeyHashes } from "./authentication.ts";
import { listOdds } from "./endpoints.ts";
import { ApiError } from "./errors.ts";
import { KeyGuesses } from "./guesses.ts";
import type { ApiRequest, ApiServices } from "./types.ts";

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

  it("is the console member whose session cookie a board's read carries, counted under the member", async () => {
    const member = { key: { ...key, id: "member:user-1" }, userId: "user-1" };
    const principal = authenticate(
      services({ session: async () => member }),
      listOdds,
      request({ cookie: "next-auth.session-token=a.session.token" }),
      at,
    );
    expect(await principal).toEqual({ key: member.key, keyValue: "", keyHash: null, userId: "user-1" });
  });
});
