// `npm start`: builds when there is no production build, or when the sources, the lock file or
// the build's configuration changed since it was made (scripts/build-fingerprint.ts); then starts
// the server.
import { loadEnvFiles } from "../lib/env-files.ts";
import { builtFingerprint, sourceFingerprint } from "./build-fingerprint.ts";
import { build } from "./build.ts";

loadEnvFiles();
// Next's notice that it collects telemetry, and the collection itself: the operator did not ask for either.
process.env.NEXT_TELEMETRY_DISABLED ??= "1";
const built = builtFingerprint();
let ready = true;
if (built === null) {
  console.log("No production build yet: building it once (npm run build)…");
  ready = build();
} else if (built !== sourceFingerprint()) {
  console.log("The sources changed since the last build: building again (npm run build)…");
  ready = build();
}
if (ready) await import("../server.ts");
else process.exitCode = 1;
