import { expect as baseExpect, test, type Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { utcDay } from "../lib/clock.ts";
import { slugify } from "../lib/accounts/organisations.ts";
import { liveServerForFile } from "./support/live-server.ts";
import { followSignUpMail } from "./support/mailbox.ts";

// From a licence typed into the console to production keys and back: the record waits for the
// operator, who verifies it with the CLI (e2e/operator.spec.ts does it at the desk); production
// keys follow; once the operator revokes it, the organisation's keys are refused with 403
// licence_inactive. On a server of the suite's own, to which the operator's CLI sends its commands.

const PASSWORD = "correct horse battery staple";
// A page after a server action that hashes a password or follows a restart may take a while on a
// busy machine.
const expect = baseExpect.configure({ timeout: 15_000 });

// The operator's commands are processes of their own, each loading the CLI.
test.describe.configure({ timeout: 300_000 });

const server = liveServerForFile();

async function goTo(page: Page, name: string): Promise<void> {
  // The phone folds the console's navigation away; the address works on both.
  const paths: Record<string, string> = { Licence: "licence", Plan: "plan", "API keys": "keys" };
  await page.goto(`${server().url}/console/${paths[name]}`);
}

test("a licence waits for the operator, gives production keys once verified, and stops them when revoked", async ({
  page,
}, testInfo) => {
  const organisation = `Licence ${testInfo.project.name} ${randomBytes(4).toString("hex")}`;
  const slug = slugify(organisation);

  await page.goto(`${server().url}/console/sign-up`);
  await page.getByLabel("Organisation name").fill(organisation);
  await page.getByLabel("Your name").fill("Lena Licence");
  await page.getByLabel("E-mail").fill(`${slug}@licence.example`);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create organisation" }).click();
  await followSignUpMail(page, `${slug}@licence.example`);

  // The admin records the licence: pending, and no production keys yet.
  await goTo(page, "Licence");
  await page.getByLabel("Licence reference").fill("GLA/RGL/042");
  await page.getByLabel("Issuing authority").fill("Gibraltar Licensing Authority");
  await page.getByLabel("Holder's legal name").fill(`${organisation} Ltd`);
  await page.getByLabel("Valid until").fill("2030-12-31");
  await page.getByRole("button", { name: "Record licence" }).click();
  await expect(page.getByTestId("licence-status")).toContainText("GLA/RGL/042 awaits an operator's verification");

  // A listed price is chosen at once; the plan priced on request is only asked for.
  await goTo(page, "Plan");
  await page.getByRole("button", { name: "Choose Starter" }).click();
  await page
    .getByRole("dialog", { name: "Switch to Starter?" })
    .getByRole("button", { name: /^Choose Starter for / })
    .click();
  await expect(page.getByTestId("plan-starter")).toContainText("Your plan");
  await expect(page.getByRole("button", { name: "Choose Enterprise" })).toHaveCount(0);
  await page.getByRole("button", { name: "Request approval for Enterprise" }).click();
  await page
    .getByRole("dialog", { name: "Request Enterprise?" })
    .getByRole("button", { name: "Request Enterprise" })
    .click();
  await expect(page.getByTestId("plan-enterprise")).toContainText("Requested: awaiting approval");
  await expect(page.getByTestId("plan-request")).toContainText("You requested Enterprise");

  await goTo(page, "API keys");
  await expect(page.getByTestId("production-blockers")).toContainText("awaits an operator's verification");
  await expect(page.getByRole("button", { name: "Create production key" })).toHaveCount(0);

  // The operator checks the register, verifies the licence and approves the plan.
  const pending = await server().operator<{ reference: string }[]>(["licence", "list", "--status", "pending"]);
  expect(pending.map((l) => l.reference)).toContain("GLA/RGL/042");
  expect(await server().operator(["licence", "verify", "--org", slug, "--reference", "GLA/RGL/042"])).toMatchObject({
    verification: "verified",
  });

  await goTo(page, "Licence");
  await expect(page.getByTestId("licence-status")).toContainText("GLA/RGL/042 was verified on");

  await goTo(page, "API keys");
  await page.getByLabel("Name (optional)").fill("Odds feed");
  await page.getByRole("button", { name: "Create production key" }).click();
  await expect(page.getByTestId("show-once")).toBeVisible();
  const key = await page.getByTestId("shown-key").inputValue();
  expect(key).toMatch(/^svc_sk_[0-9A-Za-z]{32}$/);
  await page.getByRole("button", { name: "I have stored it" }).click();

  const served = await page.request.get(`${server().url}/api/v1/me`, { headers: { "x-api-key": key } });
  expect(served.status()).toBe(200);
  expect((await served.json()).data).toMatchObject({ environment: "production", plan: "starter" });

  // The operator revokes it: the key is refused, not counted, and the organisation is told why.
  await server().operator(["licence", "revoke", "--org", slug, "--reason", "Suspended by the authority"]);
  const refused = await page.request.get(`${server().url}/api/v1/me`, { headers: { "x-api-key": key } });
  expect(refused.status()).toBe(403);
  expect(await refused.json()).toMatchObject({
    code: "licence_inactive",
    detail: expect.stringContaining(`licence GLA/RGL/042 was revoked on ${utcDay(new Date())}`),
  });

  await goTo(page, "Licence");
  await expect(page.getByTestId("licence-status")).toContainText("GLA/RGL/042 was revoked on");
  await expect(page.getByTestId("licence-status")).toContainText("Suspended by the authority");
  await goTo(page, "API keys");
  await expect(page.getByTestId("production-blockers")).toContainText("was revoked on");
});
