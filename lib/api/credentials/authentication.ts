import type { ApiKeyRecord } from "../../keys/lookup.ts";
import { looksLikeToken } from "../../keys/stream-token.ts";
import { keyLicenceRefusal } from "../../accounts/licences.ts";
import { readCredentials } from "./credentials.ts";
import { ApiError } from "../request/errors.ts";
import { clientAddressFrom, clientAddressOf } from "./guesses.ts";
import { sessionCookieOf, sessionExpired } from "./members.ts";
import type { ApiRequest, ApiServices, Endpoint, SessionReader } from "../request/types.ts";
import { unlessDatabaseFails } from "../request/unavailable.ts";

/**
 * Who a request is for: a key, or a console member reading with the session cookie, who is
 * counted and limited as a key is (by a record standing for the member).
 */
export type Principal = {
  key: ApiKeyRecord;
  /** The key as sent; empty for a member. */
  keyValue: string;
  /** The hash of the key sent; null for a member. */
  keyHash: string | null;
  /** The member's user id; null for a key. */
  userId: string | null;
  /** The one event a stream token is limited to; null for anything else. */
  onlyEvent: string | null;
  /**
   * The client address held to the key's IP allowlist: the request's own, or the one that minted
   * the stream token; null for a member.
   */
  address: string | null;
};

// RFC 6750: a 401 for a key that was sent says it is not a usable token.
const INVALID_TOKEN = { "www-authenticate": 'Bearer error="invalid_token"' };

function invalidKey(keyValue: string): ApiError {
  if (looksLikeToken(keyValue)) return tokenOutsideStreams();
  return new ApiError(
    "invalid_api_key",
    "The API key is not valid. Check that it was copied whole; keys start svc_sb_ or svc_sk_.",
    { headers: INVALID_TOKEN },
  );
}

function tokenOutsideStreams(): ApiError {
  return new ApiError(
    "invalid_api_key",
    "Stream tokens (svc_st_) are for streams only: pass one as `?token=` on /api/v1/odds/stream or " +
      "/api/v1/events/{id}/stream. Every other request takes the key, in a header.",
    { headers: INVALID_TOKEN },
  );
}

/**
 * The principal of a request: the console member whose session cookie it carries, on an endpoint
 * a member's board reads (when no key is sent), or else the active key sent. Synchronous once the
 * key is cached, a promise while it or the session is read.
 */
export function authenticate(
  services: ApiServices,
  endpoint: Endpoint | null,
  request: ApiRequest,
  at: Date,
): Principal | Promise<Principal> {
  const streamToken = request.query.get("token");
  if (streamToken !== null && looksLikeToken(streamToken)) {
    if (!endpoint?.stream) throw tokenOutsideStreams();
    return tokenPrincipal(services, request, streamToken, at);
  }
  const session = endpoint?.stream || endpoint?.console ? sessionCookieOf(request) : undefined;
  if (session === undefined) return keyPrincipal(services, request, at);
  return memberPrincipal(services.session, session, at);
}

/**
 * The key that minted a stream token, narrowed to the token's scope: the stream is that key's
 * (counted, limited and ended with it), for what the token was minted for.
 */
async function tokenPrincipal(services: ApiServices, request: ApiRequest, token: string, at: Date): Promise<Principal> {
  if (request.header("authorization") !== undefined || request.header("x-api-key") !== undefined) {
    throw new ApiError(
      "conflicting_credentials",
      "The request carries a stream token and a key; send one of them. Neither was used and the request was not counted.",
    );
  }
  const grant = services.streamTokens.read(token);
  // Signed by this service, so a token that passes names a key that existed: no guessing to limit.
  if (grant === null) {
    throw new ApiError(
      "invalid_api_key",
      "The stream token is not valid. Check that it was copied whole, or mint another with GET /api/v1/stream-token.",
      { headers: INVALID_TOKEN },
    );
  }
  if (grant.expiresAt <= at) {
    throw new ApiError(
      "token_expired",
      `This stream token expired at ${grant.expiresAt.toISOString()}; mint another with GET /api/v1/stream-token.`,
      { headers: INVALID_TOKEN },
    );
  }
  const found = await unlessDatabaseFails(() => services.keys.resolveById(grant.keyId), "check the key");
  if (!found) throw invalidKey("");
  const key = usableKey(found.record, at);
  // Held to the key's allowlist as it is now, by the address that minted it: a token minted before
  // the list changed opens nothing the list no longer allows.
  if (key.allowList && !(grant.mintedFrom !== null && key.allowList.allows(grant.mintedFrom))) {
    throw new ApiError(
      "ip_not_allowed",
      `This key is limited to ${key.allowList.networks.join(", ")}; this stream token was minted from ${grant.mintedFrom ?? "an address not recorded"}. Mint another from an allowed address.`,
      { refusedKey: known(key) },
    );
  }
  const sports = grant.sport === null ? key.sports : key.sports.filter((sport) => sport === grant.sport);
  return {
    key: { ...key, sports },
    keyValue: token,
    keyHash: found.keyHash,
    userId: null,
    onlyEvent: grant.eventId,
    address: grant.mintedFrom,
  };
}

async function memberPrincipal(session: SessionReader, token: string, at: Date): Promise<Principal> {
  const member = await unlessDatabaseFails(() => session(token, at), "read the session");
  if (!member) throw sessionExpired();
  return { key: member.key, keyValue: "", keyHash: null, userId: member.userId, onlyEvent: null, address: null };
}

function keyPrincipal(services: ApiServices, request: ApiRequest, at: Date): Principal | Promise<Principal> {
  const keyValue = readCredentials(request.header, request.query);
  const keyHash = services.keyHashes.wellFormed(keyValue);
  if (keyHash === null) throw invalidKey(keyValue);
  const key = activeKey(services, request, keyHash, at);
  if (!(key instanceof Promise)) {
    const address = fromAllowedAddress(services, request, key);
    return { key, keyValue, keyHash, userId: null, onlyEvent: null, address };
  }
  return key.then((found) => {
    const address = fromAllowedAddress(services, request, found);
    return { key: found, keyValue, keyHash, userId: null, onlyEvent: null, address };
  });
}

/**
 * A key with an IP allowlist is served only to a client address in it (TRUST_PROXY_HOPS decides
 * which address is the client's). Refused before metering: a key that leaked is not charged for
 * what others send with it. Stream tokens are for browsers anywhere: the request that mints one is
 * held to it, and the token carries its address. Returns the client's address, which a stream
 * keeps: the key's list may change while it is open.
 */
function fromAllowedAddress(services: ApiServices, request: ApiRequest, key: ApiKeyRecord): string {
  const address = clientAddressFrom(request.header("x-forwarded-for"), request.peer, services.trustedHops);
  if (!key.allowList || key.allowList.allows(address)) return address;
  throw new ApiError(
    "ip_not_allowed",
    `This key is limited to ${key.allowList.networks.join(", ")}; the request came from ${address}. The key's IP allowlist is set in the console.`,
    { refusedKey: known(key) },
  );
}

/**
 * The active key of this hash. Every instance holds every key's hash (lib/keys/hash-index.ts): a
 * hash no key has is refused without a read, and one that a key has is read at most once a minute,
 * so no address needs a budget of guesses, and a key created a moment ago works from any address
 * that guessed before. Only while the index is read again (the bus's notices may have been lost)
 * does an unknown key cost a read, and each client address may cause so many.
 */
function activeKey(
  services: ApiServices,
  request: ApiRequest,
  keyHash: string,
  at: Date,
): ApiKeyRecord | Promise<ApiKeyRecord> {
  const { keys, guesses } = services;
  let address: string | undefined;
  if (!keys.knows(keyHash)) {
    if (keys.indexed !== null) {
      if (keys.isNoKey(keyHash)) throw invalidKey("");
    } else if (!keys.knowsUnknown(keyHash)) {
      address = clientAddressOf(request.header("x-forwarded-for"), request.peer, services.trustedHops);
      guesses.take(address, Date.now());
    }
  }
  const found = unlessDatabaseFails(() => keys.resolve(keyHash), "check the key");
  if (!(found instanceof Promise)) return usableKey(found, at);
  return found.then((key) => {
    if (key && address !== undefined) guesses.giveBack(address);
    return usableKey(key, at);
  });
}

/** Why an expired key is refused, in words for its holder: a sandbox key's end, or a production key's. */
export function expiredDetail(key: ApiKeyRecord): string {
  const at = key.expiresAt!.toISOString();
  return key.environment === "sandbox"
    ? `This sandbox key expired at ${at}. An organisation has one sandbox key; production keys come with a licence and a plan.`
    : `This key expired at ${at}. If it was rolled, use its successor; otherwise create a key in the console.`;
}

function usableKey(key: ApiKeyRecord | null, at: Date): ApiKeyRecord {
  if (!key) throw invalidKey("");
  if (key.revokedAt) {
    throw new ApiError("key_revoked", `This key was revoked on ${key.revokedAt.toISOString()}.`, {
      headers: INVALID_TOKEN,
      refusedKey: known(key),
    });
  }
  if (key.expiresAt && key.expiresAt <= at) {
    throw new ApiError("key_expired", expiredDetail(key), { headers: INVALID_TOKEN, refusedKey: known(key) });
  }
  const licence = keyLicenceRefusal(key, at);
  if (licence !== null) throw new ApiError("licence_inactive", licence, { refusedKey: known(key) });
  return key;
}

const known = (key: ApiKeyRecord) => ({ id: key.id, orgId: key.orgId });
