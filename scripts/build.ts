// `npm run build`: Next's production build, then the fingerprint of what it was built from, which
// `npm start` compares with the sources before serving (scripts/build-fingerprint.ts).
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { loadEnvFiles } from "../lib/env-files.ts";
import { FINGERPRINT_FILE, sourceFingerprint } from "./build-fingerprint.ts";

/** Builds, and records the fingerprint taken before the build started. True when it succeeded. */
export function build(): boolean {
  loadEnvFiles();
  const fingerprint = sourceFingerprint();
  const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
  // No telemetry from our builds, and no notice about it in the first start's output.
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: process.env.NEXT_TELEMETRY_DISABLED ?? "1" };
  if (spawnSync(process.execPath, [nextBin, "build"], { stdio: "inherit", env }).status !== 0) return false;
  writeFileSync(FINGERPRINT_FILE, `${fingerprint}\n`);
  return true;
}

if (import.meta.main) process.exitCode = build() ? 0 : 1;
