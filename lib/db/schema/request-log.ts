import { bigint, index, integer, pgTable, smallint, text } from "drizzle-orm/pg-core";
import { timestampTz } from "./columns.ts";
import { organisations } from "./accounts.ts";
import { apiKeys } from "./keys.ts";

/**
 * A key's requests as the API answered them: every refused one (4xx, 5xx) and a sample of the
 * admitted ones (lib/request-log), kept 7 days. The path and query are stored without credentials.
 */
export const requestLog = pgTable(
  "request_log",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    orgId: text("org_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    at: timestampTz("at").notNull(),
    method: text("method").notNull(),
    path: text("path").notNull(),
    status: smallint("status").notNull(),
    /** The problem's code; null for an answer that is not a problem. */
    code: text("code"),
    latencyMs: integer("latency_ms").notNull(),
    requestId: text("request_id").notNull(),
  },
  (t) => [
    // The console's list and the CLI's: an organisation's (or one key's) latest first.
    index("request_log_org_at_idx").on(t.orgId, t.at),
    index("request_log_key_at_idx").on(t.keyId, t.at),
    // Finding a request by the id its answer carried.
    index("request_log_request_id_idx").on(t.requestId),
    // The pruning of what is older than 7 days.
    index("request_log_at_idx").on(t.at),
  ],
);
