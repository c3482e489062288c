import "#server-only";
import { and, desc, eq, inArray, lt, ne, sql } from "drizzle-orm";
import { outboxQueued, publish } from "../../bus/index.ts";
import type { Database } from "../../db/index.ts";
import { mailAttempts, mailMessages, type MailState } from "../../db/schema/index.ts";
import { DomainError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import type { MailContent } from "./messages.ts";

/** How long the outbox keeps a message no longer tried, with its attempts. */
export const MAIL_RETENTION_MS = 30 * 86_400_000;

/**
 * Queues a message in the caller's transaction: it is sent if, and only if, what caused it is
 * committed, and the workers hear of it when it is (the bus's `outbox_queued`).
 */
export async function queueMail(tx: Database, content: MailContent, at: Date): Promise<string> {
  const id = newId("mail");
  await tx.insert(mailMessages).values({
    id,
    kind: content.kind,
    recipient: content.to,
    subject: content.subject,
    text: content.text,
    html: content.html,
    link: content.link,
    headers: content.headers,
    createdAt: at,
    nextAttemptAt: at,
  });
  await publish(tx, outboxQueued, "mail");
  return id;
}

export type OutboxEntry = {
  id: string;
  kind: string;
  recipient: string;
  subject: string;
  link: string | null;
  state: MailState;
  attempts: number;
  createdAt: Date;
  sentAt: Date | null;
  nextAttemptAt: Date | null;
  lastResult: string | null;
};

/** The outbox, newest first, with each message's last attempt's result. */
export async function listMail(
  db: Database,
  options: { state?: MailState; recipient?: string; limit?: number } = {},
): Promise<OutboxEntry[]> {
  const last = sql<
    string | null
  >`(select a.result from mail_attempts a where a.message_id = mail_messages.id order by a.at desc, a.id desc limit 1)`;
  return db
    .select({
      id: mailMessages.id,
      kind: mailMessages.kind,
      recipient: mailMessages.recipient,
      subject: mailMessages.subject,
      link: mailMessages.link,
      state: mailMessages.state,
      attempts: mailMessages.attempts,
      createdAt: mailMessages.createdAt,
      sentAt: mailMessages.sentAt,
      nextAttemptAt: mailMessages.nextAttemptAt,
      lastResult: last,
    })
    .from(mailMessages)
    .where(
      and(
        options.state ? eq(mailMessages.state, options.state) : undefined,
        options.recipient ? eq(mailMessages.recipient, options.recipient.trim().toLowerCase()) : undefined,
      ),
    )
    .orderBy(desc(mailMessages.createdAt), desc(mailMessages.id))
    .limit(options.limit ?? 100);
}

/** Every attempt of one message, oldest first. */
export function attemptsOf(db: Database, messageId: string) {
  return db
    .select({ at: mailAttempts.at, ok: mailAttempts.ok, result: mailAttempts.result })
    .from(mailAttempts)
    .where(eq(mailAttempts.messageId, messageId))
    .orderBy(mailAttempts.at, mailAttempts.id);
}

/** Sends a failed (or kept) message again: it is queued now, with its attempts so far kept. */
export async function resendMail(db: Database, id: string, at: Date): Promise<void> {
  const updated = await db
    .update(mailMessages)
    .set({ state: "pending", nextAttemptAt: at })
    .where(and(eq(mailMessages.id, id), inArray(mailMessages.state, ["failed", "kept"])))
    .returning({ id: mailMessages.id });
  if (updated.length === 0) {
    const [row] = await db.select({ state: mailMessages.state }).from(mailMessages).where(eq(mailMessages.id, id));
    if (!row) throw new DomainError("not_found", `No message with id ${id} in the outbox.`);
    throw new DomainError("conflict", `Message ${id} is ${row.state}: only a failed or kept message is sent again.`);
  }
  await publish(db, outboxQueued, "mail");
}

/** Forgets messages no longer tried that are older than the outbox keeps. */
export async function pruneMail(db: Database, at: Date): Promise<void> {
  await db
    .delete(mailMessages)
    .where(
      and(ne(mailMessages.state, "pending"), lt(mailMessages.createdAt, new Date(at.getTime() - MAIL_RETENTION_MS))),
    );
}
