import { and, desc, eq, gte, lt, lte, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "../../db/index.ts";
import { apiKeys, requestLog } from "../../db/schema/index.ts";

/** How long the request log keeps a request. */
export const KEEP_DAYS = 7;
export const LIST_LIMIT_MAX = 200;

/** The classes the filters offer, beside an exact status. */
export const STATUS_CLASSES = ["2xx", "3xx", "4xx", "5xx", "refused"] as const;

/** The filters of the console's page and the CLI's list, as their fields arrive (strings). */
export const RequestFilter = z.object({
  keyId: z.string().trim().max(64).optional(),
  /** An exact status (404), a class (4xx) or "refused" (400 and up). */
  status: z
    .string()
    .trim()
    .regex(/^([1-5][0-9]{2}|[1-5]xx|refused)$/, "a status (404), a class (4xx) or refused")
    .optional(),
  code: z
    .string()
    .trim()
    .regex(/^[a-z_]{1,64}$/, "an error code, such as not_found")
    .optional(),
  requestId: z.string().trim().max(64).optional(),
  limit: z.coerce.number().int().min(1).max(LIST_LIMIT_MAX).default(50),
});
export type RequestFilter = z.input<typeof RequestFilter>;

export type LoggedRequest = {
  at: Date;
  keyId: string;
  keyName: string | null;
  keyHint: string;
  method: string;
  path: string;
  status: number;
  code: string | null;
  latencyMs: number;
  requestId: string;
};

function statusCondition(status: string): SQL | undefined {
  if (status === "refused") return gte(requestLog.status, 400);
  if (status.endsWith("xx")) {
    const from = Number(status[0]) * 100;
    return and(gte(requestLog.status, from), lt(requestLog.status, from + 100));
  }
  return eq(requestLog.status, Number(status));
}

/**
 * An organisation's logged requests, latest first, narrowed by the filter; only its own keys'
 * rows are ever read. Empty parts of the filter (a form's blank fields) filter nothing.
 */
export async function listRequests(db: Database, orgId: string, filter: RequestFilter = {}): Promise<LoggedRequest[]> {
  const f = RequestFilter.parse(filter);
  const conditions: (SQL | undefined)[] = [eq(requestLog.orgId, orgId)];
  if (f.keyId) conditions.push(eq(requestLog.keyId, f.keyId));
  if (f.status) conditions.push(statusCondition(f.status));
  if (f.code) conditions.push(eq(requestLog.code, f.code));
  if (f.requestId) conditions.push(eq(requestLog.requestId, f.requestId));
  const rows = await db
    .select({
      at: requestLog.at,
      keyId: requestLog.keyId,
      keyName: apiKeys.name,
      keyHint: apiKeys.hint,
      method: requestLog.method,
      path: requestLog.path,
      status: requestLog.status,
      code: requestLog.code,
      latencyMs: requestLog.latencyMs,
      requestId: requestLog.requestId,
    })
    .from(requestLog)
    .innerJoin(apiKeys, eq(apiKeys.id, requestLog.keyId))
    .where(and(...conditions))
    .orderBy(desc(requestLog.at), desc(requestLog.id))
    .limit(f.limit);
  return rows;
}

/** Which organisation a logged request belongs to, for the operator's search across them. */
export async function findRequest(
  db: Database,
  requestId: string,
): Promise<(LoggedRequest & { orgId: string }) | null> {
  const [row] = await db
    .select({
      orgId: requestLog.orgId,
      at: requestLog.at,
      keyId: requestLog.keyId,
      keyName: apiKeys.name,
      keyHint: apiKeys.hint,
      method: requestLog.method,
      path: requestLog.path,
      status: requestLog.status,
      code: requestLog.code,
      latencyMs: requestLog.latencyMs,
      requestId: requestLog.requestId,
    })
    .from(requestLog)
    .innerJoin(apiKeys, eq(apiKeys.id, requestLog.keyId))
    .where(eq(requestLog.requestId, requestId))
    .limit(1);
  return row ?? null;
}

/** Deletes what is older than KEEP_DAYS before `at`; returns how many rows went. */
export async function pruneRequestLog(db: Database, at: Date): Promise<number> {
  const before = new Date(at.getTime() - KEEP_DAYS * 86_400_000);
  const gone = await db.delete(requestLog).where(lte(requestLog.at, before)).returning({ id: requestLog.id });
  return gone.length;
}

/** A logged request as the CLI's --json and the console show it. */
export function requestJson(row: LoggedRequest): Record<string, unknown> {
  return {
    at: row.at.toISOString(),
    key_id: row.keyId,
    key_name: row.keyName,
    key_hint: row.keyHint,
    method: row.method,
    path: row.path,
    status: row.status,
    code: row.code,
    latency_ms: row.latencyMs,
    request_id: row.requestId,
  };
}
