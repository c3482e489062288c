// `npm start`: builds once when there is no production build yet, then starts the server.
// After changing the code, `npm run build` makes a new build.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";

if (!existsSync(".next/BUILD_ID")) {
  console.log("No production build yet: building it once (npm run build)…");
  const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
  const build = spawnSync(process.execPath, [nextBin, "build"], { stdio: "inherit" });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
await import("../server.ts");
