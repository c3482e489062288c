import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { mailEnv } from "./e2e/support/mailbox.ts";
import { TEST_PASSWORD_COST } from "./testing/password-cost.ts";

const port = Number(process.env.E2E_PORT ?? 3100);
const baseURL = `http://127.0.0.1:${port}`;
// Playwright's own browser download cannot work here: Debian's chromium package is the browser.
const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const launchOptions = {
  executablePath,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
};

export default defineConfig({
  testDir: "e2e",
  globalSetup: "./e2e/support/global-setup.ts",
  outputDir: "test-results/e2e",
  // Two files at a time: most of a spec's time is waiting on its server and browser, and the specs
  // that restart, stop or run the operator's CLI on a server do it on a server of their file's own.
  fullyParallel: false,
  workers: 2,
  forbidOnly: !!process.env.CI,
  // One more try for a spec that failed: these drive a real server and browser on a shared
  // two-core machine. npm test names every spec that needed it ("flaky"), so one that fails now
  // and then is seen and fixed, not hidden.
  retries: 1,
  // On two cores Scalar's first render, a page's two accessibility analyses and full-page
  // screenshots, or a server's restart take seconds, and CI machines differ threefold: bounds
  // for a hang on the slowest, not for speed.
  timeout: 120_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["json", { outputFile: "test-results/playwright.json" }]],
  use: { baseURL, trace: "retain-on-failure", screenshot: "only-on-failure" },
  projects: [
    { name: "desktop", use: { ...devices["Desktop Chrome"], launchOptions } },
    // What a narrow screen changes: layouts and journeys. The server's rules, the content policy,
    // the icon, the operator's licence review, the journeys of the mailed links (their tokens)
    // and the API reference (Scalar's own layout) are the same on every screen: desktop only.
    {
      name: "phone",
      use: { ...devices["Pixel 7"], launchOptions },
      testIgnore: [
        "console-security.spec.ts",
        "security.spec.ts",
        "favicon.spec.ts",
        "licence.spec.ts",
        "docs.spec.ts",
        "mail.spec.ts",
      ],
    },
  ],
  webServer: {
    // The production server on the built app, on a database of its own.
    command: "node server.ts",
    url: `${baseURL}/readyz`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "pipe",
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      NODE_ENV: "production",
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "svc-e2e-")),
      DATABASE_URL: "",
      // Passwords hashed at a test's cost: the specs sign up and in dozens of times.
      ...TEST_PASSWORD_COST,
      // Its mail goes to the run's mail server (global setup), where the specs read it.
      ...mailEnv(baseURL),
    },
  },
});
