import { expect as baseExpect, test } from "@playwright/test";
import { OPERATOR } from "../lib/accounts/audit.ts";
import { sealingKey } from "../lib/accounts/factors/sealing.ts";
import { setPlan } from "../lib/accounts/plans.ts";
import { addDomain, saveConnection, verifyDomain } from "../lib/accounts/sso/connections.ts";
import { signUp } from "../lib/console/members.ts";
import { seed } from "../seeds/index.ts";
import { startProvider, type TestProvider } from "../testing/oidc.ts";
import { withDatabase } from "../testing/organisations.ts";
import { freePort } from "../testing/ports.ts";
import { startLiveServer, type LiveServer } from "./support/live-server.ts";
import { expectFitsAndAccessible } from "./support/page-checks.ts";

// Single sign-on in the browser: a member opens "Single sign-on (SSO)" on the sign-in page, logs in
// at the organisation's own provider (a real oidc-provider, its development log-in pages) and lands
// in the console as a new viewer; the admin sees the provider and the verified domain on the
// single sign-on page. Desktop and phone; axe clean.

const expect = baseExpect.configure({ timeout: 15_000 });
const PASSWORD = "correct horse battery staple";
const AUTH_SECRET = "the single sign-on spec's secret, long enough";

let server: LiveServer;
let provider: TestProvider;
let admin: { email: string; password: string };

test.beforeAll(async ({}, testInfo) => {
  test.setTimeout(180_000);
  const port = await freePort();
  provider = await startProvider(`http://127.0.0.1:${port}/api/sso/callback`);
  admin = { email: `admin-${testInfo.project.name}@corp.example`, password: PASSWORD };
  server = await startLiveServer(
    { AUTH_SECRET, SSO_ALLOW_PRIVATE: "1" },
    {
      port,
      prepare: (env) =>
        withDatabase(env, async (db) => {
          const at = new Date();
          await seed(db, at);
          const { organisation, user } = await signUp(db, { organisation: "Corp", name: "Ada Admin", ...admin });
          const actor = { userId: user.id, label: user.email };
          await setPlan(db, organisation.id, "enterprise", OPERATOR);
          await saveConnection(
            db,
            organisation.id,
            { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret },
            { actor, key: sealingKey(AUTH_SECRET), access: { allowPrivate: true }, at },
          );
          await addDomain(db, organisation.id, { domain: "corp.example" }, actor);
          await verifyDomain(db, organisation.id, "corp.example", { actor: OPERATOR, at, by: "operator" });
        }),
    },
  );
});

test.afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

test("a member signs in through the organisation's provider and joins as a viewer; the admin sees the settings", async ({
  page,
}, testInfo) => {
  const member = `bea-${testInfo.project.name}@corp.example`;
  await page.goto(`${server.url}/console/sign-in`);
  await page.getByText("Single sign-on (SSO)").click();
  await page.getByLabel("Work address or domain").fill(member);
  await expectFitsAndAccessible(page, "the sign-in page with single sign-on open");
  await page.getByRole("button", { name: "Continue with SSO" }).click();

  // The provider's own pages: its log-in (the address given as the hint), then its consent.
  await expect(page).toHaveURL(new RegExp(`^${provider.issuer}/interaction/`));
  await expect(page.locator('input[name="login"]')).toHaveValue(member);
  await page.locator('input[name="password"]').fill("anything");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();

  await expect(page).toHaveURL(`${server.url}/console`, { timeout: 20_000 });
  await expect(page.getByTestId("organisation-name")).toHaveText("Corp");
  await expect(page.getByTestId("role")).toHaveText("viewer");
  await page.goto(`${server.url}/console/members/sso`);
  await expect(page.getByTestId("viewer-notice")).toBeVisible();
  await expectFitsAndAccessible(page, "the single sign-on page, as a viewer");

  // The admin, on the password (passwords are not required off here), sees the provider and the domain.
  await page.context().clearCookies();
  await page.goto(`${server.url}/console/sign-in`);
  await page.getByLabel("E-mail").fill(admin.email);
  await page.getByLabel("Password").fill(admin.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(`${server.url}/console`, { timeout: 20_000 });
  await page.goto(`${server.url}/console/members/sso`);
  await expect(page.getByLabel("Issuer URL")).toHaveValue(provider.issuer);
  await expect(page.getByTestId("sso-redirect-uri")).toHaveText(`${server.url}/api/sso/callback`);
  await expect(page.getByTestId("sso-domains")).toContainText("corp.example verified by an operator");
  await expectFitsAndAccessible(page, "the single sign-on page");
});
