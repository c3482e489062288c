import { sql } from "drizzle-orm";
import { check, date, integer, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, sqlList, timestampTz, updatedAt } from "./columns.ts";
import { organisations } from "./accounts.ts";

/**
 * Where an operator's check of a licence record stands. Only `verified` gives production keys:
 * what an organisation types into the console is a claim until an operator has checked it.
 */
export const LICENCE_VERIFICATIONS = ["pending", "verified", "rejected", "revoked"] as const;
export type LicenceVerification = (typeof LICENCE_VERIFICATIONS)[number];

/** The organisation's current licence record; earlier versions live in the audit log. */
export const licences = pgTable(
  "licences",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .unique()
      .references(() => organisations.id, { onDelete: "cascade" }),
    reference: text("reference").notNull(),
    authority: text("authority").notNull(),
    holder: text("holder").notNull(),
    territory: text("territory"),
    validFrom: date("valid_from").notNull(),
    validUntil: date("valid_until").notNull(),
    verification: text("verification").$type<LicenceVerification>().notNull().default("pending"),
    /** When an operator last verified, rejected or revoked it; null while it waits. */
    reviewedAt: timestampTz("reviewed_at"),
    /** The operator's reason for a rejection or revocation, shown to the organisation. */
    reviewReason: text("review_reason"),
    /** Counts the record's changes: a verification names the version it checked, so a later change is not verified unseen. */
    version: integer("version").notNull().default(1),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check("licences_validity_check", sql`${t.validFrom} <= ${t.validUntil}`),
    check("licences_verification_check", sql.raw(`verification in (${sqlList(LICENCE_VERIFICATIONS)})`)),
  ],
);

/** What the rules read of a licence record; the key lookup carries this much for a production key. */
export type LicenceState = Pick<
  typeof licences.$inferSelect,
  "reference" | "verification" | "validFrom" | "validUntil" | "reviewedAt" | "updatedAt"
>;
