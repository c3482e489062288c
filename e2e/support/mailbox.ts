import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, type Page } from "@playwright/test";
import { simpleParser } from "mailparser";
import { startMailServer, type TestMailServer } from "../../testing/smtp.ts";

// Every server of the e2e run (Playwright's and each spec's own) sends its mail over SMTP to one
// real mail server that global setup starts; it keeps each message as a file, which the specs read
// with mailparser, as a mail client would.

const e2ePort = Number(process.env.E2E_PORT ?? 3100);
/** The run's mail server: beside the e2e port, so that runs on other ports do not meet. */
export const MAIL_PORT = e2ePort + 2000;
const MAIL_DIR = path.join(tmpdir(), `svc-e2e-mail-${MAIL_PORT}`);

/** What a server of the run is given to send its mail to the run's mail server. */
export function mailEnv(baseUrl: string): Record<string, string> {
  return { MAIL_URL: `smtp://127.0.0.1:${MAIL_PORT}`, NEXTAUTH_URL: baseUrl, MAIL_RETRY_BASE_MS: "500" };
}

/** Global setup's part: the mail server, each message kept as a file. */
export async function startRunMailServer(): Promise<TestMailServer> {
  rmSync(MAIL_DIR, { recursive: true, force: true });
  mkdirSync(MAIL_DIR, { recursive: true });
  let n = 0;
  return startMailServer({
    port: MAIL_PORT,
    onMail: (_mail, raw) => writeFileSync(path.join(MAIL_DIR, `${Date.now()}-${process.pid}-${++n}.eml`), raw),
  });
}

/** The newest link of the newest message to `to` whose subject matches, waiting for it to arrive. */
export async function mailedLink(to: string, subject: RegExp, linkPath: string): Promise<string> {
  let found: string | undefined;
  await expect
    .poll(
      async () => {
        for (const file of readdirSync(MAIL_DIR).sort().reverse()) {
          const mail = await simpleParser(readFileSync(path.join(MAIL_DIR, file)));
          const address = Array.isArray(mail.to) ? mail.to[0]?.value[0]?.address : mail.to?.value[0]?.address;
          if (address !== to.toLowerCase() || !subject.test(mail.subject ?? "")) continue;
          found = [...(mail.text ?? "").matchAll(/https?:\/\/\S+/g)]
            .map((m) => m[0])
            .find((url) => new URL(url).pathname.startsWith(linkPath));
          if (found) return true;
        }
        return false;
      },
      { message: `a mail to ${to} (${subject}) with a ${linkPath} link`, timeout: 30_000 },
    )
    .toBe(true);
  return found!;
}

/**
 * After the sign-up form was sent: its answer, then the mailed link, opened and confirmed, which
 * creates the organisation and opens the console.
 */
export async function followSignUpMail(page: Page, email: string): Promise<void> {
  await expect(page.getByRole("heading", { name: "Check your inbox" })).toBeVisible({ timeout: 30_000 });
  const link = await mailedLink(email, /Confirm your sign-up/, "/console/sign-up/confirm");
  await page.goto(link);
  await page.getByRole("button", { name: "Create organisation" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Console" })).toBeVisible({ timeout: 30_000 });
}
