// Mail (docs/mail.md): an outbox written in the transaction of what caused each message, sent over
// SMTP by a worker on every instance, once across them; kept and shown when no mail server is set.
import "#server-only";
import type { Config } from "../../config.ts";
import type { Database } from "../../db/index.ts";
import { smtpMailer, type Mailer } from "./mailer.ts";
import { MailWorker, type KeptMail } from "./worker.ts";

export { queueMail, listMail, resendMail, attemptsOf, type OutboxEntry } from "./outbox.ts";
export { smtpMailer, type Mailer, type OutgoingMail } from "./mailer.ts";
export { MailWorker, type KeptMail } from "./worker.ts";

/** An instance's mail: its worker, and whether messages reach a mail server. */
export type MailService = {
  worker: MailWorker;
  /** False: no MAIL_URL (or `none`): messages are kept in the outbox, on the desk's Mail page. */
  sending: boolean;
  stop(): Promise<void>;
};

/**
 * The mail of an instance. `mailer` replaces the one MAIL_URL names (a test's own); `show` gets each
 * message kept for want of a mail server when MAIL_URL is unset (the embedded default's terminal).
 */
export function startMail(
  db: Database,
  config: Pick<Config, "MAIL_URL" | "MAIL_FROM" | "MAIL_RETRY_BASE_MS" | "NEXTAUTH_URL" | "PORT">,
  options: { now: () => Date; show(message: KeptMail): void; mailer?: Mailer },
): MailService {
  const url = config.MAIL_URL;
  const mailer = options.mailer ?? (url && url !== "none" ? smtpMailer(url, config.MAIL_FROM) : null);
  const worker = new MailWorker(
    db,
    {
      mailer,
      retryBaseMs: config.MAIL_RETRY_BASE_MS,
      origin: config.NEXTAUTH_URL?.replace(/\/+$/, "") ?? `http://localhost:${config.PORT}`,
      // MAIL_URL=none keeps messages on purpose: for the desk alone, not the terminal.
      keep: url === "none" ? () => {} : options.show,
    },
    options.now,
  );
  worker.start();
  return { worker, sending: mailer !== null, stop: () => worker.stop() };
}

/**
 * The lines the terminal shows for a kept message: who it is for, what it is, the link. Never a log
 * record: the link signs someone in.
 */
export function keptMailLines(message: KeptMail): string[] {
  return [
    `Mail (no MAIL_URL, kept in the outbox) to ${message.to}: ${message.subject}`,
    ...(message.link ? [`  ${message.link}`] : []),
  ];
}
