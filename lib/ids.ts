import { randomBytes } from "node:crypto";

export const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `length` characters of base62 from the CSPRNG, without modulo bias. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: bytes at or above it would favour the first characters.
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A fixed-width base62 rendering of a non-negative integer below 62^width. */
export function toBase62(value: number, width: number): string {
  let out = "";
  let rest = value;
  for (let i = 0; i < width; i++) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

/** Identifiers of our own rows: a short type prefix and 20 random base62 characters. */
export function newId(
  prefix: "org" | "usr" | "key" | "lic" | "inv" | "cmp" | "tm" | "inc" | "whe" | "msg" | "mail" | "fac" | "ses" | "pkc",
): string {
  return `${prefix}_${randomBase62(20)}`;
}
