import { sql } from "drizzle-orm";
import { bigint, boolean, check, date, index, integer, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { sqlList, timestampTz } from "./columns.ts";
import { organisations, users } from "./accounts.ts";

export const MAIL_STATES = ["pending", "sent", "failed", "kept"] as const;
/** pending: to be sent; sent: the mail server accepted it; failed: given up; kept: no mail server, shown instead. */
export type MailState = (typeof MAIL_STATES)[number];

/**
 * The mail outbox: one message to one recipient, written in the transaction of what caused it and
 * sent by any instance's worker. `next_attempt_at` is also the lease of the instance sending it.
 */
export const mailMessages = pgTable(
  "mail_messages",
  {
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    recipient: text("recipient").notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    html: text("html").notNull(),
    // The one link the message is about, shown on the terminal and the desk when no mail server is set.
    link: text("link"),
    // Extra headers (List-Unsubscribe on messages that are not about the account's security).
    headers: jsonb("headers").$type<Record<string, string>>().notNull().default({}),
    createdAt: timestampTz("created_at").notNull(),
    state: text("state").$type<MailState>().notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestampTz("next_attempt_at"),
    sentAt: timestampTz("sent_at"),
  },
  (t) => [
    check("mail_messages_state_check", sql.raw(`state in (${sqlList(MAIL_STATES)})`)),
    // The worker's claim: due pending messages.
    index("mail_messages_due_idx")
      .on(t.nextAttemptAt)
      .where(sql`state = 'pending'`),
    // The desk's list and the pruning, newest first.
    index("mail_messages_created_idx").on(t.createdAt),
    // Per-recipient throttling of password resets.
    index("mail_messages_recipient_idx").on(t.recipient, t.kind, t.createdAt),
  ],
);

/** Each attempt to hand a message to the mail server, with the server's answer or the error. */
export const mailAttempts = pgTable(
  "mail_attempts",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    messageId: text("message_id")
      .notNull()
      .references(() => mailMessages.id, { onDelete: "cascade" }),
    at: timestampTz("at").notNull(),
    ok: boolean("ok").notNull(),
    result: text("result").notNull(),
  },
  (t) => [index("mail_attempts_message_idx").on(t.messageId, t.at)],
);

export const MAIL_TOKEN_PURPOSES = ["sign_up", "password_reset", "sign_in"] as const;
export type MailTokenPurpose = (typeof MAIL_TOKEN_PURPOSES)[number];

/**
 * Single-use links sent by mail (a sign-up to confirm, a password to reset) and the short grant
 * that signs the person in after one; only the SHA-256 of the token is kept, like a key's.
 */
export const mailTokens = pgTable(
  "mail_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    purpose: text("purpose").$type<MailTokenPurpose>().notNull(),
    email: text("email").notNull(),
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    // What a confirmed sign-up creates: the organisation's and the person's names, the password's hash.
    payload: jsonb("payload").$type<Record<string, string>>(),
    createdAt: timestampTz("created_at").notNull(),
    expiresAt: timestampTz("expires_at").notNull(),
    usedAt: timestampTz("used_at"),
  },
  (t) => [
    check("mail_tokens_purpose_check", sql.raw(`purpose in (${sqlList(MAIL_TOKEN_PURPOSES)})`)),
    index("mail_tokens_expires_idx").on(t.expiresAt),
  ],
);

/** Requests for a mailed link (password resets), kept for the throttling window per client network. */
export const mailRequests = pgTable(
  "mail_requests",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    kind: text("kind").notNull(),
    address: text("address").notNull(),
    email: text("email").notNull(),
    at: timestampTz("at").notNull(),
  },
  (t) => [index("mail_requests_address_idx").on(t.kind, t.address, t.at), index("mail_requests_at_idx").on(t.at)],
);

/** The alerts a member turned off (absent: on); security notices cannot be. */
export const mailPreferences = pgTable(
  "mail_preferences",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    topic: text("topic").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.topic] })],
);

/** Networks and devices a member signed in from, so that a new one is told by mail. */
export const knownSignIns = pgTable(
  "known_sign_ins",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    // The client network and a digest of the browser's user agent.
    fingerprint: text("fingerprint").notNull(),
    lastAt: timestampTz("last_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.fingerprint] })],
);

/** A verified licence's coming lapse was mailed to the admins: once per licence end and notice (30 or 7 days). */
export const licenceLapseNotices = pgTable(
  "licence_lapse_notices",
  {
    orgId: text("org_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    validUntil: date("valid_until").notNull(),
    days: integer("days").notNull(),
    noticedAt: timestampTz("noticed_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.validUntil, t.days] })],
);
