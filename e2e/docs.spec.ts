import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";

/** Scrolls the reference until `text` is rendered: Scalar renders operations as they come into view. */
async function scrollUntil(page: Page, text: string | RegExp): Promise<void> {
  const target = page.getByText(text).first();
  for (let i = 0; i < 60 && !(await target.count()); i++) {
    await page.mouse.wheel(0, 1_500);
    await page.waitForTimeout(150);
  }
  await expect(target).toBeAttached();
}

// It renders the examples; tests/integration/docs-examples.test.ts runs them.
test("the reference renders the endpoints, their examples addressed to this server, loading nothing from elsewhere", async ({
  page,
}, testInfo) => {
  const origin = new URL(testInfo.project.use.baseURL!).origin;
  const foreign: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).origin !== origin) foreign.push(request.url());
  });
  await page.goto("/docs");
  await expect(page.getByRole("heading", { level: 1, name: "API reference" })).toBeVisible();
  // Scalar's first render takes seconds on two cores, more with another spec file running beside it.
  await expect(page.getByRole("heading", { level: 1, name: "Sports Event Data API" })).toBeVisible({ timeout: 30_000 });
  await page.screenshot({ path: `e2e/screenshots/docs-${testInfo.project.name}.png` });

  for (const summary of [
    "Describe the calling key",
    "List events",
    "One event",
    "Lineups of one event",
    "All events in play with their markets",
  ]) {
    await scrollUntil(page, summary);
  }
  // A stream's example follows it as a stream (-N) and names the reader's own event, not an invented id.
  await scrollUntil(page, "Follow one event");
  await scrollUntil(
    page,
    'curl -N -H "Authorization: Bearer $KEY" "http://localhost:3000/api/v1/events/$EVENT/stream"',
  );
  // The examples use this server's address; asked without a key, the API itself answers.
  await scrollUntil(page, `${origin}/api/v1/events`);
  const answer = await page.request.get(`${origin}/api/v1/events`);
  expect(answer.status()).toBe(401);
  expect(await answer.json()).toMatchObject({ code: "missing_api_key" });
  expect(foreign).toEqual([]);
});

test("the quickstart is one click from the reference, and reads as a page", async ({ page }) => {
  await page.goto("/docs");
  await page.getByRole("link", { name: "quickstart" }).click();
  await expect(page).toHaveURL(/\/docs\/quickstart$/);
  await expect(page.getByRole("heading", { level: 1, name: "Quickstart for key holders" })).toBeVisible();
  await expect(page.getByRole("heading", { level: 2, name: /A live board in a web page of your own/ })).toBeVisible();
  await expect(page.getByText('curl -H "Authorization: Bearer $KEY" "http://localhost:3000/api/v1/me"')).toBeVisible();
  // What the site serves is linked; a file of the repository says where it is, and is not a dead link.
  const article = page.locator("article");
  await expect(article.getByRole("link", { name: "/docs/errors" })).toHaveAttribute("href", "/docs/errors");
  await expect(article.getByRole("link", { name: "/console" })).toHaveAttribute("href", "/console");
  await expect(article.getByRole("link", { name: "/docs", exact: true })).toHaveAttribute("href", "/docs");
  await expect(article).toContainText("Live streams (docs/streams.md in the service's repository)");
  for (const href of await article.getByRole("link").evaluateAll((links) => links.map((l) => l.getAttribute("href")))) {
    expect(href).toMatch(/^(\/|https?:)/);
  }
  await article.getByRole("link", { name: "/docs/errors" }).click();
  await expect(page).toHaveURL(/\/docs\/errors$/);
  await page.goBack();
  await expect(page.getByRole("heading", { level: 1, name: "Quickstart for key holders" })).toBeVisible();
  const { violations } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa"]).analyze();
  expect(violations.map((v) => v.id)).toEqual([]);
});
