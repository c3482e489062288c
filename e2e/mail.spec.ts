import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { followSignUpMail, mailedLink } from "./support/mailbox.ts";

// What arrives by mail, read from a real SMTP server as a mail client would: the sign-up's link,
// a forgotten password's, and an invitation's, each opened in the browser.

const PASSWORD = "correct horse battery staple";
const unique = (label: string) => `${label}-${randomBytes(4).toString("hex")}`;

async function fillSignUp(page: import("@playwright/test").Page, organisation: string, email: string) {
  await page.goto("/console/sign-up");
  await page.getByLabel("Organisation name").fill(organisation);
  await page.getByLabel("Your name").fill("Ada Admin");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create organisation" }).click();
}

test("sign-up goes through the mailed link, and a registered address gets the same answer on screen", async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  const email = `${unique("ada")}@mail.example`;
  await fillSignUp(page, unique("Mailed"), email);
  const answer = await page.getByRole("heading", { name: "Check your inbox" }).locator("..").innerText();
  await followSignUpMail(page, email);

  // The link works once.
  const link = await mailedLink(email, /Confirm your sign-up/, "/console/sign-up/confirm");
  const other = await browser.newPage();
  await other.goto(link);
  await expect(other.getByRole("heading", { level: 1, name: "Link not valid" })).toBeVisible();

  // The same address again: the same words on screen, and its owner is told by mail instead.
  await fillSignUp(other, unique("Again"), email);
  await expect(other.getByRole("heading", { name: "Check your inbox" })).toBeVisible({ timeout: 30_000 });
  expect(await other.getByRole("heading", { name: "Check your inbox" }).locator("..").innerText()).toBe(answer);
  await mailedLink(email, /Someone tried to sign up/, "/console/forgot-password");
  await other.close();
});

test("a forgotten password is reset by the mailed link, which ends the other sessions and works once", async ({
  page,
  browser,
}) => {
  test.setTimeout(150_000);
  const email = `${unique("forgot")}@mail.example`;
  await fillSignUp(page, unique("Forgetful"), email);
  await followSignUpMail(page, email);

  const context = await browser.newContext();
  const other = await context.newPage();
  await other.goto("/console/sign-in");
  await other.getByRole("link", { name: "Forgot your password?" }).click();
  await expect(other.getByRole("heading", { level: 1, name: "Forgot your password" })).toBeVisible();
  await other.getByLabel("E-mail").fill(email);
  await other.getByRole("button", { name: "Send the link" }).click();
  await expect(other.locator("form").getByRole("status")).toContainText("Check your inbox");
  const link = await mailedLink(email, /Reset your password/, "/console/reset-password");

  await other.goto(link);
  await other.getByLabel("New password").fill("a new password that ada will remember");
  await other.getByRole("button", { name: "Set the new password" }).click();
  await expect(other.getByRole("heading", { level: 1, name: "Console" })).toBeVisible({ timeout: 30_000 });

  // The session the first page held is over.
  await page.goto("/console/keys");
  await expect(page).toHaveURL(/\/console\/sign-in/);
  // The link works once.
  await other.goto(link);
  await expect(other.getByRole("heading", { level: 1, name: "Link not valid" })).toBeVisible();
  await mailedLink(email, /Your password was changed/, "/console/forgot-password");
  await context.close();
});

test("an invitation is mailed, and its link lets the invitee join", async ({ page, browser }) => {
  test.setTimeout(150_000);
  const admin = `${unique("admin")}@mail.example`;
  await fillSignUp(page, unique("Inviting"), admin);
  await followSignUpMail(page, admin);

  const invitee = `${unique("vera")}@mail.example`;
  await page.goto("/console/members");
  await page.getByLabel("E-mail (optional").fill(invitee);
  await page.getByLabel("Role", { exact: true }).selectOption("viewer");
  await page.getByRole("button", { name: "Create invitation link" }).click();
  await expect(page.getByTestId("invitation-link")).toContainText(`mailed to ${invitee}`);
  const shown = await page.getByLabel("Invitation link").inputValue();

  const link = await mailedLink(invitee, /Join /, "/console/invite/");
  expect(link).toBe(shown);
  const context = await browser.newContext();
  const viewer = await context.newPage();
  await viewer.goto(link);
  await viewer.getByLabel("Your name").fill("Vera Viewer");
  await viewer.getByLabel("E-mail").fill(invitee);
  await viewer.getByLabel("Password").fill(PASSWORD);
  await viewer.getByRole("button", { name: "Join the organisation" }).click();
  await expect(viewer.getByTestId("role")).toHaveText("viewer", { timeout: 30_000 });
  await context.close();
});
