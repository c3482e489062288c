// A server's memory right after start: server.ts on the production build, the simulator on, nothing
// asked of it, read from /proc/<pid>/smaps BENCH_SETTLE_SECONDS (5) after its ready line, on the
// embedded database and, when TEST_DATABASE_URL is set, on PostgreSQL; BENCH_RUNS (3) starts each,
// alternating. The baseline is the same process before the memory-reducing collection it takes
// after start-up (its "Start-up memory given back" line: RSS before and after, and its time).
//
//   npm run build && npm run bench:start-memory
//
// Prints figures only; it asserts nothing.
import { BACKENDS } from "../testing/databases.ts";
import { anonymousMappings, mb, readProcessMaps, residentByKind, residentByMapping } from "../testing/memory-map.ts";
import { startServer } from "../testing/processes.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SETTLE_SECONDS = Number(process.env.BENCH_SETTLE_SECONDS ?? 5);

type Released = { rss_mb_before: number; rss_mb_after: number; ms: number };

async function oneStart(backend: (typeof BACKENDS)[number]): Promise<string> {
  const database = await backend.create();
  try {
    // The demo seeded on both, as a first start on the embedded default does (its password hashes included).
    const server = await startServer({ ...database.env, SEED_DEMO: "1" });
    try {
      await new Promise((resolve) => setTimeout(resolve, SETTLE_SECONDS * 1000));
      const pid = server.process.pid!;
      const maps = readProcessMaps(pid);
      if (!maps) throw new Error("no /proc/<pid>/smaps: Linux only");
      const byMapping = residentByMapping(maps.smaps, maps.executable);
      const total = byMapping.executable + byMapping.files + byMapping.brk + byMapping.anonymous;
      const kinds = residentByKind(anonymousMappings(maps.smaps))
        .filter((k) => k.resident >= 2 ** 20)
        .map((k) => `${k.kind} ${mb(k.resident, 0)}`);
      const line = server
        .output()
        .split("\n")
        .find((l) => l.includes("Start-up memory given back"));
      const released = line ? (JSON.parse(line) as Released) : null;
      const start = released
        ? `after start-up ${released.rss_mb_before} MB, given back to ${released.rss_mb_after} MB in ${released.ms} ms`
        : "no start-up release logged";
      return (
        `${backend.name.padEnd(8)} ${start}; ${SETTLE_SECONDS} s after ready ${mb(total, 0)} MB: ` +
        `${kinds.join(", ")}, files ${mb(byMapping.files + byMapping.executable, 0)}`
      );
    } finally {
      await server.stop();
    }
  } finally {
    await database.drop();
  }
}

for (let run = 1; run <= RUNS; run++) {
  for (const backend of BACKENDS) console.log(`run ${run}: ${await oneStart(backend)}`);
}
