import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { followSignUpMail } from "./support/mailbox.ts";

// What the UI hides, the server refuses too: these tests go around the UI in a real browser, by
// submitting a form with someone else's session or with another organisation's key id in it.

const PASSWORD = "correct horse battery staple";
const SESSION_COOKIE = "next-auth.session-token";
const HASHING = 30_000;

function unique(label: string): string {
  return `${label}-${randomBytes(4).toString("hex")}`;
}

async function signUp(
  browser: Browser,
  label: string,
): Promise<{ context: BrowserContext; page: Page; email: string }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const email = `${unique("admin")}@security.example`;
  await page.goto("/console/sign-up");
  await page.getByLabel("Organisation name").fill(unique(label));
  await page.getByLabel("Your name").fill("Ada Admin");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create organisation" }).click();
  await followSignUpMail(page, email);
  return { context, page, email };
}

test("a viewer joins by invitation, sees no controls, and is refused by the server when posting an admin's form", async ({
  browser,
}, testInfo) => {
  const admin = await signUp(browser, "Viewer org");
  await admin.page.goto("/console/members");
  await admin.page.getByLabel("Role").selectOption("viewer");
  await admin.page.getByRole("button", { name: "Create invitation link" }).click();
  const link = await admin.page.getByLabel("Invitation link").inputValue();
  expect(link).toMatch(/\/console\/invite\/[0-9A-Za-z]{32}$/);

  const viewerContext = await browser.newContext();
  const viewer = await viewerContext.newPage();
  await viewer.goto(link);
  await expect(viewer.getByRole("heading", { level: 1 })).toContainText("Join");
  await viewer.screenshot({ path: `e2e/screenshots/console-invitation-${testInfo.project.name}.png`, fullPage: true });
  await viewer.getByLabel("Your name").fill("Vera Viewer");
  await viewer.getByLabel("E-mail").fill(`${unique("viewer")}@security.example`);
  await viewer.getByLabel("Password").fill(PASSWORD);
  await viewer.getByRole("button", { name: "Join the organisation" }).click();
  // Joining hashes the password, and signing in hashes it again: seconds on a busy machine.
  await expect(viewer.getByTestId("role")).toHaveText("viewer", { timeout: HASHING });

  // The link works once.
  await viewer.goto(link);
  await expect(viewer.getByRole("heading", { level: 1, name: "Invitation not valid" })).toBeVisible();

  // No controls for a viewer.
  await viewer.goto("/console/keys");
  await expect(viewer.getByTestId("viewer-notice")).toBeVisible();
  await expect(viewer.getByRole("button", { name: /Create|Revoke/ })).toHaveCount(0);
  await viewer.screenshot({ path: `e2e/screenshots/console-keys-viewer-${testInfo.project.name}.png`, fullPage: true });
  await viewer.goto("/console/licence");
  await expect(viewer.getByRole("button", { name: /Record licence|Save/ })).toHaveCount(0);

  // The admin's sandbox form, submitted with the viewer's session: the server says no.
  await admin.page.goto("/console/keys");
  await admin.page.getByLabel("Sport").selectOption("soccer");
  const viewerSession = (await viewerContext.cookies()).filter((c) => c.name === SESSION_COOKIE);
  const adminSession = (await admin.context.cookies()).filter((c) => c.name === SESSION_COOKIE);
  expect(viewerSession).toHaveLength(1);
  await admin.context.clearCookies({ name: SESSION_COOKIE });
  await admin.context.addCookies(viewerSession);
  await admin.page.getByRole("button", { name: "Create sandbox key" }).click();
  await expect(admin.page.getByTestId("sandbox-section").getByRole("alert")).toHaveText(
    "Only an admin of the organisation can do this; you are a viewer.",
  );
  await expect(admin.page.getByTestId("show-once")).toHaveCount(0);

  // Back as the admin: no key was created, the offer still stands.
  await admin.context.clearCookies({ name: SESSION_COOKIE });
  await admin.context.addCookies(adminSession);
  await admin.page.reload();
  await expect(admin.page.getByRole("button", { name: "Create sandbox key" })).toBeVisible();
  await expect(admin.page.getByTestId("key-item")).toHaveCount(0);

  await viewerContext.close();
  await admin.context.close();
});

test("an admin cannot revoke another organisation's key by posting its id", async ({ browser }) => {
  const orgB = await signUp(browser, "Org B");
  await orgB.page.goto("/console/keys");
  await orgB.page.getByLabel("Sport").selectOption("tennis");
  await orgB.page.getByRole("button", { name: "Create sandbox key" }).click();
  await orgB.page.getByRole("button", { name: "I have stored it" }).click();
  const bKeyId = await orgB.page.getByTestId("key-item").getAttribute("data-key-id");
  expect(bKeyId).toMatch(/^key_/);

  const orgA = await signUp(browser, "Org A");
  await orgA.page.goto("/console/keys");
  await orgA.page.getByLabel("Sport").selectOption("soccer");
  await orgA.page.getByRole("button", { name: "Create sandbox key" }).click();
  await orgA.page.getByRole("button", { name: "I have stored it" }).click();
  const aItem = orgA.page.getByTestId("key-item");
  // Put B's key id into A's revoke form, as a hand-made POST would.
  await aItem
    .locator('form:has(button:text("Revoke key")) input[name="keyId"]')
    .evaluate((input, id) => ((input as HTMLInputElement).value = id!), bKeyId);
  await aItem.getByRole("button", { name: /^Revoke…/ }).click();
  await orgA.page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
  await expect(aItem.getByRole("alert")).toHaveText(`No key ${bKeyId} in this organisation.`);
  await expect(aItem.getByTestId("key-status")).toHaveText("active");

  await orgB.page.reload();
  await expect(orgB.page.getByTestId("key-item").getByTestId("key-status")).toHaveText("active");
  await orgA.page.goto("/console/audit");
  await expect(orgA.page.locator('[data-action="key.revoked"]')).toHaveCount(0);

  await orgA.context.close();
  await orgB.context.close();
});

test("after a wrong password the e-mail stays, and nothing is sent while a field is empty", async ({ browser }) => {
  test.setTimeout(4 * HASHING);
  const { context, email } = await signUp(browser, "Retry org");
  await context.close();
  const visitor = await browser.newContext();
  const page = await visitor.newPage();
  const credentialPosts: string[] = [];
  page.on("request", (request) => {
    if (request.url().includes("/api/auth/callback/credentials")) credentialPosts.push(request.postData() ?? "");
  });
  await page.goto("/console/sign-in");

  // Nothing typed: the form says what is missing and sends nothing.
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("Enter your e-mail address")).toBeVisible();
  await expect(page.getByText("Enter your password")).toBeVisible();
  expect(credentialPosts).toHaveLength(0);

  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill("not the password at all");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator("form").getByRole("alert")).toHaveText("Wrong e-mail or password.", { timeout: HASHING });
  await expect(page.getByLabel("E-mail")).toHaveValue(email);
  expect(credentialPosts).toHaveLength(1);

  // The retry: only the password typed again.
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Console" })).toBeVisible({ timeout: HASHING });
  await expect.poll(() => credentialPosts.length).toBe(2);
  expect(new URLSearchParams(credentialPosts[1]).get("email")).toBe(email);
  await visitor.close();
});

test("signing out ends the session everywhere, a copied cookie included", async ({ browser }) => {
  test.setTimeout(4 * HASHING);
  const member = await signUp(browser, "Sign-out org");
  const session = (await member.context.cookies()).filter((c) => c.name === SESSION_COOKIE);
  const thief = await browser.newContext();
  await thief.addCookies(session);
  const stolen = await thief.newPage();
  await stolen.goto("/console");
  await expect(stolen.getByRole("heading", { level: 1, name: "Console" })).toBeVisible();

  await member.page.getByRole("button", { name: "Sign out" }).first().click();
  await expect(member.page).toHaveURL(/\/console\/sign-in/);
  await stolen.goto("/console");
  await expect(stolen).toHaveURL(/\/console\/sign-in/);
  await thief.close();
  await member.context.close();
});
