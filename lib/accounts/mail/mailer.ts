import "#server-only";
import nodemailer from "nodemailer";

/** A message as handed to the mail server. */
export type OutgoingMail = {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
};

/** What sends mail: SMTP in service, the same against a test's own server. Resolves with the server's answer. */
export interface Mailer {
  send(message: OutgoingMail): Promise<string>;
  close(): void;
}

const TIMEOUT_MS = 15_000;

/** A mailer for `smtp://` or `smtps://` (credentials in the URL), sending as `from`. */
export function smtpMailer(url: string, from: string): Mailer {
  const transport = nodemailer.createTransport({
    url,
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
  });
  const domain = /@([^>\s]+)>?$/.exec(from)?.[1] ?? "localhost";
  return {
    async send(message) {
      const info = await transport.sendMail({
        from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
        headers: message.headers,
        // The outbox's id, so that a message sent twice (an instance lost after the server accepted
        // it) is one message to mail clients.
        messageId: `<${message.id}@${domain}>`,
      });
      return info.response;
    },
    close: () => transport.close(),
  };
}
