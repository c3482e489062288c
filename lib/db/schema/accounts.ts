import { sql } from "drizzle-orm";
import { check, index, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, sqlList, timestampTz } from "./columns.ts";
import { plans } from "./plans.ts";

export const ROLES = ["admin", "viewer"] as const;
export type Role = (typeof ROLES)[number];

/** Who of an organisation must sign in with a second factor. */
export const SECOND_FACTOR_POLICIES = ["none", "admins", "all"] as const;
export type SecondFactorPolicy = (typeof SECOND_FACTOR_POLICIES)[number];

export const organisations = pgTable("organisations", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  slug: text("slug").notNull().unique(),
  planCode: text("plan_code").references(() => plans.code),
  /** A plan priced on request that an admin asked for; it becomes `planCode` once an operator approves it. */
  requestedPlanCode: text("requested_plan_code").references(() => plans.code),
  planRequestedAt: timestampTz("plan_requested_at"),
  /** The last plan request an operator declined, with the reason the organisation is shown; cleared by the next. */
  declinedPlanCode: text("declined_plan_code").references(() => plans.code),
  planDeclinedReason: text("plan_declined_reason"),
  planDeclinedAt: timestampTz("plan_declined_at"),
  secondFactorPolicy: text("second_factor_policy").$type<SecondFactorPolicy>().notNull().default("none"),
  createdAt: createdAt(),
});

export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    name: text("name").notNull(),
    passwordHash: text("password_hash").notNull(),
    // Sessions signed in before this are refused (sign-out, a password reset); null: none revoked.
    sessionsValidAfter: timestampTz("sessions_valid_after"),
    createdAt: createdAt(),
  },
  // Sign-in looks users up by e-mail, which is stored lower-cased.
  (t) => [
    uniqueIndex("users_email_key").on(t.email),
    check("users_email_lower_check", sql`${t.email} = lower(${t.email})`),
  ],
);

export const memberships = pgTable(
  "memberships",
  {
    orgId: text("org_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role").$type<Role>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.userId] }),
    // The console resolves a signed-in user's organisations on every action.
    index("memberships_user_idx").on(t.userId),
    check("memberships_role_check", sql.raw(`role in (${sqlList(ROLES)})`)),
  ],
);

/** One-time invitation links; only the SHA-256 of the token is kept, like keys. */
export const invitations = pgTable(
  "invitations",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    role: text("role").$type<Role>().notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    expiresAt: timestampTz("expires_at").notNull(),
    acceptedAt: timestampTz("accepted_at"),
    acceptedBy: text("accepted_by").references(() => users.id, { onDelete: "set null" }),
  },
  (t) => [
    index("invitations_org_idx").on(t.orgId),
    check("invitations_role_check", sql.raw(`role in (${sqlList(ROLES)})`)),
  ],
);

/**
 * The people who run the service: accounts of their own (a user row for the e-mail, password and
 * sessions) that belong to no organisation. A user is an operator or a member, never both.
 */
export const operators = pgTable("operators", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  createdAt: createdAt(),
});
