import { createHmac, randomBytes } from "node:crypto";

// Standard Webhooks: the signed content is `<webhook-id>.<webhook-timestamp>.<body>`, the key the
// secret's base64 part after `whsec_`, the signature `v1,<base64 HMAC-SHA256>`.

const SECRET_PREFIX = "whsec_";

/** A new endpoint secret, `whsec_` and 32 random bytes in base64. */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64");
}

/** The `webhook-signature` header of a message: `v1,` and the base64 HMAC-SHA256 of id, timestamp (seconds) and body. */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error("A webhook secret starts with whsec_");
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

/**
 * The headers of one attempt to deliver a message, signed at `at` with each of `secrets` (the
 * current one, and a rotated one while its overlap lasts): receivers accept any signature that matches.
 */
export function signedHeaders(secrets: readonly string[], id: string, at: Date, body: string): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": secrets.map((secret) => signature(secret, id, timestamp, body)).join(" "),
  };
}
