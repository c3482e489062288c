import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";

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
  await expect(page.getByTestId("status-latency")).toContainText("REST latency, median");
  await page.getByRole("link", { name: "/status.json" }).isVisible();
  await page.screenshot({ path: `e2e/screenshots/status-${testInfo.project.name}.png`, fullPage: true });
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow, "the status page scrolls sideways").toBeLessThanOrEqual(0);
  const { violations } = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .analyze();
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
});
