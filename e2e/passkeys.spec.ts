import { expect as baseExpect, test, type Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { liveServerForFile, signUpOrganisation } from "./support/live-server.ts";
import { checkConsolePage } from "./support/page-checks.ts";

// Passkeys in the browser, with Chromium's virtual authenticator (the DevTools protocol's WebAuthn
// domain) standing in for a phone or laptop: one added on the Security page, then signing in with
// it alone, as the second step after the password, and as a step-up before removing it. The server is reached as `localhost`: a
// relying party is a host name, never an IP address.

const PASSWORD = "correct horse battery staple";
const expect = baseExpect.configure({ timeout: 15_000 });
test.describe.configure({ timeout: 240_000 });

const server = liveServerForFile({ hostName: "localhost" });

const unique = () => randomBytes(4).toString("hex");

/** A platform authenticator that verifies its user (as a fingerprint would) and keeps discoverable passkeys. */
async function virtualAuthenticator(page: Page): Promise<() => Promise<{ signCount: number }[]>> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return async () => (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials;
}

async function signOut(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/console\/sign-in/);
}

const consoleHeading = (page: Page) => page.getByRole("heading", { level: 1, name: "Console", exact: true });

test("a passkey: added on the Security page, then signing in alone, as the second step and as a step-up", async ({
  page,
}, testInfo) => {
  const credentials = await virtualAuthenticator(page);
  const email = `passkey-${unique()}@example.com`;
  await signUpOrganisation(page, server().url, { organisation: `Passkeys ${unique()}`, email });
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Security" }).click();
  await expect(page.getByTestId("no-factors")).toBeVisible();

  // Added with a name; as the member's first factor, it comes with recovery codes.
  await page.getByLabel("Passkey name (to tell your devices apart)").fill("Work laptop");
  await page.getByRole("button", { name: "Add a passkey" }).click();
  await expect(page.getByTestId("recovery-codes").getByRole("listitem")).toHaveCount(10);
  await page.getByRole("button", { name: "I have stored them" }).click();
  await expect(page.getByTestId("factor-list")).toContainText("Work laptop (passkey)");
  await expect(page.getByTestId("factor-list")).not.toContainText("last used");
  expect(await credentials()).toHaveLength(1);
  await checkConsolePage(page, "security-passkey", testInfo.project.name);

  // Alone: no e-mail, no password; the browser offers the passkey it holds for this site.
  await signOut(page);
  await page.getByRole("button", { name: "Use a passkey" }).click();
  await expect(consoleHeading(page)).toBeVisible();
  await page.goto(`${server().url}/console/security`);
  await expect(page.getByTestId("factor-list")).toContainText("last used");
  const [afterSignIn] = await credentials();
  expect(afterSignIn!.signCount).toBeGreaterThan(0);

  // After the password, the second step takes the passkey beside the code.
  await signOut(page);
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Second step" })).toBeVisible();
  await page.getByRole("button", { name: "Use a passkey" }).click();
  await expect(consoleHeading(page)).toBeVisible();
  const [afterSecondStep] = await credentials();
  expect(afterSecondStep!.signCount).toBeGreaterThan(afterSignIn!.signCount);

  // Eleven minutes on (the server's clock moved), removing it asks for a touch first: a step-up.
  try {
    await server().restart({ TEST_CLOCK_OFFSET_SECONDS: String(11 * 60) });
    await page.goto(`${server().url}/console/security`);
    await page.getByRole("button", { name: "Remove Work laptop" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Confirm it is you" })).toBeVisible();
    await page.getByTestId("step-up").getByRole("button", { name: "Use a passkey" }).click();
    await expect(page.getByTestId("step-up-done")).toContainText("Confirmed");
    await page.getByRole("button", { name: "Remove Work laptop" }).click();
    await expect(page.getByTestId("no-factors")).toBeVisible();

    await page.goto(`${server().url}/console/audit`);
    await expect(page.getByText("added the passkey “Work laptop” as a second factor")).toBeVisible();
    await expect(page.getByText("signed in with the passkey “Work laptop”")).toBeVisible();
    await expect(page.getByText("confirmed it was them with a passkey before a key or member change")).toBeVisible();
    await expect(page.getByText("removed the passkey “Work laptop” from their second factors")).toBeVisible();
  } finally {
    await server().restart();
  }

  // Removed, it signs no one in any more.
  await page.goto(`${server().url}/console/security`);
  await signOut(page);
  await page.getByRole("button", { name: "Use a passkey" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "That passkey was not accepted" })).toBeVisible();
  await expect(page).toHaveURL(/\/console\/sign-in/);
});
