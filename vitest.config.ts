import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import LongestFirstSequencer from "./testing/sequencer.ts";

export default defineConfig({
  test: {
    // The longest files first, so the last minutes do not run one long file on one worker.
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        // The "@/" of the code Next bundles (tsconfig's paths), for the board's modules.
        resolve: { alias: [{ find: /^@\//, replacement: fileURLToPath(new URL("./", import.meta.url)) }] },
        test: {
          name: "unit",
          include: [
            "lib/**/*.test.ts",
            "app/**/*.test.ts",
            "components/**/*.test.ts",
            "seeds/**/*.test.ts",
            "bench/**/*.test.ts",
            "proof/**/*.test.ts",
            "scripts/**/*.test.ts",
            "testing/**/*.test.ts",
            "packages/*/src/**/*.test.ts",
            "packages/*/scripts/**/*.test.ts",
          ],
          environment: "node",
          // Each worker loads drizzle as the server does (testing/module-hooks.ts).
          execArgv: ["--import", "./testing/module-hooks.ts"],
          // Pure modules without servers: evaluated once per worker rather than once per file, which
          // was more than half of this project's time. A file that leaves state behind fails another.
          isolate: false,
          // Before the integration files (a project of its own worker count must run in a group of its own).
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          environment: "node",
          globalSetup: ["testing/global-setup.ts"],
          execArgv: ["--import", "./testing/module-hooks.ts"],
          setupFiles: ["testing/log-check.ts", "testing/fast-passwords.ts"],
          // Each file starts real server processes and spends much of its time waiting on them (flushes,
          // pings, delays): with two files at a time the two cores were three-quarters busy, so three.
          // Every file has its own ports, scratch databases and data folders, so files never share state.
          fileParallelism: true,
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
          // A second try for a test that failed once: these tests wait on real servers, databases and
          // timers on a shared two-core machine. npm test names every test that needed it, with the
          // first try's failure, so a test that fails now and then is seen, not hidden.
          retry: 1,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
