import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import type { Environment } from "../db/schema/index.ts";
import { randomBase62, toBase62 } from "../ids.ts";

// Key = prefix + 26 random base62 characters + 6 base62 characters of the CRC32 of those 26.
// The checksum lets a mistyped or invented key be refused without a database read, and lets
// secret scanners recognise real keys.
export const KEY_PREFIX = { sandbox: "svc_sb_", production: "svc_sk_" } as const satisfies Record<Environment, string>;
const RANDOM_LENGTH = 26;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = /^svc_(sb|sk)_([0-9A-Za-z]{26})([0-9A-Za-z]{6})$/;

function checksum(random: string): string {
  return toBase62(crc32(random), CHECKSUM_LENGTH);
}

export function generateKey(environment: Environment): string {
  const random = randomBase62(RANDOM_LENGTH);
  return `${KEY_PREFIX[environment]}${random}${checksum(random)}`;
}

/** The environment of a well-formed key whose checksum matches; null for anything else. */
export function checkKeyFormat(key: string): Environment | null {
  const match = KEY_PATTERN.exec(key);
  if (!match || checksum(match[2]!) !== match[3]) return null;
  return match[1] === "sb" ? "sandbox" : "production";
}

export function hashKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** What people see of a key after creation: its prefix and last four characters. */
export function keyHint(key: string): string {
  return `${key.slice(0, KEY_PREFIX.sandbox.length)}…${key.slice(-4)}`;
}

export const KEY_LENGTH = KEY_PREFIX.sandbox.length + RANDOM_LENGTH + CHECKSUM_LENGTH;
