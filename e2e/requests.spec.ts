import { expect, test } from "@playwright/test";
import { liveServerForFile } from "./support/live-server.ts";
import { checkConsolePage } from "./support/page-checks.ts";

// The Requests page as the demo organisation's admin uses it: a request the API refused is found
// by the request id its answer carried, with its status, code and path, and the filters narrow
// the log to it; never with the key in the page.

const server = liveServerForFile();
const checkPage = checkConsolePage;

test("the Requests page finds a refused request by its request id, and filters by status and code", async ({
  page,
}, testInfo) => {
  const project = testInfo.project.name;
  await page.goto(`${server().url}/console/sign-in`);
  await page.getByLabel("E-mail").fill(server().demo.email);
  await page.getByLabel("Password").fill(server().demo.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Console", exact: true })).toBeVisible({ timeout: 20_000 });

  // A key of this run's own, and a request the API refuses with it.
  await page.goto(`${server().url}/console/keys`);
  await page.getByLabel("Name (optional)").fill(`Requests ${project}`);
  await page.getByRole("button", { name: "Create production key" }).click();
  const key = await page.getByTestId("production-section").getByTestId("shown-key").inputValue();
  expect(key).toMatch(/^svc_sk_/);
  await page.getByRole("button", { name: "I have stored it" }).click();
  const answer = await page.request.get(`${server().url}/api/v1/events/no-such-event-${project}`, {
    headers: { "x-api-key": key },
  });
  expect(answer.status()).toBe(404);
  const problem = (await answer.json()) as { request_id: string; code: string; type: string };
  expect(problem.code).toBe("not_found");
  const requestId = problem.request_id;

  // Through the console's bar; the log is written within a second or so, so search until it is there.
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Requests" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Requests" })).toBeVisible();
  const search = page.getByRole("search", { name: "Search the request log" });
  const entries = page.getByTestId("request-entry");
  await expect(async () => {
    await search.getByLabel("Request id").fill(requestId);
    await search.getByRole("button", { name: "Search" }).click();
    await expect(page).toHaveURL(new RegExp(`id=${requestId}`));
    await expect(entries).toHaveCount(1, { timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  const entry = entries.first();
  await expect(entry.getByTestId("request-id")).toHaveText(requestId);
  await expect(entry.getByTestId("request-status")).toHaveText("404");
  await expect(entry.getByTestId("request-code")).toHaveText("not_found");
  // The code leads to its section of the reference, as the problem's type does.
  await expect(entry.getByTestId("request-code")).toHaveAttribute("href", problem.type);
  await expect(entry.getByTestId("request-path")).toHaveText(`GET /api/v1/events/no-such-event-${project}`);
  await expect(entry).toContainText(`Requests ${project}`);
  expect(await page.content()).not.toContain(key);
  await checkPage(page, "requests-found", project);

  // The filters: this key's 4xx with not_found hold the request; its 5xx hold nothing.
  await page.goto(`${server().url}/console/requests`);
  const keyOption = search.getByLabel("Key").locator("option", { hasText: `Requests ${project} (` });
  await search.getByLabel("Key").selectOption((await keyOption.getAttribute("value"))!);
  await search.getByLabel("Status").selectOption("4xx");
  await search.getByLabel("Code").selectOption("not_found");
  await search.getByRole("button", { name: "Search" }).click();
  await expect(page.getByTestId("request-id").filter({ hasText: requestId })).toHaveCount(1);
  await checkPage(page, "requests-filtered", project);
  await search.getByLabel("Status").selectOption("5xx");
  await search.getByRole("button", { name: "Search" }).click();
  await expect(page.getByTestId("requests-count")).toHaveText("No logged request matches.");
  await expect(entries).toHaveCount(0);
});
