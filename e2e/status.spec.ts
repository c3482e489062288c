import { expect, test } from "@playwright/test";
import { SPORT_NAMES } from "../lib/sports.ts";
import { expectFitsAndAccessible } from "./support/page-checks.ts";

// The public status page as anyone sees it, without signing in: each component's state now and its
// availability, the latencies measured, and the same figures as /status.json.

test("the status page shows every component's state and availability, as its JSON does, and fits the screen", async ({
  page,
}, testInfo) => {
  const json = await (await page.request.get("/status.json")).json();
  await page.goto("/status");
  await expect(page.getByRole("heading", { level: 1, name: "Status" })).toBeVisible();
  await expect(page.getByTestId("status-headline")).toBeVisible();
  const rows = page.getByTestId("status-components").locator("tbody tr");
  await expect(rows).toHaveCount(json.components.length);
  for (const component of ["api", "streams", "console"]) {
    await expect(rows.and(page.locator(`[data-component="${component}"]`))).toBeVisible();
  }
  // The embedded server's simulator has live events: their sports' feeds are listed too.
  await expect(page.locator('[data-component^="feed:"]').first()).toBeVisible();
  // Feeds by their sports' names; availability over the time actually observed (this server started
  // minutes ago), not over a day, a week and a month it was not there for.
  const names = Object.values(SPORT_NAMES).map((name) => `Feed: ${name}`);
  for (const name of await page.locator('[data-component^="feed:"] th').allTextContents()) {
    expect(names).toContain(name);
  }
  const headers = page.getByTestId("status-components").locator("thead th");
  await expect(headers.last()).toHaveText(/^Since \d+ \w+ \d{4}, \d\d:\d\d \w+/);
  await expect(headers.filter({ hasText: /^(24 hours|7 days|30 days)$/ })).toHaveCount(0);
  await expect(page.getByTestId("status-latency")).toContainText("REST latency, median");
  await expect(page.getByRole("link", { name: "/status.json" })).toBeVisible();
  await page.screenshot({ path: `e2e/screenshots/status-${testInfo.project.name}.png`, fullPage: true });
  await expectFitsAndAccessible(page, "the status page");
});
