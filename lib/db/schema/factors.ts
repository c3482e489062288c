import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, sqlList, timestampTz } from "./columns.ts";
import { users } from "./accounts.ts";

export const FACTOR_KINDS = ["totp", "passkey"] as const;
export type FactorKind = (typeof FACTOR_KINDS)[number];

/**
 * A member's second factors. An authenticator app's secret is kept encrypted (lib/accounts/factors/
 * sealing.ts) and counts only once confirmed with a code; `lastTimeStep` is the last code's time
 * step, so a code is accepted once.
 */
export const secondFactors = pgTable(
  "second_factors",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind").$type<FactorKind>().notNull(),
    name: text("name").notNull(),
    secret: text("secret"),
    lastTimeStep: integer("last_time_step"),
    /** A passkey's credential: its id and public key (base64url) and signature counter. */
    credentialId: text("credential_id").unique(),
    publicKey: text("public_key"),
    signCount: integer("sign_count"),
    confirmedAt: timestampTz("confirmed_at"),
    lastUsedAt: timestampTz("last_used_at"),
    createdAt: createdAt(),
  },
  (t) => [
    // Sign-in reads a user's factors.
    index("second_factors_user_idx").on(t.userId),
    check("second_factors_kind_check", sql.raw(`kind in (${sqlList(FACTOR_KINDS)})`)),
  ],
);

/** Ten single-use recovery codes per member, as SHA-256 hashes; a new set replaces the old. */
export const recoveryCodes = pgTable(
  "recovery_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    usedAt: timestampTz("used_at"),
    createdAt: createdAt(),
  },
  (t) => [index("recovery_codes_user_idx").on(t.userId)],
);

export const SIGN_IN_STAGES = ["second_factor", "enrol", "done"] as const;
export type SignInStage = (typeof SIGN_IN_STAGES)[number];

/**
 * One console session, named by the id its cookie carries: how far its sign-in got (a password
 * alone leaves it at the second step or at enrolment) and when it last passed a second factor.
 */
export const signInSessions = pgTable(
  "sign_in_sessions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    stage: text("stage").$type<SignInStage>().notNull(),
    secondFactorAt: timestampTz("second_factor_at"),
    createdAt: createdAt(),
  },
  (t) => [
    // Old sessions are dropped by age.
    index("sign_in_sessions_created_idx").on(t.createdAt),
    check("sign_in_sessions_stage_check", sql.raw(`stage in (${sqlList(SIGN_IN_STAGES)})`)),
  ],
);

export const PASSKEY_PURPOSES = ["register", "sign_in", "second_step", "step_up"] as const;
export type PasskeyPurpose = (typeof PASSKEY_PURPOSES)[number];

/**
 * A passkey ceremony's challenge until its answer comes back: taken once (a delete) before it
 * expires, and only by the session (and user) it was made for; a sign-in with a passkey alone has
 * neither yet.
 */
export const passkeyChallenges = pgTable(
  "passkey_challenges",
  {
    id: text("id").primaryKey(),
    challenge: text("challenge").notNull(),
    purpose: text("purpose").$type<PasskeyPurpose>().notNull(),
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    sessionId: text("session_id"),
    expiresAt: timestampTz("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    // Expired challenges are dropped by age.
    index("passkey_challenges_expires_idx").on(t.expiresAt),
    check("passkey_challenges_purpose_check", sql.raw(`purpose in (${sqlList(PASSKEY_PURPOSES)})`)),
  ],
);
