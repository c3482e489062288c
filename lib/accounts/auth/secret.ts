import "#server-only";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Config } from "../../config.ts";

const FILE = "auth-secret";

/**
 * The secret that signs session cookies: AUTH_SECRET when set; otherwise one generated on the first
 * start and kept in DATA_DIR, so `npm start` works on a fresh machine and sessions survive restarts.
 * Several instances must share one secret, so with several instances set AUTH_SECRET.
 */
export function authSecret(config: Config): string {
  if (config.AUTH_SECRET) return config.AUTH_SECRET;
  const dir = path.resolve(config.DATA_DIR);
  const file = path.join(dir, FILE);
  mkdirSync(dir, { recursive: true });
  try {
    // "wx": of two processes starting at once, one creates the file and the other reads it.
    writeFileSync(file, randomBytes(32).toString("base64url"), { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return readFileSync(file, "utf8").trim();
}
