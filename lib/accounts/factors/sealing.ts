import "#server-only";
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

// Authenticator secrets are kept encrypted with AES-256-GCM under a key derived from AUTH_SECRET,
// so a copy of the database alone does not yield codes. Changing AUTH_SECRET voids every
// authenticator app enrolled (recovery codes, stored as hashes, still work).

const VERSION = "v1";

/** The key that seals second-factor secrets, derived from the session secret for this use only. */
export function sealingKey(authSecret: string): Buffer {
  return Buffer.from(hkdfSync("sha256", authSecret, "second-factors", "totp-secret-sealing", 32));
}

export function seal(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [
    VERSION,
    iv.toString("base64url"),
    body.toString("base64url"),
    cipher.getAuthTag().toString("base64url"),
  ].join(".");
}

/** The sealed text, or null when it was sealed under another key or altered. */
export function unseal(key: Buffer, sealed: string): string | null {
  const [version, iv, body, tag] = sealed.split(".");
  if (version !== VERSION || !iv || !body || !tag) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}
