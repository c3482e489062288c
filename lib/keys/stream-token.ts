import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { SPORTS, type Sport } from "../db/schema/values.ts";

// Browser stream tokens: `svc_st_<payload>.<signature>`, both base64url. The payload names the key
// that minted the token, its scope and its expiry, and is signed, so nothing is stored and every
// instance that shares the secret can check one. A browser's EventSource cannot send a header,
// so a token travels in the URL: it opens streams only, for minutes, and only what its key may.

export const TOKEN_PREFIX = "svc_st_";

/** What a token grants: the streams of one key, narrowed to a sport or one event, until it expires. */
export type StreamTokenGrant = {
  keyId: string;
  /** null: every sport the key covers. */
  sport: Sport | null;
  /** null: any stream of the key's sports; else that event's stream only. */
  eventId: string | null;
  expiresAt: Date;
  /**
   * The client address that minted it: a stream it opens is held to the key's IP allowlist as it
   * is when the stream opens, by this address (a browser opening it may be anywhere). null: unknown.
   */
  mintedFrom: string | null;
};

type Payload = { k: string; s: Sport | null; e: string | null; x: number; a?: string | null };

/** Whether a value is meant as a stream token (well-formed or not). */
export const looksLikeToken = (value: string): boolean => value.startsWith(TOKEN_PREFIX);

/** Signs and checks stream tokens with a key of their own, derived from the instance's secret. */
export class StreamTokens {
  private readonly signingKey: Buffer;

  constructor(secret: string) {
    // Derived, so a token's signature says nothing about the sessions' key and the reverse.
    this.signingKey = Buffer.from(hkdfSync("sha256", secret, "", "stream tokens", 32));
  }

  mint(grant: StreamTokenGrant): string {
    const payload: Payload = {
      k: grant.keyId,
      s: grant.sport,
      e: grant.eventId,
      x: Math.floor(grant.expiresAt.getTime() / 1000),
      a: grant.mintedFrom,
    };
    const encoded = Buffer.from(JSON.stringify(payload)).toString("base64url");
    return `${TOKEN_PREFIX}${encoded}.${this.sign(encoded).toString("base64url")}`;
  }

  /** The grant of a token this service signed, expired or not; null for anything else. */
  read(token: string): StreamTokenGrant | null {
    if (!looksLikeToken(token) || token.length > 512) return null;
    const [encoded, signature, ...rest] = token.slice(TOKEN_PREFIX.length).split(".");
    if (!encoded || !signature || rest.length > 0) return null;
    const given = Buffer.from(signature, "base64url");
    const expected = this.sign(encoded);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    const payload = parsePayload(Buffer.from(encoded, "base64url").toString("utf8"));
    if (!payload) return null;
    return {
      keyId: payload.k,
      sport: payload.s,
      eventId: payload.e,
      expiresAt: new Date(payload.x * 1000),
      mintedFrom: typeof payload.a === "string" ? payload.a : null,
    };
  }

  private sign(encoded: string): Buffer {
    return createHmac("sha256", this.signingKey).update(encoded).digest();
  }
}

// Signed by us, so malformed only if the format changed: refused all the same rather than trusted.
function parsePayload(text: string): Payload | null {
  try {
    const value = JSON.parse(text) as Partial<Payload>;
    if (typeof value.k !== "string" || !Number.isSafeInteger(value.x)) return null;
    if (value.s !== null && !SPORTS.includes(value.s as Sport)) return null;
    if (value.e !== null && typeof value.e !== "string") return null;
    return value as Payload;
  } catch {
    return null;
  }
}
