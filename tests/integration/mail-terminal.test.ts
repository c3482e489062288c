import { describe, expect, it } from "vitest";
import { SIGN_UP_ANSWER } from "../../lib/accounts/mail/sign-up.ts";
import { postAction, serverActionId } from "../../testing/console.ts";
import { migratedDataDir } from "../../testing/data-dirs.ts";
import { send } from "../../testing/http.ts";
import { startOnTerminal, startServer } from "../../testing/processes.ts";

// The embedded default with no MAIL_URL sends nothing: a message is kept in the outbox and shown
// to whoever runs the service, on its terminal (recipient, subject, link), never in the JSON log,
// whose records go to the same standard output. When standard output is not a terminal it is a
// log, so only a record saying a message was kept is written there, without the link.

const TIMEOUT = 240_000;
const CONFIRM_LINK = /http:\/\/\S+\/console\/sign-up\/confirm\?token=[0-9A-Za-z]+/;
const SUBJECT = "Confirm your sign-up";

const signUpForm = (email: string) => ({
  organisation: `Kept ${email.split("@")[0]}`,
  name: "Kim",
  email,
  password: "correct horse battery staple",
});

/** The output's lines, without the terminal's carriage returns. */
const linesOf = (output: string) =>
  output
    .replaceAll("\r", "")
    .split("\n")
    .filter((line) => line.trim() !== "");

/** The JSON log's records among the lines (everything else is for the terminal only). */
const recordsOf = (lines: string[]) => lines.filter((line) => line.startsWith("{"));

/** Signs up `email` through the server's sign-up action, as the form does: the mail is then queued. */
async function signUpOn(url: string, email: string): Promise<void> {
  const answer = await postAction(url, "/console/sign-up", serverActionId("signUpAction"), signUpForm(email));
  expect(answer.body).toContain(SIGN_UP_ANSWER.slice(0, 40));
}

describe("kept mail with no MAIL_URL on the embedded database", () => {
  it(
    "on a terminal: the recipient, the subject and the link are printed there, and no JSON record holds them",
    async () => {
      // MAIL_URL empty is unset: the mail is kept.
      const server = await startOnTerminal({ DATA_DIR: migratedDataDir(), MAIL_URL: "", SEED_DEMO: "0" }, TIMEOUT);
      const email = "kept-on-terminal@terminal.test";
      try {
        await signUpOn(server.url, email);
        const shown = `Mail (no MAIL_URL, kept in the outbox) to ${email}: ${SUBJECT}`;
        const shownLine = () => linesOf(server.output()).find((line) => line.startsWith(shown));
        await expect.poll(shownLine, { timeout: 60_000 }).toBeDefined();

        const lines = linesOf(server.output());
        // The link on the line after, indented: the one the message holds, which opens the confirmation.
        const linkLine = lines[lines.indexOf(shownLine()!) + 1] ?? "";
        expect(linkLine).toMatch(new RegExp(`^  ${CONFIRM_LINK.source}$`));
        const link = linkLine.trim();
        const page = await send(link.replace("localhost", "127.0.0.1"));
        expect(page.status).toBe(200);
        expect(page.body).toContain("Create the organisation");

        const token = new URL(link).searchParams.get("token")!;
        const records = recordsOf(lines);
        expect(records.length).toBeGreaterThan(0);
        for (const record of records) {
          JSON.parse(record);
          expect(record).not.toContain(token);
          expect(record).not.toContain(email);
          expect(record).not.toContain(SUBJECT);
        }
        // Only the two lines for the person at the terminal are not log records.
        expect(lines.filter((line) => line.includes(token))).toEqual([linkLine]);
        expect(lines.filter((line) => line.includes(email))).toEqual([shownLine()]);
      } finally {
        await server.stop();
      }
    },
    TIMEOUT,
  );

  it(
    "not on a terminal: one record says a message was kept, without its recipient, subject or link",
    async () => {
      // MAIL_URL empty is unset (the harness's default is `none`, which keeps mail for the desk alone).
      const server = await startServer({ DATA_DIR: migratedDataDir(), MAIL_URL: "", SEED_DEMO: "0" });
      const email = "kept-in-a-pipe@terminal.test";
      try {
        await signUpOn(server.url, email);
        await expect
          .poll(() => server.output(), { timeout: 60_000 })
          .toContain("A message was kept in the outbox (no MAIL_URL)");
      } finally {
        await server.stop();
      }
      const lines = linesOf(server.output());
      for (const line of lines) JSON.parse(line);
      expect(server.output()).not.toContain(email);
      expect(server.output()).not.toContain(SUBJECT);
      expect(server.output()).not.toMatch(CONFIRM_LINK);
    },
    TIMEOUT,
  );
});
