// `npm test`: type-check, lint (with the format check), build, then every vitest suite (unit and
// integration, against the built server) and the Playwright suite in Chromium. Ends with one
// line counting all tests: "tests: N passed, N failed, N skipped".
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";

type Step = { name: string; bin: string; args: string[] };

// The package's own scripts, so each check is defined once, in package.json. The type check and the
// lint only read, each on one core, so they run side by side; the build writes the types the type
// check reads (.next/types), so it comes after them.
const readingChecks = ["typecheck", "lint"];
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

/** Runs the scripts at once; each one's output is printed whole once all have ended. The first that failed, if any. */
async function runScriptsTogether(names: string[]): Promise<string | undefined> {
  const results = await Promise.all(
    names.map(
      (name) =>
        new Promise<{ name: string; output: string; passed: boolean }>((resolve) => {
          const child = spawn("npm", ["run", "--silent", name], { stdio: ["ignore", "pipe", "pipe"] });
          let output = "";
          // Decoded as a stream, so a character split across two chunks stays whole.
          child.stdout.setEncoding("utf8").on("data", (text: string) => (output += text));
          child.stderr.setEncoding("utf8").on("data", (text: string) => (output += text));
          child.on("close", (code) => resolve({ name, output, passed: code === 0 }));
        }),
    ),
  );
  for (const { name, output } of results) process.stdout.write(`\n▶ npm run ${name}\n${output}`);
  return results.find((result) => !result.passed)?.name;
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

const failedCheck = (await runScriptsTogether(readingChecks)) ?? (runScript("build") ? undefined : "build");
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
    testResults: VitestFile[];
  }>("test-results/vitest.json");
  const playwright = readJson<{
    stats: { expected: number; unexpected: number; flaky: number; skipped: number };
    suites?: PlaywrightSuite[];
  }>("test-results/playwright.json");
  const passed = (vitest?.numPassedTests ?? 0) + (playwright?.stats.expected ?? 0) + (playwright?.stats.flaky ?? 0);
  const reportedFailures = (vitest?.numFailedTests ?? 0) + (playwright?.stats.unexpected ?? 0);
  // A suite that failed without a failing test (a crash, a setup error) still counts as a failure.
  const failed = !suitesPassed && reportedFailures === 0 ? 1 : reportedFailures;
  const skipped = (vitest ? vitest.numPendingTests + vitest.numTodoTests : 0) + (playwright?.stats.skipped ?? 0);
  // Named again at the end: a CI log kept only by its tail still says which tests failed and why.
  const failures = [...vitestFailures(vitest), ...playwrightFailures(playwright?.suites ?? [])];
  if (failures.length > 0) console.log(`\nfailed:\n${failures.map((line) => `  ${line}`).join("\n")}`);
  const retried = [...vitestRetried(vitest), ...playwrightFlaky(playwright?.suites ?? [])];
  if (retried.length > 0) {
    console.log(`\npassed on a second try (failed once):\n${retried.map((line) => `  ${line}`).join("\n")}`);
  }
  console.log(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  process.exitCode = suitesPassed && failed === 0 ? 0 : 1;
}

type VitestFile = {
  name: string;
  message?: string;
  assertionResults: { status: string; fullName: string; failureMessages: string[] | null }[];
};
type PlaywrightSuite = {
  file?: string;
  suites?: PlaywrightSuite[];
  specs?: {
    title: string;
    file: string;
    line: number;
    ok: boolean;
    tests?: { projectName?: string; status?: string }[];
  }[];
};

/** A path as the run shows it: from the project's folder. */
function relative(file: string): string {
  return file.replace(`${process.cwd()}/`, "");
}

/** A failure message's first line, short enough for a log line. */
function firstLine(message: string | undefined): string {
  const line = (message ?? "").split("\n").find((text) => text.trim() !== "") ?? "";
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

function vitestFailures(report: { testResults?: VitestFile[] } | null): string[] {
  const lines: string[] = [];
  for (const file of report?.testResults ?? []) {
    const name = relative(file.name);
    const failed = file.assertionResults.filter((test) => test.status === "failed");
    for (const test of failed) lines.push(`${name} › ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
    // A file that failed outside its tests (an import or a hook) has no failed test to name.
    if (failed.length === 0 && file.message) lines.push(`${name}: ${firstLine(file.message)}`);
  }
  return lines;
}

/** Tests that passed on their retry: vitest keeps the failed try's errors beside the pass. */
function vitestRetried(report: { testResults?: VitestFile[] } | null): string[] {
  return (report?.testResults ?? []).flatMap((file) =>
    file.assertionResults
      .filter((test) => test.status === "passed" && (test.failureMessages?.length ?? 0) > 0)
      .map((test) => `${relative(file.name)} › ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`),
  );
}

function playwrightFailures(suites: PlaywrightSuite[]): string[] {
  return suites.flatMap((suite) => [
    ...(suite.specs ?? [])
      .filter((spec) => !spec.ok)
      .map((spec) => `${spec.file}:${spec.line} › ${spec.title} [${spec.tests?.[0]?.projectName ?? ""}]`),
    ...playwrightFailures(suite.suites ?? []),
  ]);
}

/** Specs that passed on their retry ("flaky" in Playwright's report), with their project. */
function playwrightFlaky(suites: PlaywrightSuite[]): string[] {
  return suites.flatMap((suite) => [
    ...(suite.specs ?? []).flatMap((spec) =>
      (spec.tests ?? [])
        .filter((test) => test.status === "flaky")
        .map((test) => `${spec.file}:${spec.line} › ${spec.title} [${test.projectName ?? ""}]`),
    ),
    ...playwrightFlaky(suite.suites ?? []),
  ]);
}
