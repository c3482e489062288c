import { expect as baseExpect, test, type Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { liveServerForFile, signUpOrganisation } from "./support/live-server.ts";
import { checkConsolePage } from "./support/page-checks.ts";
import { enrolAuthenticator, enterSecondStep } from "./support/second-factor.ts";

// Second factors in the browser, on a server of the file's own: an authenticator app added on the
// Security page, the second step at sign-in with a code computed here, a recovery code that works
// once, and an organisation's policy walking a member through adding one.

const PASSWORD = "correct horse battery staple";
const expect = baseExpect.configure({ timeout: 15_000 });
test.describe.configure({ timeout: 240_000 });

const server = liveServerForFile();

const unique = () => randomBytes(4).toString("hex");

async function signOut(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/console\/sign-in/);
}

async function passwordStepAs(page: Page, account: { email: string; password: string }): Promise<void> {
  await page.goto(`${server().url}/console/sign-in`);
  await page.getByLabel("E-mail").fill(account.email);
  await page.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

const passwordStep = (page: Page, email: string) => passwordStepAs(page, { email, password: PASSWORD });

// Next's route announcer is an alert too: the form's message is the one with the words.
const alertSaying = (page: Page, text: string) => page.getByRole("alert").filter({ hasText: text });

const consoleHeading = (page: Page) => page.getByRole("heading", { level: 1, name: "Console", exact: true });

test("an authenticator app: added on the Security page, asked for at sign-in, a recovery code once", async ({
  page,
}, testInfo) => {
  const project = testInfo.project.name;
  const email = `totp-${unique()}@example.com`;
  await signUpOrganisation(page, server().url, { organisation: `Codes ${unique()}`, email });
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Security" }).click();
  await expect(page.getByTestId("no-factors")).toBeVisible();
  const { app, recoveryCodes } = await enrolAuthenticator(page);
  await expect(page.getByTestId("factor-list")).toContainText("Authenticator app");
  await expect(page.getByTestId("recovery-codes-left")).toContainText("10 of 10 unused");
  await checkConsolePage(page, "security", project);

  // The password alone reaches only the second step: the console sends it back there.
  await signOut(page);
  await passwordStep(page, email);
  await expect(page.getByRole("heading", { level: 1, name: "Second step" })).toBeVisible();
  await page.goto(`${server().url}/console/keys`);
  await expect(page).toHaveURL(/\/console\/sign-in\/second-step/);
  await checkConsolePage(page, "second-step", project);
  await enterSecondStep(page, "000000");
  await expect(alertSaying(page, "That code is not right")).toBeVisible();
  await enterSecondStep(page, await app.code());
  await expect(consoleHeading(page)).toBeVisible();

  // A recovery code stands in for the app once; the second time it is refused.
  const [recovery] = recoveryCodes;
  await signOut(page);
  await passwordStep(page, email);
  await enterSecondStep(page, recovery!);
  await expect(consoleHeading(page)).toBeVisible();
  await page.goto(`${server().url}/console/security`);
  await expect(page.getByTestId("recovery-codes-left")).toContainText("9 of 10 unused");
  await signOut(page);
  await passwordStep(page, email);
  await enterSecondStep(page, recovery!);
  await expect(alertSaying(page, "That code is not right, or was used already")).toBeVisible();
  await enterSecondStep(page, await app.code());
  await expect(consoleHeading(page)).toBeVisible();
  await page.goto(`${server().url}/console/audit`);
  await expect(page.getByText("signed in with a recovery code")).toBeVisible();
  await expect(page.getByText("added the authenticator app “Authenticator app” as a second factor")).toBeVisible();
});

test("a policy requiring a second factor walks a member through adding one at their next sign-in", async ({
  page,
}, testInfo) => {
  test.skip(testInfo.project.name !== "desktop", "the policy is the server's, the same on a phone");
  const email = `policy-${unique()}@example.com`;
  await signUpOrganisation(page, server().url, { organisation: `Policy ${unique()}`, email });
  // The admin cannot require what they have not got themselves.
  await page.goto(`${server().url}/console/security`);
  await page.getByLabel("Who must use a second factor").selectOption("all");
  await page.getByRole("button", { name: "Save policy" }).click();
  await expect(alertSaying(page, "Add a second factor to your own account first")).toBeVisible();

  // A viewer joins, then the admin (with an app now) requires a second factor of everyone.
  await page.goto(`${server().url}/console/members`);
  await page.getByLabel("Role").selectOption("viewer");
  await page.getByRole("button", { name: "Create invitation link" }).click();
  const link = await page.getByLabel("Invitation link").inputValue();
  await page.goto(`${server().url}/console/security`);
  await enrolAuthenticator(page);
  await page.getByLabel("Who must use a second factor").selectOption("all");
  await page.getByRole("button", { name: "Save policy" }).click();
  await expect(page.getByTestId("policy")).toContainText("every member must use a second factor");
  await signOut(page);

  const viewer = `viewer-${unique()}@example.com`;
  await page.goto(link);
  await page.getByLabel("Your name").fill("Vic Viewer");
  await page.getByLabel("E-mail").fill(viewer);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: /Join/ }).click();
  // Joining signs the viewer in with their password: they must add a factor before anything else.
  await expect(page.getByRole("heading", { level: 1, name: "Set up a second factor" })).toBeVisible({
    timeout: 30_000,
  });
  await page.goto(`${server().url}/console/keys`);
  await expect(page).toHaveURL(/\/console\/sign-in\/second-step/);
  await enrolAuthenticator(page);
  await expect(consoleHeading(page)).toBeVisible();
  await expect(page.getByTestId("role")).toHaveText("viewer");
});

test("creating a production key asks for the second factor again once the last is over 10 minutes old", async ({
  page,
}, testInfo) => {
  test.skip(testInfo.project.name !== "desktop", "the step-up is the server's, the same on a phone");
  // The demo organisation holds a verified licence and a plan, so its admin may create production keys.
  await passwordStepAs(page, server().demo);
  await expect(consoleHeading(page)).toBeVisible({ timeout: 20_000 });
  await page.goto(`${server().url}/console/security`);
  const { app } = await enrolAuthenticator(page);
  await page.goto(`${server().url}/console/keys`);
  await page.getByLabel("Name (optional)").fill("Within ten minutes");
  await page.getByRole("button", { name: "Create production key" }).click();
  await expect(page.getByTestId("production-section").getByTestId("shown-key")).toHaveValue(/^svc_sk_/);
  await page.getByRole("button", { name: "I have stored it" }).click();

  // Eleven minutes on (the server's clock moved), the same session is asked for a code first.
  try {
    await server().restart({ TEST_CLOCK_OFFSET_SECONDS: String(11 * 60) });
    app.offsetMs = 11 * 60 * 1000;
    await page.goto(`${server().url}/console/keys`);
    await page.getByLabel("Name (optional)").fill("After a step-up");
    await page.getByRole("button", { name: "Create production key" }).click();
    await expect(alertSaying(page, "Confirm it is you")).toBeVisible();
    await expect(page.getByTestId("production-section").getByTestId("shown-key")).toHaveCount(0);
    await page.getByLabel("Second factor code").fill(await app.code());
    await page.getByRole("button", { name: "Confirm it is me" }).click();
    await expect(page.getByTestId("step-up-done")).toContainText("Confirmed");
    await page.getByRole("button", { name: "Create production key" }).click();
    await expect(page.getByTestId("production-section").getByTestId("shown-key")).toHaveValue(/^svc_sk_/);
    await page.getByRole("button", { name: "I have stored it" }).click();
    await page.goto(`${server().url}/console/audit`);
    await expect(page.getByText("confirmed it was them with a second factor").first()).toBeVisible();
  } finally {
    await server().restart();
  }
});
