import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseEnv } from "node:util";
import type { Environment } from "./config.ts";

// Kept apart from lib/config.ts, which pages import: the server, the CLI and the build read these
// files before anything else, and no page does.

/** The files the server, the CLI and the build read variables from, in their folder, weakest first. */
export const ENV_FILES = [".env", ".env.local"];

/**
 * Puts the variables of `.env` and `.env.local` (in `dir`, the folder the command runs in) into
 * `env`, for the server, the CLI and Next's build alike, before anything reads the configuration.
 * The real environment wins over `.env.local`, which wins over `.env`. Returns the files read.
 */
export function loadEnvFiles(dir: string = process.cwd(), env: Environment = process.env): string[] {
  const read: string[] = [];
  const fromFiles: Record<string, string> = {};
  for (const name of ENV_FILES) {
    const file = path.join(dir, name);
    if (!existsSync(file)) continue;
    Object.assign(fromFiles, parseEnv(readFileSync(file, "utf8")));
    read.push(name);
  }
  for (const [name, value] of Object.entries(fromFiles)) if (env[name] === undefined) env[name] = value;
  return read;
}
