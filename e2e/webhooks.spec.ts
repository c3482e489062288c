import { expect as baseExpect, test } from "@playwright/test";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import { OPERATOR } from "../lib/accounts/audit.ts";
import { signUp } from "../lib/console/members.ts";
import { organisations, plans, SPORTS } from "../lib/db/schema/index.ts";
import { createProductionKey } from "../lib/keys/index.ts";
import { reviewLicence, setLicence } from "../lib/accounts/licences.ts";
import { seed } from "../seeds/index.ts";
import { withDatabase } from "../testing/organisations.ts";
import { startLiveServer, type LiveServer } from "./support/live-server.ts";
import { expectFitsAndAccessible } from "./support/page-checks.ts";

// Usage alerts and webhooks in the console: real requests take a key past 80 % of its quota and
// the console shows the banner; the admin adds an endpoint (its secret shown once) and sends it a
// test message, which the delivery log shows delivered. Desktop and phone; axe clean.

const expect = baseExpect.configure({ timeout: 15_000 });
const PASSWORD = "correct horse battery staple";
const QUOTA = 10;

let server: LiveServer;
let receiver: Server;
let receiverUrl: string;
let received = 0;
let account: { email: string; password: string };
let apiKey: string;

test.beforeAll(async ({}, testInfo) => {
  test.setTimeout(180_000);
  receiver = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      received++;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  account = { email: `alerts-${testInfo.project.name}@webhooks.example`, password: PASSWORD };
  server = await startLiveServer(
    { WEBHOOKS_ALLOW_PRIVATE: "1" },
    {
      // An organisation on a plan of ten requests a month, with one production key.
      prepare: (env) =>
        withDatabase(env, async (db) => {
          const at = new Date();
          await seed(db, at);
          await db.insert(plans).values({
            code: "tiny",
            name: "Tiny",
            environment: "production",
            description: "Ten requests a month.",
            sports: [...SPORTS],
            monthlyQuota: QUOTA,
            requestsPerSecond: 10,
            concurrentStreams: 1,
            monthlyPriceCents: null,
            ordinal: 900,
          });
          const { organisation } = await signUp(db, {
            organisation: `Alerts ${testInfo.project.name}`,
            name: "Ada Admin",
            ...account,
          });
          const licence = {
            reference: "L-ALERTS",
            authority: "Test Authority",
            holder: "Alerts Ltd",
            validUntil: "2031-12-31",
          };
          await setLicence(db, organisation.id, licence, OPERATOR, at);
          await reviewLicence(db, organisation.id, "verify", { actor: OPERATOR, at });
          await db.update(organisations).set({ planCode: "tiny" }).where(eq(organisations.id, organisation.id));
          apiKey = (await createProductionKey(db, organisation.id, { name: "Board" }, { actor: OPERATOR, at })).key;
        }),
    },
  );
});

test.afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

test("usage past 80 % of the quota raises the banner; an endpoint is added, its secret shown once, and tested", async ({
  page,
}, testInfo) => {
  // Eight of ten requests: 80 %.
  for (let i = 0; i < 8; i++) {
    const answer = await fetch(`${server.url}/api/v1/me`, { headers: { "x-api-key": apiKey } });
    expect(answer.status).toBe(200);
  }
  await page.goto(`${server.url}/console/sign-in`);
  await page.getByLabel("E-mail").fill(account.email);
  await page.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  // Checking the password takes a while on a busy machine.
  await expect(page).toHaveURL(`${server.url}/console`, { timeout: 20_000 });
  await page.goto(`${server.url}/console/webhooks`);
  // Recorded off the request path, within the worker's next look.
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("usage-alert-banner")).toContainText("80 % of its quota reached", { timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
  await expect(page.getByTestId("usage-alert-banner")).toContainText("8 of 10 requests");
  await expect(page.getByRole("heading", { level: 1, name: "Webhooks" })).toBeVisible();
  await expectFitsAndAccessible(page, "the Webhooks page");

  await page.getByLabel("Endpoint URL").fill(receiverUrl);
  await page.getByRole("button", { name: "Add endpoint" }).click();
  const shown = page.getByTestId("secret-once");
  await expect(shown).toContainText("this is the only time it is shown");
  const secret = await page.getByTestId("shown-secret").inputValue();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  await expectFitsAndAccessible(page, "the Webhooks page");
  await page.getByRole("button", { name: "I have stored it" }).click();
  await expect(shown).toHaveCount(0);
  const endpoint = page.getByTestId("endpoint-item");
  await expect(endpoint).toContainText(receiverUrl);
  await expect(page.locator("body")).not.toContainText(secret);

  await endpoint.getByRole("button", { name: "Send test message" }).click();
  await expect(endpoint.getByRole("status")).toContainText("Test message queued");
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("delivery").first()).toHaveAttribute("data-state", "delivered", { timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
  await expect(page.getByTestId("delivery").first()).toContainText("webhook.test");
  await expect(page.getByTestId("delivery").first()).toContainText("204 in");
  expect(received).toBeGreaterThanOrEqual(1);
  await expectFitsAndAccessible(page, "the Webhooks page");
  await page.screenshot({ path: `e2e/screenshots/console-webhooks-${testInfo.project.name}.png`, fullPage: true });
  // Reloading shows the endpoint, never its secret again.
  await page.reload();
  await expect(page.locator("body")).not.toContainText(secret);
});
