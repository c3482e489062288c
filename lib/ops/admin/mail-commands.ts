// The operator CLI's mail commands: the desk's Mail page (the outbox and what became of each message).
import { recordAudit, OPERATOR } from "../../accounts/audit.ts";
import { attemptsOf, listMail, resendMail } from "../../accounts/mail/outbox.ts";
import type { Database } from "../../db/index.ts";
import { MAIL_STATES, type MailState } from "../../db/schema/index.ts";
import { UsageError } from "./arguments.ts";

export const MAIL_USAGE = `  mail list [--state pending|sent|failed|kept] [--email EMAIL]
  mail resend --id MESSAGE_ID`;

type Options = Record<string, string | boolean | undefined>;
type Output = { json: unknown; text: string };

const time = (date: Date | null) => (date ? date.toISOString() : "-");

/** The output of a mail command, or null when `command` is not one. */
export async function runMailCommand(
  db: Database,
  command: string,
  options: Options,
  at: Date,
  required: (options: Options, name: string) => string,
): Promise<Output | null> {
  switch (command) {
    case "mail list": {
      const state = typeof options.state === "string" ? options.state : undefined;
      if (state !== undefined && !MAIL_STATES.includes(state as MailState))
        throw new UsageError(`--state must be one of ${MAIL_STATES.join(", ")}`);
      const recipient = typeof options.email === "string" ? options.email : undefined;
      const messages = await listMail(db, { state: state as MailState | undefined, recipient, limit: 200 });
      const lines = messages.map(
        (m) =>
          `${m.id}  ${m.state}  ${time(m.createdAt)}  to=${m.recipient}  attempts=${m.attempts}  "${m.subject}"` +
          (m.lastResult ? `\n    last: ${m.lastResult}` : "") +
          (m.state === "kept" && m.link ? `\n    ${m.link}` : ""),
      );
      return { json: messages, text: lines.length ? lines.join("\n") : "No mail in the outbox." };
    }
    case "mail resend": {
      const id = required(options, "id");
      await resendMail(db, id, at);
      await recordAudit(db, { orgId: null, actor: OPERATOR, action: "mail.resent", target: id });
      const attempts = await attemptsOf(db, id);
      return {
        json: { id, state: "pending", attempts },
        text: `Message ${id} queued again (${attempts.length} earlier attempt${attempts.length === 1 ? "" : "s"}): a running server sends it within seconds.`,
      };
    }
    default:
      return null;
  }
}
