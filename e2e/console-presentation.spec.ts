import AxeBuilder from "@axe-core/playwright";
import { expect as baseExpect, test, type Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { slugify } from "../lib/accounts/organisations.ts";
import { liveServerForFile, signUpOrganisation } from "./support/live-server.ts";
import { chooseDisplay, expectFitsAndAccessible } from "./support/page-checks.ts";

// What an organisation's admin reads in the console, walked as a new organisation would walk it:
// forms that keep what was typed and say in words what is wrong; the keys page's next steps as the
// organisation stands; sports by their names; keys named by name and hint; a plan's price confirmed
// before it applies; the audit log and the request log in words; the usage chart's month; times in
// the viewer's zone; and the dark theme on every page. On a server of the file's own, whose
// database the operator's CLI reaches (it verifies the licence). The browser's zone is Berlin's.

const PASSWORD = "correct horse battery staple";
const ZONE = "Europe/Berlin";
// Pages after a server action that hashes a password, or after the operator's restart, take a while.
const expect = baseExpect.configure({ timeout: 15_000 });

test.use({ timezoneId: ZONE });
test.describe.configure({ timeout: 600_000 });

const server = liveServerForFile();
const unique = (label: string) => `${label} ${randomBytes(4).toString("hex")}`;

const to = (page: Page, path: string) => page.goto(`${server().url}/console${path}`);

test("the sign-up form keeps what was typed after a refusal, never the password, and says what is wrong in words", async ({
  page,
}) => {
  const organisation = unique("Forms");
  const email = `${slugify(organisation)}@forms.example`;
  await page.goto(`${server().url}/console/sign-up`);
  await page.getByLabel("Organisation name").fill(organisation);
  await page.getByLabel("Your name").fill("Ada Admin");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill("short");
  await page.getByRole("button", { name: "Create organisation" }).click();

  const password = page.getByLabel("Password");
  await expect(password).toHaveAttribute("aria-invalid", "true");
  await expect(page.locator("#field-password-error")).toHaveText("Use at least 12 characters");
  await expect(page.getByLabel("Organisation name")).toHaveValue(organisation);
  await expect(page.getByLabel("Your name")).toHaveValue("Ada Admin");
  await expect(page.getByLabel("E-mail")).toHaveValue(email);
  await expect(password).toHaveValue("");

  // An emptied field is told what it needs, in words, under itself; the others are as typed.
  await page.getByLabel("Your name").fill("");
  await password.fill(PASSWORD);
  await page.getByRole("button", { name: "Create organisation" }).click();
  await expect(page.locator("#field-name-error")).toHaveText("Enter your name.");
  await expect(page.getByText(/Invalid input/)).toHaveCount(0);
  await expect(page.getByLabel("Organisation name")).toHaveValue(organisation);
  await expect(page.getByLabel("E-mail")).toHaveValue(email);
  await expectFitsAndAccessible(page, "the sign-up form after a refusal");
});

test("an admin's console in words: next steps, sports by name, keys by name and hint, the plan's price confirmed, logs, times and the dark theme", async ({
  page,
  browser,
}, info) => {
  const project = info.project.name;
  const organisation = unique(`Reading ${project}`);
  const slug = slugify(organisation);
  await signUpOrganisation(page, server().url, { organisation, email: `${slug}@reading.example`, password: PASSWORD });

  // The sandbox key: its sport by name, and what is true of losing it.
  await to(page, "/keys");
  await page.getByLabel("Sport").selectOption("ice-hockey");
  await page.getByRole("button", { name: "Create sandbox key" }).click();
  const once = page.getByTestId("show-once");
  await expect(once).toContainText("Covers Ice hockey");
  await expect(once).toContainText("If you lose it, there is no other: an organisation gets one sandbox key, ever.");
  await expect(once).not.toContainText("revoke it and create another");
  await page.getByRole("button", { name: "I have stored it" }).click();
  const next = page.getByTestId("sandbox-explanation");
  await expect(next).toContainText("record your licence and choose a plan, then create production keys");
  await expect(page.getByTestId("key-item").first()).toContainText("Ice hockey");

  // The licence, then the plan: its price and what changes are confirmed before it applies.
  await to(page, "/licence");
  await page.getByLabel("Licence reference").fill("MGA/B2B/777");
  await page.getByLabel("Issuing authority").fill("Malta Gaming Authority");
  await page.getByLabel("Holder's legal name").fill(`${organisation} Ltd`);
  await page.getByLabel("Valid until").fill("2030-12-31");
  await page.getByRole("button", { name: "Record licence" }).click();
  await expect(page.getByTestId("licence-status")).toContainText("awaits an operator's verification");
  await to(page, "/plan");
  await page.getByRole("button", { name: "Choose Pro" }).click();
  const confirm = page.getByRole("dialog", { name: "Switch to Pro?" });
  await expect(confirm).toBeVisible();
  await expect(confirm).toContainText("€499 a month");
  await expect(confirm.getByTestId("plan-change")).toContainText("All seven");
  await expect(confirm.getByTestId("plan-change")).toContainText("1,000,000 requests");
  await expectFitsAndAccessible(page, "the plan's confirmation");
  // Nothing changed yet.
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByTestId("plan-pro")).not.toContainText("Your plan");
  await page.getByRole("button", { name: "Choose Pro" }).click();
  await confirm.getByRole("button", { name: "Choose Pro for €499 a month" }).click();
  await expect(page.getByTestId("plan-pro")).toContainText("Your plan");

  // The keys page says what is left: the operator's verification, not the steps already taken.
  await to(page, "/keys");
  await expect(next).toContainText("MGA/B2B/777 awaits an operator's verification");
  await expect(next).not.toContainText("record your licence");
  await expect(next).not.toContainText("choose a plan");
  await server().operator(["licence", "verify", "--org", slug, "--reference", "MGA/B2B/777"]);
  await to(page, "/keys");
  await expect(next).toContainText("your licence is verified and your plan chosen: create production keys");

  // A named production key: its sports by name, its dialogs naming it by name and hint.
  await page.getByLabel("Name (optional)").fill("Web app");
  await page.getByRole("button", { name: "Create production key" }).click();
  const key = await page.getByTestId("production-section").getByTestId("shown-key").inputValue();
  await page.getByRole("button", { name: "I have stored it" }).click();
  const hint = `svc_sk_…${key.slice(-4)}`;
  const item = page.getByTestId("key-item").filter({ hasText: hint });
  await expect(item).toContainText("American football");
  await expect(item).toContainText("Counter-Strike 2");
  await expect(item).not.toContainText("american-football");
  await item.getByRole("button", { name: /^Revoke…/ }).click();
  const revoke = page.getByRole("dialog", { name: `Revoke “Web app” (${hint})?` });
  await expect(revoke).toBeVisible();
  await revoke.getByRole("button", { name: "Cancel" }).click();
  await item.getByRole("button", { name: /^Settings…/ }).click();
  const settings = page.getByRole("dialog", { name: `Settings of “Web app” (${hint})` });
  await expect(settings.getByLabel("Ice hockey")).toBeVisible();
  await settings.getByRole("button", { name: "Save settings" }).click();
  await expect(settings).toBeHidden();
  // The saved message below the key's buttons, which stay side by side.
  const saved = item.getByRole("status").filter({ hasText: "Key settings saved." });
  await expect(saved).toBeVisible();
  const settingsButton = (await item.getByRole("button", { name: /^Settings…/ }).boundingBox())!;
  const rollButton = (await item.getByRole("button", { name: /^Roll…/ }).boundingBox())!;
  expect(Math.abs(rollButton.y - settingsButton.y)).toBeLessThan(2);
  expect(rollButton.x - (settingsButton.x + settingsButton.width)).toBeLessThan(16);
  expect((await saved.boundingBox())!.y).toBeGreaterThanOrEqual(settingsButton.y + settingsButton.height);

  // Times in the viewer's zone, named, UTC on hover; UTC when chosen.
  const created = item.locator("dd time").first();
  await expect(created).toHaveAttribute("title", / CET$/);
  const lastUsedAfter = await page.request.get(`${server().url}/api/v1/me`, { headers: { "x-api-key": key } });
  expect(lastUsedAfter.status()).toBe(200);
  // The log is written within a second or so.
  const entry = page.getByTestId("request-entry").first();
  await expect(async () => {
    await to(page, "/requests");
    await expect(entry).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  await expect(entry.getByTestId("request-key")).toHaveText(`Web app (${hint})`);
  await expect(entry.locator("time")).toHaveText(/ CET$/);
  await expect(entry.locator("time")).toHaveAttribute("title", / UTC$/);
  await chooseDisplay(page, "Times", "utc");
  await expect(entry.locator("time")).toHaveText(/ UTC$/);
  await page.reload();
  await expect(page.getByTestId("request-entry").first().locator("time")).toHaveText(/ UTC$/);
  await chooseDisplay(page, "Times", "local");

  // A refused webhook address stays in its field; an accepted one gets a test message.
  await to(page, "/webhooks");
  const url = page.getByLabel("Endpoint URL");
  await url.fill("http://127.0.0.1/hook");
  await page.getByRole("button", { name: "Add endpoint" }).click();
  await expect(page.getByTestId("add-endpoint").getByRole("alert")).toContainText("private");
  await expect(url).toHaveValue("http://127.0.0.1/hook");
  await url.fill("https://93.184.215.14/sports");
  await page.getByRole("button", { name: "Add endpoint" }).click();
  await page.getByRole("button", { name: "I have stored it" }).click();
  await page.getByRole("button", { name: "Send test message" }).click();
  await expect(page.getByText("Test message queued")).toBeVisible();

  // An invitee joins; the audit log tells it all in sentences, the viewer reads the keys page.
  await to(page, "/members");
  await page.getByLabel("Role").selectOption("viewer");
  await page.getByRole("button", { name: "Create invitation link" }).click();
  const link = await page.getByLabel("Invitation link").inputValue();
  const viewerContext = await browser.newContext({ timezoneId: ZONE });
  const viewer = await viewerContext.newPage();
  const viewerEmail = `victor-${randomBytes(4).toString("hex")}@reading.example`;
  await viewer.goto(link);
  await viewer.getByLabel("Your name").fill("Victor Viewer");
  await viewer.getByLabel("E-mail").fill(viewerEmail);
  await viewer.getByLabel("Password").fill(PASSWORD);
  await viewer.getByRole("button", { name: "Join the organisation" }).click();
  await expect(viewer.getByTestId("role")).toHaveText("viewer", { timeout: 30_000 });
  await viewer.goto(`${server().url}/console/keys`);
  await expect(viewer.getByTestId("viewer-notice")).toHaveText(
    "You are a viewer: you can see the keys, but only an admin can change them.",
  );
  await viewerContext.close();

  await to(page, "/audit");
  const log = page.getByTestId("audit-log");
  await expect(log).toContainText(`${viewerEmail} joined as a viewer.`);
  await expect(log).toContainText("sent a test message to https://93.184.215.14/sports.");
  await expect(log).toContainText("added the webhook endpoint https://93.184.215.14/sports.");
  await expect(log).toContainText(`created the production key “Web app” (${hint})`);
  // No entry reads as a code.
  const code = /\b(organisation|member|invitation|user|licence|plan|key|webhook|usage)\.[a-z_]+\b/;
  await expect(page.getByTestId("audit-sentence").filter({ hasText: code })).toHaveCount(0);
  await expectFitsAndAccessible(page, "the audit log");

  // The usage chart: every day of the month labelled, the lines ending today.
  await to(page, "/usage");
  const chart = page.getByTestId("usage-chart");
  const today = new Date();
  const days = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 1, 0)).getUTCDate();
  await expect(chart.locator(".recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value")).toHaveText(
    Array.from({ length: days }, (_, i) => String(i + 1)),
  );
  const total = chart.locator("path.recharts-line-curve").first();
  await expect
    .poll(async () => ((await total.getAttribute("d")) ?? "").split(/[ML]/).filter((part) => part.trim()).length)
    .toBe(today.getUTCDate());
  await expectFitsAndAccessible(page, "the usage page");

  // The dark theme, chosen once, on every page: the console, the status page, the docs, a missing page.
  await to(page, "/keys");
  await chooseDisplay(page, "Theme", "dark");
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await expect.poll(background).toBe("rgb(11, 18, 32)");
  await expectDarkAndAccessible(page, "the keys page, dark");
  await page.screenshot({ path: `test-results/screenshots/console-dark-${project}.png`, fullPage: true });
  for (const path of ["/console/audit", "/status", "/docs/quickstart", "/no-such-page"]) {
    await page.goto(`${server().url}${path}`);
    expect(await background(), path).toBe("rgb(11, 18, 32)");
    await expectDarkAndAccessible(page, `${path}, dark`);
  }
  await chooseDisplay(page, "Theme", "system");
});

async function expectDarkAndAccessible(page: Page, name: string): Promise<void> {
  expect(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme), name).toBe("dark");
  const { violations } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa"]).analyze();
  expect(
    violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
    name,
  ).toEqual([]);
}
