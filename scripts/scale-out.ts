// npm run scale-out: INSTANCES (2) instances of the built app on the PostgreSQL of DATABASE_URL,
// behind nginx on PORT (3000), until Ctrl-C. `npm run build` first; nginx must be installed
// (Debian: apt-get install nginx). FEED_TOKEN and METRICS_TOKEN, when set, reach every instance.
import { loadEnvFiles } from "../lib/env-files.ts";
import { startScaleOut } from "../testing/scale-out.ts";

loadEnvFiles();
const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  process.stderr.write(
    "npm run scale-out needs DATABASE_URL: instances share one PostgreSQL (PGlite is one process's)\n",
  );
  process.exit(2);
}
const instances = Number(process.env.INSTANCES ?? 2);
const port = Number(process.env.PORT ?? 3000);
const env: Record<string, string> = {};
for (const name of ["FEED_TOKEN", "METRICS_TOKEN", "SIM", "LOG_LEVEL"])
  if (process.env[name]) env[name] = process.env[name]!;
const running = await startScaleOut({ instances, databaseUrl, port, env });
process.stdout.write(
  `${instances} instances (${running.instances.map((i) => i.url).join(", ")}) behind nginx on ${running.url}; Ctrl-C stops them\n`,
);
let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void running.stop().then(() => process.exit(0));
  });
}
