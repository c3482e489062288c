import { expect, test, type Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { openSse } from "../testing/sse.ts";
import { expectFitsAndAccessible } from "./support/page-checks.ts";
import { followSignUpMail } from "./support/mailbox.ts";

// The console's whole journey, as a new organisation's admin would walk it, with a screenshot of
// every page. Each run signs up a fresh organisation, so desktop and phone never share state.

const PASSWORD = "correct horse battery staple";

function unique(label: string): string {
  return `${label}-${randomBytes(4).toString("hex")}`;
}

async function shot(page: Page, name: string, project: string): Promise<void> {
  // Client navigations set the title a moment after the content; axe checks it too.
  await expect(page).toHaveTitle(/Sports Event Data/);
  await expectFitsAndAccessible(page, name);
  await page.screenshot({ path: `e2e/screenshots/console-${name}-${project}.png`, fullPage: true });
}

async function signUp(page: Page, organisation: string, email: string): Promise<void> {
  await page.goto("/console/sign-up");
  await page.getByLabel("Organisation name").fill(organisation);
  await page.getByLabel("Your name").fill("Ada Admin");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create organisation" }).click();
  await followSignUpMail(page, email);
}

async function readShownKey(page: Page): Promise<string> {
  const shown = page.getByTestId("show-once");
  await expect(shown).toBeVisible();
  await expect(shown).toContainText("This is the only time it is shown");
  return page.getByTestId("shown-key").inputValue();
}

test("an admin signs up, records a licence, chooses a plan, creates and reads a key once, and revokes it", async ({
  page,
}, testInfo) => {
  // The whole journey, the sign-up's mail round trip included, on a busy machine.
  test.setTimeout(120_000);
  const project = testInfo.project.name;
  const organisation = unique(`Journey ${project}`);
  const email = `${unique("admin")}@journey.example`;

  await page.goto("/console");
  await expect(page).toHaveURL(/\/console\/sign-in$/);
  await expect(page.getByRole("heading", { level: 1, name: "Sign in to the console" })).toBeVisible();
  await shot(page, "sign-in", project);
  await page.getByRole("link", { name: "Create an organisation" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Create an organisation" })).toBeVisible();
  await shot(page, "sign-up", project);

  await signUp(page, organisation, email);
  await expect(page.getByTestId("organisation-name")).toHaveText(organisation);
  await expect(page.getByTestId("role")).toHaveText("admin");
  await shot(page, "overview", project);

  // Licence record.
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Licence" }).click();
  await expect(page.getByTestId("licence-status")).toContainText("No licence recorded");
  await page.getByLabel("Licence reference").fill("MGA/B2B/123");
  await page.getByLabel("Issuing authority").fill("Malta Gaming Authority");
  await page.getByLabel("Holder's legal name").fill(`${organisation} Ltd`);
  await page.getByLabel("Territory (optional)").fill("Malta");
  await page.getByLabel("Valid until").fill("2030-12-31");
  await page.getByRole("button", { name: "Record licence" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Licence recorded." })).toBeVisible();
  // A claim until an operator verifies it (e2e/licence.spec.ts follows it to production keys).
  await expect(page.getByTestId("licence-status")).toContainText("awaits an operator's verification");
  await shot(page, "licence", project);

  // Plan.
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Plan" }).click();
  await expect(page.getByRole("table")).toContainText("1,000,000");
  await page.getByRole("button", { name: "Choose Pro" }).click();
  await page
    .getByRole("dialog", { name: "Switch to Pro?" })
    .getByRole("button", { name: /^Choose Pro for / })
    .click();
  await expect(page.getByTestId("plan-pro")).toContainText("Your plan");
  await shot(page, "plan", project);

  // The sandbox key, shown once.
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "API keys" }).click();
  await page.getByLabel("Sport").selectOption("tennis");
  await page.getByRole("button", { name: "Create sandbox key" }).click();
  const sandboxKey = await readShownKey(page);
  expect(sandboxKey).toMatch(/^svc_sb_[0-9A-Za-z]{32}$/);
  await shot(page, "keys-sandbox-shown-once", project);
  await page.getByRole("button", { name: "I have stored it" }).click();
  await expect(page.getByTestId("show-once")).toHaveCount(0);
  // The offer is gone, the console says why and when the key expires.
  await expect(page.getByTestId("sandbox-explanation")).toContainText("one sandbox key, ever");
  await expect(page.getByTestId("sandbox-expiry")).not.toHaveText("—");
  await expect(page.getByRole("button", { name: "Create sandbox key" })).toHaveCount(0);
  const sandboxItem = page.getByTestId("key-item").filter({ hasText: "sandbox" });
  await expect(sandboxItem.getByTestId("key-hint")).toHaveText(`svc_sb_…${sandboxKey.slice(-4)}`);
  await expect(sandboxItem.getByTestId("key-status")).toHaveText("active");
  await expect(sandboxItem).toContainText("0 of 1,000 requests this month");

  // The key works at once against the API, as what it is.
  const me = await page.request.get("/api/v1/me", { headers: { authorization: `Bearer ${sandboxKey}` } });
  expect(me.status()).toBe(200);
  expect((await me.json()).data).toMatchObject({ key: sandboxKey, environment: "sandbox", plan: null });

  // No production key while the licence waits for its verification.
  await expect(page.getByTestId("production-blockers")).toContainText("MGA/B2B/123 awaits an operator's verification");
  await expect(page.getByRole("button", { name: "Create production key" })).toHaveCount(0);

  // A board stream it holds open, on the embedded database, ends when the admin revokes it here.
  const stream = await openSse(`${testInfo.project.use.baseURL}/api/v1/odds/stream`, {
    headers: { authorization: `Bearer ${sandboxKey}` },
  });
  await stream.waitFor((m) => m.event === "snapshot");

  // In use (so this instance holds it in its key cache), then revoked after confirming.
  const sandboxItemAgain = page.getByTestId("key-item").filter({ hasText: "sandbox" });
  await sandboxItemAgain.getByRole("button", { name: /^Revoke…/ }).click();
  const dialog = page.getByRole("dialog", { name: /^Revoke svc_sb_…/ });
  await expect(dialog).toBeVisible();
  await shot(page, "keys-revoke-confirmation", project);
  await dialog.getByRole("button", { name: "Revoke key" }).click();
  await expect(sandboxItemAgain.getByTestId("key-status")).toHaveText("revoked");
  await expect(sandboxItemAgain.getByRole("button", { name: /^Revoke…/ })).toHaveCount(0);
  const ended = await stream.waitFor((m) => m.event === "error", 10_000);
  expect(ended.data).toMatchObject({ code: "key_revoked", status: 401 });
  await stream.closed;

  // The very next request with it is refused.
  const after = await page.request.get("/api/v1/me", { headers: { "x-api-key": sandboxKey } });
  expect(after.status()).toBe(401);
  expect(await after.json()).toMatchObject({ code: "key_revoked" });

  // After leaving the show-once view the keys are nowhere: not in the page, storage or cookies.
  const response = await page.reload();
  expect(response?.headers()["cache-control"]).toContain("no-store");
  await expect(page.getByTestId("key-list")).toBeVisible();
  await shot(page, "keys", project);
  const html = await page.content();
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
  const cookies = JSON.stringify(await page.context().cookies());
  for (const key of [sandboxKey]) {
    const secretPart = key.slice(7);
    expect(html).not.toContain(secretPart);
    expect(stored).not.toContain(secretPart);
    expect(cookies).not.toContain(secretPart);
    expect(page.url()).not.toContain(secretPart);
  }

  // The remaining pages.
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Usage" }).click();
  await expect(page.getByTestId("usage-chart")).toBeVisible();
  // The journey's two admitted API requests (the sandbox key's call and its stream, before its
  // revocation; the refused one does not count), written by the metering within a second or so.
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("usage-total")).toHaveText(/^2 requests in /, { timeout: 500 });
  }).toPass({ timeout: 15_000 });
  await shot(page, "usage", project);
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Members" }).click();
  await expect(page.getByTestId("member-list")).toContainText(email);
  await shot(page, "members", project);
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Audit log" }).click();
  for (const action of [
    "organisation.created",
    "user.signed_in",
    "licence.set",
    "plan.set",
    "key.created",
    "key.revoked",
  ]) {
    await expect(page.locator(`[data-action="${action}"]`).first()).toBeVisible();
  }
  await expect(page.getByTestId("audit-log")).toContainText("MGA/B2B/123");
  await shot(page, "audit", project);

  // The console fits the phone without sideways scrolling.
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/console\/sign-in$/);
  await page.goto("/console/keys");
  await expect(page).toHaveURL(/\/console\/sign-in$/);
});

test("keys can be created, read and revoked from the keyboard, and a revocation can be called off", async ({
  page,
}, info) => {
  test.skip(info.project.name !== "desktop", "a phone has no keyboard to move through the page with");
  await signUp(page, unique("Keyboard"), `${unique("keys")}@keyboard.example`);
  await page.goto("/console/keys");
  await page.getByLabel("Sport").selectOption("baseball");
  await page.getByLabel("Sport").focus();
  await page.keyboard.press("Tab");
  await expect(page.getByRole("button", { name: "Create sandbox key" })).toBeFocused();
  await page.keyboard.press("Enter");
  // The show-once view takes the focus, so a screen reader announces it straight away.
  await expect(page.getByRole("heading", { name: "Your new sandbox key" })).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(page.getByTestId("shown-key")).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(page.getByRole("button", { name: "Copy key" })).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(page.getByRole("button", { name: "I have stored it" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("show-once")).toHaveCount(0);

  const revoke = page.getByRole("button", { name: /^Revoke…/ });
  await revoke.focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog");
  await expect(dialog).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId("key-status")).toHaveText("active");
});

test("on a phone every console page fits the screen, the console's bar stays small and the plans' Choose buttons are on screen", async ({
  page,
}, testInfo) => {
  test.skip(testInfo.project.name !== "phone", "the phone's screen is the narrow one");
  test.setTimeout(120_000);
  await signUp(page, unique("Phone"), `${unique("phone")}@phone.example`);
  const { width, height } = page.viewportSize()!;
  const pages = [
    "",
    "/keys",
    "/usage",
    "/requests",
    "/licence",
    "/plan",
    "/members",
    "/webhooks",
    "/security",
    "/settings",
    "/audit",
  ];
  for (const path of pages) {
    await page.goto(`/console${path}`);
    const heading = page.getByRole("heading", { level: 1 });
    await expect(heading).toBeVisible();
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow, `/console${path} scrolls sideways`).toBeLessThanOrEqual(0);
    // The page itself starts in the first third of the screen, below the site's and the console's bars.
    const top = (await heading.boundingBox())!.y;
    expect(top, `/console${path}'s heading is pushed down`).toBeLessThan(height / 3);
    await expect(page.getByRole("navigation", { name: "Console" }).getByRole("link")).toHaveCount(pages.length);
    await expect(page.getByRole("button", { name: "Sign out" })).toBeInViewport();
    await page.screenshot({ path: `e2e/screenshots/console-phone${path.replace("/", "-") || "-overview"}.png` });
  }

  // Every plan's Choose button lies within the screen's width: nothing to scroll sideways to reach.
  await page.goto("/console/plan");
  const choose = page.getByRole("button", { name: /^Choose / });
  await expect(choose.first()).toBeVisible();
  expect(await choose.count()).toBeGreaterThanOrEqual(2);
  for (const button of await choose.all()) {
    await button.scrollIntoViewIfNeeded();
    await expect(button).toBeInViewport({ ratio: 1 });
    const box = (await button.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(width);
  }
  await page.getByRole("button", { name: "Choose Pro" }).click();
  await page
    .getByRole("dialog", { name: "Switch to Pro?" })
    .getByRole("button", { name: /^Choose Pro for / })
    .click();
  await expect(page.getByTestId("plan-pro")).toContainText("Your plan");
  await page.screenshot({ path: "e2e/screenshots/console-phone-plan-full.png", fullPage: true });
});
