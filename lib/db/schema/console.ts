import { bigint, index, pgTable, text } from "drizzle-orm/pg-core";
import { timestampTz } from "./columns.ts";

/**
 * Failed console sign-ins, kept for the throttling window only. They live in the database, not
 * in memory, so the limit holds across every instance behind a load balancer and across restarts.
 * Failures for unknown e-mail addresses are kept too, so guessing addresses is throttled alike.
 */
export const signInFailures = pgTable(
  "sign_in_failures",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    email: text("email").notNull(),
    // The client's address as the server sees it (see TRUST_PROXY_HOPS).
    address: text("address").notNull(),
    at: timestampTz("at").notNull().defaultNow(),
  },
  (t) => [
    // Each sign-in counts the recent failures for its e-mail and for its address.
    index("sign_in_failures_email_at_idx").on(t.email, t.at),
    index("sign_in_failures_address_at_idx").on(t.address, t.at),
    // Pruning deletes everything older than the window.
    index("sign_in_failures_at_idx").on(t.at),
  ],
);

/**
 * Sign-up attempts, kept for the throttling window only: each one costs a password hash and may
 * create an organisation, so they are limited per client address and in all, across instances.
 */
export const signUpAttempts = pgTable(
  "sign_up_attempts",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    // The client's address, an IPv6 one cut to its /64 (one subscriber's block).
    address: text("address").notNull(),
    at: timestampTz("at").notNull().defaultNow(),
  },
  (t) => [
    // Each sign-up counts the recent attempts of its address, and all recent attempts.
    index("sign_up_attempts_address_at_idx").on(t.address, t.at),
    index("sign_up_attempts_at_idx").on(t.at),
  ],
);

/**
 * Invitation accepts that reached the token's lookup, kept for the throttling window only: a valid
 * token leads to a password hash, so guessing tokens, or hashing through one, is limited per
 * client network across instances.
 */
export const invitationAttempts = pgTable(
  "invitation_attempts",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    // The client's network, as for sign-up attempts.
    address: text("address").notNull(),
    at: timestampTz("at").notNull().defaultNow(),
  },
  // Each accept counts the recent attempts of its network.
  (t) => [index("invitation_attempts_address_at_idx").on(t.address, t.at)],
);
