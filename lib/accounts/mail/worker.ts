import { Poller } from "../../poller.ts";
import "#server-only";
import { sql } from "drizzle-orm";
import { rowsOf, type Database } from "../../db/index.ts";
import { mailAttempts } from "../../db/schema/index.ts";
import { logger } from "../../log/index.ts";
import { MAIL_ORIGIN } from "./links.ts";
import type { Mailer } from "./mailer.ts";
import { noticeLapsingLicences } from "./lapse.ts";
import { pruneMail } from "./outbox.ts";
import { nextMailAttemptAt } from "./schedule.ts";

const BATCH = 20;
// A queued message wakes every worker (the bus's `outbox_queued`) and a retry is looked for when it
// falls due; the idle look finds the rest, such as a lease a lost instance left.
const IDLE_MS = 10_000;
// The outbox's pruning and the licences' lapse notices: hourly.
const PRUNE_MS = 60 * 60_000;
// Longer than the mail server's three timeouts together, so that a lease outlives an attempt.
const LEASE_MS = 60_000;

type Due = {
  id: string;
  recipient: string;
  subject: string;
  text: string;
  html: string;
  link: string | null;
  headers: Record<string, string>;
  attempts: number;
  created_at: string | Date;
};

/** A message kept for want of a mail server, for the person running the service. */
export type KeptMail = { to: string; subject: string; link: string | null };

export type MailWorkerSettings = {
  /** null: no mail server; messages are kept in the outbox and handed to `keep`. */
  mailer: Mailer | null;
  retryBaseMs: number;
  /** The service's public address, put in place of MAIL_ORIGIN in messages queued off a request. */
  origin: string;
  keep(message: KeptMail): void;
};

/**
 * Sends the outbox's due messages. Any number of instances run one each: a message is claimed with
 * `for update skip locked` and a lease (its next attempt moved past the attempt's timeouts), so one
 * instance sends it; a failed attempt is tried again with backoff for a day.
 */
export class MailWorker {
  private readonly db: Database;
  private readonly settings: MailWorkerSettings;
  private readonly now: () => Date;
  private readonly poller = new Poller(
    () => this.tick(),
    () => IDLE_MS,
  );
  private lastPrune = 0;

  constructor(db: Database, settings: MailWorkerSettings, now: () => Date) {
    this.db = db;
    this.settings = settings;
    this.now = now;
  }

  start(): void {
    this.wake();
  }

  /** Looks at the outbox now (something was queued). */
  wake(): void {
    this.poller.wake();
  }

  /** Resolves once every message due now has been tried (tests and the CLI). */
  async drain(): Promise<void> {
    await this.poller.settled();
    await this.tick();
  }

  async stop(): Promise<void> {
    await this.poller.stop();
    this.settings.mailer?.close();
  }

  private async tick(): Promise<void> {
    try {
      const wall = Date.now();
      if (wall - this.lastPrune >= PRUNE_MS) {
        this.lastPrune = wall;
        await pruneMail(this.db, this.now());
        await noticeLapsingLicences(this.db, this.now());
      }
      let due: Due[];
      do {
        due = await this.claim();
        await Promise.all(due.map((message) => this.attempt(message)));
      } while (due.length === BATCH && !this.poller.stopped);
    } catch (error) {
      if (!this.poller.stopped) logger().error({ err: error }, "Sending mail failed");
    }
  }

  private async claim(): Promise<Due[]> {
    const at = this.now();
    return rowsOf<Due>(
      await this.db.execute(sql`
        update mail_messages set next_attempt_at = ${time(new Date(at.getTime() + LEASE_MS))}
        where id in (
          select id from mail_messages
          where state = 'pending' and next_attempt_at <= ${time(at)}
          order by next_attempt_at
          limit ${BATCH}
          for update skip locked)
        returning id, recipient, subject, text, html, link, headers, attempts, created_at`),
    );
  }

  private async attempt(due: Due): Promise<void> {
    const message = withOrigin(due, this.settings.origin);
    const started = this.now();
    const { mailer } = this.settings;
    if (!mailer) {
      await this.record(message, started, { state: "kept", ok: true, result: "Kept in the outbox: no MAIL_URL" });
      this.settings.keep({ to: message.recipient, subject: message.subject, link: message.link });
      return;
    }
    let result: string;
    let ok = false;
    try {
      result = await mailer.send({
        id: message.id,
        to: message.recipient,
        subject: message.subject,
        text: message.text,
        html: message.html,
        headers: message.headers,
      });
      ok = true;
    } catch (failure) {
      // Stopping: the lease runs out, and another instance (or this one, started again) sends it.
      if (this.poller.stopped) return;
      result = failure instanceof Error ? reasonOf(failure) : String(failure);
    }
    const attempts = message.attempts + 1;
    const next = ok
      ? null
      : nextMailAttemptAt(
          attempts,
          new Date(message.created_at).getTime(),
          this.now().getTime(),
          this.settings.retryBaseMs,
        );
    const state = ok ? "sent" : next === null ? "failed" : "pending";
    await this.record(message, started, { state, ok, result, next });
    if (next !== null) this.poller.lookIn(next - this.now().getTime());
  }

  private async record(
    message: Due,
    at: Date,
    outcome: { state: string; ok: boolean; result: string; next?: number | null },
  ): Promise<void> {
    const next = outcome.next ?? null;
    await this.db.transaction(async (tx) => {
      await tx
        .insert(mailAttempts)
        .values({ messageId: message.id, at, ok: outcome.ok, result: outcome.result.slice(0, 500) });
      await tx.execute(sql`
        update mail_messages set state = ${outcome.state}, attempts = ${message.attempts + 1},
          next_attempt_at = ${next === null ? null : time(new Date(next))},
          sent_at = ${outcome.state === "sent" ? time(at) : null}
        where id = ${message.id}`);
    });
  }
}

/** The message with MAIL_ORIGIN replaced by the service's address. */
function withOrigin(message: Due, origin: string): Due {
  const fill = (value: string) => value.replaceAll(MAIL_ORIGIN, origin);
  return {
    ...message,
    text: fill(message.text),
    html: fill(message.html),
    link: message.link === null ? null : fill(message.link),
    headers: Object.fromEntries(Object.entries(message.headers).map(([name, value]) => [name, fill(value)])),
  };
}

const time = (at: Date) => sql`${at.toISOString()}::timestamptz`;

/** Why an attempt failed, in a word where there is one (ECONNREFUSED, a 5xx answer). */
function reasonOf(error: Error): string {
  const { code, response } = error as Error & { code?: string; response?: string };
  return response ?? (code ? `${code}: ${error.message}` : error.message);
}
