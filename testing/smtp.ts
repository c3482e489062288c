import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";
import { freePort } from "./ports.ts";

/** A message as a mail client reads it, with the links of its text. */
export type ReceivedMail = {
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  headers: ParsedMail["headers"];
  /** The header lines as sent, for headers mailparser reads into its own shapes (List-*). */
  headerLines: string[];
  links: string[];
};

/**
 * A real SMTP server of the test's own (the `smtp-server` package) on 127.0.0.1, every message it
 * accepts read with `mailparser`. It can be stopped and started again on the same port: a mail
 * server that was down.
 */
export type TestMailServer = {
  port: number;
  url: string;
  received: ReceivedMail[];
  /** Resolves with the first message (received so far or later) that `match` accepts. */
  next(match: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  stop(): Promise<void>;
  start(): Promise<void>;
};

export async function startMailServer(
  options: { port?: number; onMail?: (mail: ReceivedMail, raw: Buffer) => void } = {},
): Promise<TestMailServer> {
  const port = options.port ?? (await freePort());
  const received: ReceivedMail[] = [];
  const waiting = new Set<() => void>();
  let server: SMTPServer | undefined;

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const smtp = new SMTPServer({
        authOptional: true,
        disabledCommands: ["STARTTLS"],
        logger: false,
        onData(stream, _session, callback) {
          const chunks: Buffer[] = [];
          stream.on("data", (chunk: Buffer) => chunks.push(chunk));
          stream.on("end", () => {
            const raw = Buffer.concat(chunks);
            simpleParser(raw)
              .then((parsed) => {
                const mail = readMail(parsed);
                received.push(mail);
                options.onMail?.(mail, raw);
                for (const wake of waiting) wake();
                callback();
              })
              .catch((error: Error) => callback(error));
          });
        },
      });
      smtp.on("error", () => {});
      smtp.server.once("error", reject);
      smtp.listen(port, "127.0.0.1", () => {
        server = smtp;
        resolve();
      });
    });

  await listen();
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    next(match, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const look = () => {
          const found = received.find(match);
          if (!found) return false;
          waiting.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const check = () => void look();
        const timer = setTimeout(() => {
          waiting.delete(check);
          const seen = received.map((mail) => `${mail.to}: ${mail.subject}`).join("; ");
          reject(new Error(`no matching mail within ${timeoutMs} ms (${received.length} received: ${seen})`));
        }, timeoutMs);
        if (!look()) waiting.add(check);
      });
    },
    stop: () =>
      new Promise<void>((resolve) => {
        const running = server;
        server = undefined;
        if (!running) return resolve();
        running.close(() => resolve());
      }),
    start: listen,
  };
}

function readMail(parsed: ParsedMail): ReceivedMail {
  const to = Array.isArray(parsed.to) ? parsed.to[0] : parsed.to;
  const text = parsed.text ?? "";
  return {
    to: to?.value[0]?.address ?? "",
    subject: parsed.subject ?? "",
    text,
    html: typeof parsed.html === "string" ? parsed.html : "",
    messageId: parsed.messageId ?? "",
    headers: parsed.headers,
    headerLines: parsed.headerLines.map((header) => header.line),
    links: [...text.matchAll(/https?:\/\/\S+/g)].map((match) => match[0]),
  };
}
