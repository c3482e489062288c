import { expect as baseExpect, test, type Browser, type Page, type TestInfo } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { utcDay } from "../lib/clock.ts";
import { slugify } from "../lib/accounts/organisations.ts";
import { liveServerForFile } from "./support/live-server.ts";
import { enrolAuthenticator, enterSecondStep, TestAuthenticator } from "./support/second-factor.ts";
import { expectFitsAndAccessible } from "./support/page-checks.ts";
import { followSignUpMail } from "./support/mailbox.ts";

// The operators' desk, as a fresh embedded start leaves it: the operator signs in with the sign-in
// that start showed once, and decides what a new organisation asked for; the organisation sees
// each decision on its next page. On a server of the file's own (a fresh database), on desktop
// and phone.

const PASSWORD = "correct horse battery staple";
// A sign-up hashes a password, and a busy machine runs two browsers beside the server.
const expect = baseExpect.configure({ timeout: 15_000 });
test.describe.configure({ timeout: 300_000 });

const server = liveServerForFile();

/** A second browser on the same kind of screen: the operator's, beside the organisation's. */
async function operatorPage(browser: Browser, testInfo: TestInfo): Promise<Page> {
  const { viewport, userAgent, deviceScaleFactor, isMobile, hasTouch } = testInfo.project.use;
  const context = await browser.newContext({ viewport, userAgent, deviceScaleFactor, isMobile, hasTouch });
  return context.newPage();
}

// The operator's authenticator app, added at their first sign-in (an operator always needs one).
let operatorApp: TestAuthenticator | undefined;

async function signInAtDesk(page: Page): Promise<void> {
  const { email, password } = server().operatorAccount;
  await page.goto(`${server().url}/console/sign-in`);
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  if (operatorApp) {
    await enterSecondStep(page, await operatorApp.code());
  } else {
    await expect(page.getByRole("heading", { level: 1, name: "Set up a second factor" })).toBeVisible();
    operatorApp = (await enrolAuthenticator(page)).app;
  }
  await expect(page).toHaveURL(`${server().url}/operator`);
  await expect(page.getByRole("heading", { level: 1, name: "Operators' desk" })).toBeVisible();
}

async function checked(page: Page, name: string, project: string): Promise<void> {
  await expect(page).toHaveTitle(/Operators' desk|Sports Event Data/);
  await expectFitsAndAccessible(page, name);
  await page.screenshot({ path: `e2e/screenshots/operator-${name}-${project}.png`, fullPage: true });
}

/** The console's own links: the decision must show on the next navigation, without a reload. */
async function consoleLink(page: Page, name: string): Promise<void> {
  const link = page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true });
  await link.click();
  await expect(link).toHaveAttribute("aria-current", "page");
}

/** One of the overview's steps, by its heading. */
function step(page: Page, title: string) {
  return page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: title }) });
}

async function recordLicence(page: Page, reference: string, holder: string, first: boolean): Promise<void> {
  await consoleLink(page, "Licence");
  await page.getByLabel("Licence reference").fill(reference);
  await page.getByLabel("Issuing authority").fill("Gibraltar Licensing Authority");
  await page.getByLabel("Holder's legal name").fill(holder);
  await page.getByLabel("Valid until").fill("2030-12-31");
  await page.getByRole("button", { name: first ? "Record licence" : "Save changes" }).click();
  await expect(page.getByTestId("licence-status")).toContainText(`${reference} awaits an operator's verification`);
}

test("the operator verifies a new organisation's licence at the desk, production keys follow, and stop once it is revoked", async ({
  page,
  browser,
}, testInfo) => {
  const project = testInfo.project.name;
  const organisation = `Desk ${project} ${randomBytes(4).toString("hex")}`;
  const slug = slugify(organisation);

  await page.goto(`${server().url}/console/sign-up`);
  await page.getByLabel("Organisation name").fill(organisation);
  await page.getByLabel("Your name").fill("Dana Desk");
  await page.getByLabel("E-mail").fill(`${slug}@desk.example`);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create organisation" }).click();
  await followSignUpMail(page, `${slug}@desk.example`);
  await recordLicence(page, "GLA/RGL/100", `${organisation} Ltd`, true);
  await consoleLink(page, "Plan");
  await page.getByRole("button", { name: "Choose Starter" }).click();
  await page
    .getByRole("dialog", { name: "Switch to Starter?" })
    .getByRole("button", { name: /^Choose Starter for / })
    .click();
  await expect(page.getByTestId("plan-starter")).toContainText("Your plan");

  // An organisation's admin is not told the desk exists.
  for (const path of ["/operator", "/operator/licences"]) {
    expect((await page.goto(`${server().url}${path}`))!.status(), path).toBe(404);
  }
  await page.goto(`${server().url}/console`);

  const desk = await operatorPage(browser, testInfo);
  await signInAtDesk(desk);
  const card = desk.locator(`[data-testid="desk-licence"][data-organisation="${slug}"]`);
  await expect(card.getByTestId("desk-licence-reference")).toHaveText("GLA/RGL/100");
  await checked(desk, "desk", project);

  // The admin swaps in another reference after the operator looked: the click verifies nothing.
  await recordLicence(page, "MADE/UP/999", `${organisation} Ltd`, false);
  await card.getByRole("button", { name: /^Verify/ }).click();
  await expect(card.getByRole("alert")).toContainText("The record changed: look again");
  // The desk shows the record as it is now; that one the operator verifies on the licences page.
  await expect(card.getByTestId("desk-licence-reference")).toHaveText("MADE/UP/999");
  await desk.getByRole("navigation", { name: "Desk" }).getByRole("link", { name: "Licences" }).click();
  await expect(desk.getByRole("heading", { level: 1, name: "Licences" })).toBeVisible();
  await checked(desk, "licences", project);
  await card.getByRole("button", { name: /^Verify/ }).click();
  await expect(card.getByRole("status")).toContainText("Verified");
  await expect(card.getByText("verified", { exact: true })).toBeVisible();

  // The organisation sees it on its next page, and creates a production key that is served.
  await consoleLink(page, "Overview");
  await expect(step(page, "Licence record")).toContainText("MADE/UP/999 is verified");
  await consoleLink(page, "Licence");
  await expect(page.getByTestId("licence-status")).toContainText("MADE/UP/999 was verified on");
  await consoleLink(page, "API keys");
  await page.getByLabel("Name (optional)").fill("Desk feed");
  await page.getByRole("button", { name: "Create production key" }).click();
  await expect(page.getByTestId("show-once")).toBeVisible();
  const key = await page.getByTestId("shown-key").inputValue();
  await page.getByRole("button", { name: "I have stored it" }).click();
  const served = await page.request.get(`${server().url}/api/v1/me`, { headers: { "x-api-key": key } });
  expect(served.status()).toBe(200);

  // The operator revokes it: the key is refused at once, and the organisation told why.
  await card.getByLabel("Reason for revoking (shown to the organisation)").fill("Suspended by the authority");
  await card.getByRole("button", { name: /^Revoke/ }).click();
  await expect(card.getByText("revoked", { exact: true })).toBeVisible();
  const refused = await page.request.get(`${server().url}/api/v1/me`, { headers: { "x-api-key": key } });
  expect(refused.status()).toBe(403);
  expect(await refused.json()).toMatchObject({
    code: "licence_inactive",
    detail: expect.stringContaining(`licence MADE/UP/999 was revoked on ${utcDay(new Date())}`),
  });
  await consoleLink(page, "Overview");
  await expect(step(page, "Licence record")).toContainText("MADE/UP/999 was revoked on");
  await consoleLink(page, "Licence");
  await expect(page.getByTestId("licence-status")).toContainText("was revoked on");
  await expect(page.getByTestId("licence-status")).toContainText("Suspended by the authority");
  await desk.context().close();
});

test("the desk's plans, organisations, incidents and operator audit", async ({ page, browser }, testInfo) => {
  const project = testInfo.project.name;
  const desk = await operatorPage(browser, testInfo);
  await signInAtDesk(desk);
  const nav = (name: string) => desk.getByRole("navigation", { name: "Desk" }).getByRole("link", { name }).click();

  // The demo organisation's admin asks for the plan priced on request.
  const demo = server().demo;
  await page.goto(`${server().url}/console/sign-in`);
  await page.getByLabel("E-mail").fill(demo.email);
  await page.getByLabel("Password").fill(demo.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Console" })).toBeVisible();
  await consoleLink(page, "Plan");
  const ask = async () => {
    await page.getByRole("button", { name: "Request approval for Enterprise" }).click();
    await page
      .getByRole("dialog", { name: "Request Enterprise?" })
      .getByRole("button", { name: "Request Enterprise" })
      .click();
    await expect(page.getByTestId("plan-enterprise")).toContainText("Requested: awaiting approval");
  };
  await ask();

  await nav("Plans");
  const request = desk.getByTestId("plan-request").filter({ hasText: "Demo Sports Media" });
  await expect(request).toContainText("Enterprise");
  await checked(desk, "plans", project);
  await request.getByLabel("Reason for declining").fill("Call us to agree the terms first");
  await request.getByRole("button", { name: /^Decline/ }).click();
  await expect(desk.getByTestId("plan-decisions")).toContainText(
    "Enterprise declined (Call us to agree the terms first)",
  );
  await consoleLink(page, "Overview");
  await consoleLink(page, "Plan");
  await expect(page.getByTestId("plan-request")).toContainText("Your request for Enterprise was declined on");
  await expect(page.getByTestId("plan-request")).toContainText("Call us to agree the terms first");
  await ask();
  await desk.reload();
  await request.getByRole("button", { name: /^Approve/ }).click();
  await expect(desk.getByTestId("plan-decisions")).toContainText("Enterprise approved");
  await consoleLink(page, "Overview");
  await expect(step(page, "Plan")).toContainText("Enterprise");

  // Found by a member's e-mail; its page shows keys by their hints only.
  await nav("Organisations");
  await desk.getByLabel("Search organisations").fill(demo.email);
  await desk.getByRole("button", { name: "Search" }).click();
  await desk.getByTestId("organisation-results").getByRole("link", { name: "Demo Sports Media" }).click();
  await expect(desk.getByRole("heading", { level: 1, name: "Demo Sports Media" })).toBeVisible();
  await expect(desk.getByRole("region", { name: "Members (1)" })).toContainText(demo.email);
  await expect(desk.getByTestId("licence-history")).toContainText("verified the licence");
  await expect(desk.getByRole("region", { name: "Plan and usage this month" })).toContainText("Enterprise");
  await checked(desk, "organisation", project);

  // An incident opened here is on the public status page, and resolved here.
  await nav("Incidents");
  const title = `Delayed scores ${project} ${randomBytes(3).toString("hex")}`;
  await desk.getByLabel("Title").fill(title);
  await desk.getByLabel("REST API").check();
  await desk.getByLabel("First update").fill("Scores reach the API late; we are looking into it.");
  await desk.getByRole("button", { name: "Open incident" }).click();
  const incident = desk.getByRole("article").filter({ hasText: title });
  await expect(incident).toContainText("investigating");
  await checked(desk, "incidents", project);
  const status = async () =>
    (
      (await (await page.request.get(`${server().url}/status.json`)).json()) as {
        incidents: { title: string; state: string }[];
      }
    ).incidents.find((i) => i.title === title)?.state;
  // The status page reads its incidents again every 30 seconds, as it always has.
  const STATUS_READ = { timeout: 45_000, intervals: [2_000] };
  await expect.poll(status, STATUS_READ).toBe("investigating");
  await incident.getByLabel("State", { exact: true }).selectOption("resolved");
  await incident.getByLabel("Update", { exact: true }).fill("Scores are on time again.");
  await incident.getByRole("button", { name: "Post update" }).click();
  await expect(incident.getByText("resolved", { exact: true })).toBeVisible();
  await expect.poll(status, STATUS_READ).toBe("resolved");

  await nav("Operator audit");
  const audit = desk.getByTestId("operator-audit");
  for (const action of [
    "plan.declined",
    "plan.approved",
    "incident.opened",
    "incident.updated",
    "operator.viewed_organisation",
  ]) {
    await expect(audit.locator(`[data-action="${action}"]`).first()).toBeVisible();
  }
  await expect(audit).toContainText(server().operatorAccount.email);
  await checked(desk, "audit", project);
  await desk.context().close();
});
