import { sql } from "drizzle-orm";
import { bigint, boolean, index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt } from "./columns.ts";
import { organisations, users } from "./accounts.ts";

/** Who did what, when: console and operator actions alike. Rows are only ever appended. */
export const auditLog = pgTable(
  "audit_log",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    orgId: text("org_id").references(() => organisations.id, { onDelete: "cascade" }),
    actorUserId: text("actor_user_id").references(() => users.id, { onDelete: "set null" }),
    // Readable even after the user is gone: an e-mail address, or "operator (cli)".
    actor: text("actor").notNull(),
    action: text("action").notNull(),
    target: text("target"),
    details: jsonb("details").$type<Record<string, unknown>>().notNull().default({}),
    // Done by an operator (at the desk or with the CLI): the operators' own log across organisations.
    operator: boolean("operator").notNull().default(false),
    at: createdAt(),
  },
  (t) => [
    // The console lists an organisation's log newest first.
    index("audit_log_org_at_idx").on(t.orgId, t.at),
    // The desk lists the operators' actions newest first.
    index("audit_log_operator_idx")
      .on(t.id)
      .where(sql`operator`),
  ],
);
