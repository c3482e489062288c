import { expect, test, type Page } from "@playwright/test";
import { liveServerForFile } from "./support/live-server.ts";
import { checkConsolePage } from "./support/page-checks.ts";

// Rolling a production key in the console, as the demo organisation's admin (a verified licence on
// the Pro plan) does it: the successor is shown once, and both keys are in the list, the old one
// expiring at the end of the overlap and still working until then. Then a key's own limits inside
// the organisation's pool, set and cleared in its settings.

const server = liveServerForFile();
const checkPage = checkConsolePage;

const me = async (page: Page, key: string) => {
  const answer = await page.request.get(`${server().url}/api/v1/me`, { headers: { "x-api-key": key } });
  return { status: answer.status(), data: ((await answer.json()) as { data: Record<string, unknown> }).data };
};

/** Signs the demo admin in and creates a production key named `name` on the keys page: its secret. */
async function createKey(page: Page, name: string): Promise<string> {
  await page.goto(`${server().url}/console/sign-in`);
  await page.getByLabel("E-mail").fill(server().demo.email);
  await page.getByLabel("Password").fill(server().demo.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Console", exact: true })).toBeVisible({ timeout: 20_000 });
  await page.goto(`${server().url}/console/keys`);
  await page.getByLabel("Name (optional)").fill(name);
  await page.getByRole("button", { name: "Create production key" }).click();
  const key = await page.getByTestId("production-section").getByTestId("shown-key").inputValue();
  expect(key).toMatch(/^svc_sk_/);
  await page.getByRole("button", { name: "I have stored it" }).click();
  return key;
}

/** A key's item: the one whose hint heads it (the other key names it too once rolled). */
const itemOf = (page: Page, key: string) =>
  page
    .getByTestId("key-item")
    .filter({ has: page.getByTestId("key-hint").filter({ hasText: `svc_sk_…${key.slice(-4)}` }) });

test("an admin rolls a production key: the successor shown once, both keys listed, the old one expiring", async ({
  page,
}, testInfo) => {
  const project = testInfo.project.name;
  const name = `Feed ${project}`;
  const oldKey = await createKey(page, name);
  const oldItem = itemOf(page, oldKey);
  await expect(oldItem.getByTestId("key-status")).toHaveText("active");
  await oldItem.getByRole("button", { name: /^Roll…/ }).click();
  const dialog = page.getByRole("dialog", { name: `Roll “${name}” (svc_sk_…${oldKey.slice(-4)})?` });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel("Keep this key working for").selectOption({ label: "1 hour" });
  await checkPage(page, "keys-roll-confirmation", project);
  await dialog.getByRole("button", { name: "Roll key" }).click();

  // The successor, once, with when the old key stops.
  const once = page.locator('section[aria-labelledby="key-list-title"]').getByTestId("show-once");
  await expect(once).toBeVisible();
  await expect(once).toContainText("This is the only time it is shown");
  await expect(once).toContainText(`The key it replaces, svc_sk_…${oldKey.slice(-4)}, keeps working until`);
  const newKey = await once.getByTestId("shown-key").inputValue();
  expect(newKey).toMatch(/^svc_sk_[0-9A-Za-z]{32}$/);
  expect(newKey).not.toBe(oldKey);
  await expect(dialog).toBeHidden();

  // Both in the list: the old one expiring in an hour and pointing at its successor, the new one active.
  const newItem = itemOf(page, newKey);
  await expect(oldItem.getByTestId("key-status")).toHaveAttribute("data-state", "expiring");
  await expect(oldItem.getByTestId("key-status")).toContainText(/^expiring at \d+ \w+ \d{4}, \d\d:\d\d [A-Z][\w+-]+$/);
  await expect(oldItem.getByTestId("rolled-to")).toHaveText(`svc_sk_…${newKey.slice(-4)}`);
  await expect(oldItem.getByRole("button", { name: /^Roll…/ })).toHaveCount(0);
  await expect(newItem.getByTestId("key-status")).toHaveText("active");
  await expect(newItem).toContainText(name);
  await expect(newItem.getByTestId("replaces")).toHaveText(`svc_sk_…${oldKey.slice(-4)}`);
  await checkPage(page, "keys-rolled", project);

  // Both work; the old one says when it ends, an hour from now.
  const before = await me(page, oldKey);
  expect(before.status).toBe(200);
  const ends = Date.parse(before.data.expires_at as string) - Date.now();
  expect(ends).toBeGreaterThan(58 * 60_000);
  expect(ends).toBeLessThanOrEqual(60 * 60_000);
  expect(await me(page, newKey)).toMatchObject({ status: 200, data: { name, expires_at: null } });

  // Shown once: gone after "I have stored it", and not in the page when it is read again.
  await once.getByRole("button", { name: "I have stored it" }).click();
  await expect(page.getByTestId("show-once")).toHaveCount(0);
  await page.reload();
  await expect(newItem.getByTestId("key-status")).toHaveText("active");
  expect(await page.content()).not.toContain(newKey);

  // The successor's settings, what it took from the old key, in a dialog as accessible as the rest.
  await newItem.getByRole("button", { name: /^Settings…/ }).click();
  const settings = page.getByRole("dialog", { name: `Settings of “${name}” (svc_sk_…${newKey.slice(-4)})` });
  await expect(settings.getByLabel("Name")).toHaveValue(name);
  await expect(settings.getByLabel("IP allowlist (optional)")).toHaveValue("");
  await checkPage(page, "keys-settings", project);
  await settings.getByRole("button", { name: "Cancel" }).click();
  await expect(settings).toBeHidden();
});

test("an admin gives a key its own limits below the plan's, which hold it, and clears them", async ({
  page,
}, testInfo) => {
  test.skip(testInfo.project.name !== "desktop", "the limits are the server's, the same on a phone");
  const name = "Capped";
  const key = await createKey(page, name);
  const item = itemOf(page, key);
  const settings = page.getByRole("dialog", { name: `Settings of “${name}” (svc_sk_…${key.slice(-4)})` });
  await item.getByRole("button", { name: /^Settings…/ }).click();
  const monthly = settings.getByLabel("Requests a month");
  const perSecond = settings.getByLabel("Requests a second");
  await expect(monthly).toHaveValue("");
  await expect(perSecond).toHaveValue("");

  // Above the Pro plan's million a month: refused, the dialog open with what was typed.
  await monthly.fill("2000000");
  await settings.getByRole("button", { name: "Save settings" }).click();
  await expect(settings).toContainText(
    "A key's own monthly quota lowers its plan's, which the organisation shares: at most 1000000.",
  );
  await expect(settings).toBeVisible();
  await expect(settings.getByLabel("Requests a month")).toHaveValue("2000000");
  expect((await me(page, key)).data.own_limits).toEqual({ requests_per_month: null, requests_per_second: null });

  // Three a month and two a second: saved, shown on the key and in /me, and the key held to them.
  await settings.getByLabel("Requests a month").fill("3");
  await settings.getByLabel("Requests a second").fill("2");
  await settings.getByRole("button", { name: "Save settings" }).click();
  await expect(settings).toBeHidden();
  await expect(item.getByTestId("own-limits")).toHaveText("3 a month, 2 a second");
  const capped = await me(page, key);
  expect(capped.data.own_limits).toEqual({ requests_per_month: 3, requests_per_second: 2 });
  expect(capped.data.limits).toMatchObject({ requests_per_month: 3, requests_per_second: 2 });
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) {
    // Each in a second of its own (the /me reads above can share one): the monthly quota, not the
    // rate of two a second, is what refuses.
    await page.waitForTimeout(1_000);
    const answer = await page.request.get(`${server().url}/api/v1/events`, { headers: { "x-api-key": key } });
    statuses.push(answer.status());
  }
  // Its two /me reads were two of its three: one more, then its own quota refuses it, far below the pool's.
  expect(statuses).toEqual([200, 429, 429]);

  // Emptied fields give the key the plan's limits back: it reads again.
  await item.getByRole("button", { name: /^Settings…/ }).click();
  await expect(settings.getByLabel("Requests a month")).toHaveValue("3");
  await settings.getByLabel("Requests a month").fill("");
  await settings.getByLabel("Requests a second").fill("");
  await settings.getByRole("button", { name: "Save settings" }).click();
  await expect(settings).toBeHidden();
  await expect(item.getByTestId("own-limits")).toHaveCount(0);
  const plain = await me(page, key);
  expect(plain.status).toBe(200);
  expect(plain.data.own_limits).toEqual({ requests_per_month: null, requests_per_second: null });
  expect(plain.data.limits).toMatchObject({ requests_per_month: 1_000_000, requests_per_second: 50 });
});
