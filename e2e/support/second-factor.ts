import { expect, type Page } from "@playwright/test";
import { generate } from "otplib";

const PERIOD_MS = 30_000;

/**
 * An authenticator app in a test: the secret read off the enrolment page, and codes computed from
 * it. The server accepts each code once and the next period's code too, so each code is of a
 * period after the last one given (waiting for the clock only if two are asked for within one).
 */
export class TestAuthenticator {
  private lastStep = -1;
  readonly secret: string;
  /** How far ahead the server's clock runs (TEST_CLOCK_OFFSET_SECONDS), in milliseconds. */
  offsetMs = 0;
  constructor(secret: string) {
    this.secret = secret;
  }

  async code(): Promise<string> {
    const stepNow = () => Math.floor((Date.now() + this.offsetMs) / PERIOD_MS);
    const step = Math.max(this.lastStep + 1, stepNow());
    while (step > stepNow() + 1) await new Promise((resolve) => setTimeout(resolve, 1000));
    this.lastStep = step;
    return generate({ secret: this.secret, epoch: step * 30 });
  }
}

/** Adds an authenticator app where the page offers it; returns the app and the recovery codes shown. */
export async function enrolAuthenticator(page: Page): Promise<{ app: TestAuthenticator; recoveryCodes: string[] }> {
  await page.getByRole("button", { name: "Set up an authenticator app" }).click();
  const secret = (await page.getByTestId("totp-secret").textContent())!.trim();
  const app = new TestAuthenticator(secret);
  await expect(page.getByRole("img", { name: "QR code to scan with your authenticator app" })).toBeVisible();
  await page.getByLabel("Code from the app").fill(await app.code());
  await page.getByRole("button", { name: "Confirm", exact: true }).click();
  const shown = page.getByTestId("recovery-codes");
  await expect(shown.getByRole("listitem")).toHaveCount(10);
  const recoveryCodes = (await shown.getByRole("listitem").allTextContents()).map((code) => code.trim());
  await page.getByRole("button", { name: "I have stored them" }).click();
  return { app, recoveryCodes };
}

/** The second step of signing in, with a code. */
export async function enterSecondStep(page: Page, code: string): Promise<void> {
  await expect(page.getByRole("heading", { level: 1, name: "Second step" })).toBeVisible();
  await page.getByLabel("Code", { exact: true }).fill(code);
  await page.getByRole("button", { name: "Continue" }).click();
}
