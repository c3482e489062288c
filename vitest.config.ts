import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      {
        // The "@/" of the code Next bundles (tsconfig's paths), for the board's modules.
        resolve: { alias: [{ find: /^@\//, replacement: fileURLToPath(new URL("./", import.meta.url)) }] },
        test: {
          name: "unit",
          include: [
            "lib/**/*.test.ts",
            "components/**/*.test.ts",
            "seeds/**/*.test.ts",
            "bench/**/*.test.ts",
            "proof/**/*.test.ts",
            "scripts/**/*.test.ts",
            "packages/*/src/**/*.test.ts",
            "packages/*/scripts/**/*.test.ts",
          ],
          environment: "node",
        },
      },
      {
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          environment: "node",
          globalSetup: ["testing/global-setup.ts"],
          setupFiles: ["testing/log-check.ts"],
          // Each file starts real server processes; on two cores, one file at a time is faster.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
