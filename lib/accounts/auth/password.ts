import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { processCell } from "../../slot.ts";

// scrypt with N = 2^17, r = 8, p = 1: OWASP's minimum for scrypt. Each hash takes 128 MiB
// (128 · N · r bytes) for a fraction of a second; libuv's four threads bound how many run at once.
const STANDARD = { N: 2 ** 17, r: 8, p: 1 };
// A test's cost (TEST_FAST_PASSWORD_HASH): 1 MiB and milliseconds, for suites that sign up hundreds of times.
const FAST = { N: 2 ** 10, r: 8, p: 1 };
// One setting for the custom server's and Next's copies of lib/ (lib/slot.ts), as the clock's offset.
const current = processCell("password-hashing", () => ({ params: STANDARD }));
const KEY_LENGTH = 64;
// Stored parameters above these are refused: a stored hash must not make a sign-in take gigabytes.
const MAX_N = 2 ** 20;
const MAX_R = 16;

/**
 * The longest password hashed or checked, in UTF-16 code units. Longer ones are refused before
 * any work: normalising and hashing a megabyte on every attempt would be the attacker's lever.
 */
export const PASSWORD_MAX_LENGTH = 256;

type Params = typeof STANDARD;

/** New hashes at the test's cost (true) or OWASP's (false, the default). For tests only: the instance warns. */
export function hashPasswordsFast(fast: boolean): void {
  current.params = fast ? FAST : STANDARD;
}

function derive(password: string, salt: Buffer, params: Params): Promise<Buffer> {
  // Node refuses scrypt above 32 MiB unless told; this allows what OpenSSL reckons the parameters
  // need (128 · r · (N + p + 2) bytes), and no more.
  const options: ScryptOptions = { ...params, maxmem: 128 * params.r * (params.N + params.p + 2) + 1024 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** `scrypt$N$r$p$salt$hash`, so the parameters can be raised later without breaking old hashes. */
export async function hashPassword(password: string): Promise<string> {
  if (password.length > PASSWORD_MAX_LENGTH) throw new RangeError("The password is too long to hash.");
  const salt = randomBytes(16);
  const { params } = current;
  const key = await derive(password, salt, params);
  return ["scrypt", params.N, params.r, params.p, salt.toString("base64"), key.toString("base64")].join("$");
}

function parse(stored: string): { params: Params; salt: Buffer; hash: Buffer } | null {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (scheme !== "scrypt" || !salt || !hash) return null;
  if (!Number.isInteger(params.N) || params.N < 2 || params.N > MAX_N) return null;
  if (!Number.isInteger(params.r) || params.r < 1 || params.r > MAX_R || params.p !== 1) return null;
  return { params, salt: Buffer.from(salt, "base64"), hash: Buffer.from(hash, "base64") };
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed || password.length > PASSWORD_MAX_LENGTH) return false;
  const key = await derive(password, parsed.salt, parsed.params);
  return key.length === parsed.hash.length && timingSafeEqual(key, parsed.hash);
}

/** Whether a stored hash was made with weaker parameters than today's: it is replaced at the next sign-in. */
export function needsRehash(stored: string): boolean {
  const parsed = parse(stored);
  return !parsed || parsed.params.N < current.params.N || parsed.params.r < current.params.r;
}
