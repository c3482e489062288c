// The CPU a fresh process spends loading the modules server.ts loads (the instance, the Node entry,
// the operator's commands, the database), with drizzle's imports resolved by lib/ops/module-hooks.ts
// against the baseline of Node alone, alternating, BENCH_RUNS (5) processes each; and drizzle's
// PostgreSQL builder on its own. The CPU of the whole process (process.cpuUsage(), all threads).
//
//   npm run bench:module-load
//
// Prints figures only; it asserts nothing.
import { spawnSync } from "node:child_process";
import { spread } from "./stats.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);

const TARGETS = {
  "server.ts's modules": [
    "./lib/ops/admin/commands.ts",
    "./lib/db/index.ts",
    "./lib/node-entry.ts",
    "./lib/instance.ts",
  ],
  "drizzle-orm/pg-core": ["drizzle-orm/pg-core"],
};

/** CPU milliseconds of one process importing `modules`: all of it, its start and the hooks' registration included. */
function loadOnce(modules: string[], hooks: boolean): number {
  const script = `
    await Promise.all(${JSON.stringify(modules)}.map((m) => import(m)));
    const used = process.cpuUsage();
    process.stdout.write(String((used.user + used.system) / 1000));`;
  const args = [...(hooks ? ["--import", "./testing/module-hooks.ts"] : []), "--input-type=module", "-e", script];
  const result = spawnSync(process.execPath, args, { encoding: "utf8", env: { ...process.env, SIM: "off" } });
  if (result.status !== 0) throw new Error(`loading ${modules.join(", ")} failed: ${result.stderr}`);
  return Number(result.stdout);
}

const ms = (n: number) => `${n.toFixed(0)} ms`;
for (const [name, modules] of Object.entries(TARGETS)) {
  const alone: number[] = [];
  const hooked: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    alone.push(loadOnce(modules, false));
    hooked.push(loadOnce(modules, true));
  }
  console.log(
    `${name}: Node alone ${spread(alone, ms)}, with the hooks ${spread(hooked, ms)} (min / median / max CPU)`,
  );
}
