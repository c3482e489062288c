// `npm test`: type-check, lint (with the format check), build, then every vitest suite (unit and
// integration, against the built server) and the Playwright suite in Chromium. Ends with one
// line counting all tests: "tests: N passed, N failed, N skipped".
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";

type Step = { name: string; bin: string; args: string[] };

// The package's own scripts, so each check is defined once, in package.json.
const checks = ["typecheck", "lint", "build"];
const suites: Step[] = [
  {
    name: "vitest",
    bin: "node_modules/vitest/vitest.mjs",
    // A stray `.only` would pass the run while skipping the rest of its file: refused here always.
    args: [
      "run",
      "--allowOnly=false",
      "--reporter=default",
      "--reporter=json",
      "--outputFile.json=test-results/vitest.json",
    ],
  },
  { name: "playwright", bin: "node_modules/@playwright/test/cli.js", args: ["test", "--forbid-only"] },
];

function run(step: Step): boolean {
  console.log(`\n▶ ${step.name}`);
  const result = spawnSync(process.execPath, [step.bin, ...step.args], { stdio: "inherit" });
  return result.status === 0;
}

function runScript(name: string): boolean {
  console.log(`\n▶ npm run ${name}`);
  return spawnSync("npm", ["run", "--silent", name], { stdio: "inherit" }).status === 0;
}

function readJson<T>(file: string): T | null {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as T;
  } catch {
    return null;
  }
}

if (!process.env.TEST_DATABASE_URL) {
  console.log("TEST_DATABASE_URL is not set: the PostgreSQL variants of the integration tests are skipped.");
}
rmSync("test-results", { recursive: true, force: true });
mkdirSync("test-results", { recursive: true });

const failedCheck = checks.find((name) => !runScript(name));
if (failedCheck) {
  console.log(`\n${failedCheck} failed: tests not run.\ntests: 0 passed, 1 failed`);
  process.exitCode = 1;
} else {
  summarise(suites.map(run).every(Boolean));
}

function summarise(suitesPassed: boolean): void {
  const vitest = readJson<{
    numPassedTests: number;
    numFailedTests: number;
    numPendingTests: number;
    numTodoTests: number;
  }>("test-results/vitest.json");
  const playwright = readJson<{ stats: { expected: number; unexpected: number; flaky: number; skipped: number } }>(
    "test-results/playwright.json",
  );
  const passed = (vitest?.numPassedTests ?? 0) + (playwright?.stats.expected ?? 0) + (playwright?.stats.flaky ?? 0);
  const reportedFailures = (vitest?.numFailedTests ?? 0) + (playwright?.stats.unexpected ?? 0);
  // A suite that failed without a failing test (a crash, a setup error) still counts as a failure.
  const failed = !suitesPassed && reportedFailures === 0 ? 1 : reportedFailures;
  const skipped = (vitest ? vitest.numPendingTests + vitest.numTodoTests : 0) + (playwright?.stats.skipped ?? 0);
  console.log(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  process.exitCode = suitesPassed && failed === 0 ? 0 : 1;
}
