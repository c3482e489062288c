// `npm start`: builds once when there is no production build yet, then starts the server.
// After changing the code, `npm run build` makes a new build.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";

function build(): boolean {
  console.log("No production build yet: building it once (npm run build)…");
  const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
  return spawnSync(process.execPath, [nextBin, "build"], { stdio: "inherit" }).status === 0;
}

if (existsSync(".next/BUILD_ID") || build()) await import("../server.ts");
else process.exitCode = 1;
