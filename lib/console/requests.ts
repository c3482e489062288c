import { asc, eq } from "drizzle-orm";
import type { Database } from "../db/index.ts";
import { apiKeys } from "../db/schema/index.ts";
import { listRequests, RequestFilter, type LoggedRequest } from "../ops/request-log/queries.ts";

/** The console's Requests page, as its search form's fields arrive (blank: no filter). */
export type RequestSearch = { key?: string; status?: string; code?: string; id?: string };

export type RequestLogView = {
  /** The organisation's keys, for the key filter: each by its name and hint. */
  keys: { id: string; label: string }[];
  rows: LoggedRequest[];
  /** Why the search was not run (a field that cannot match anything), or null. */
  problem: string | null;
};

const PAGE_SIZE = 100;

const blank = (value: string | undefined) => (value === undefined || value.trim() === "" ? undefined : value.trim());

/**
 * What the Requests page shows: the organisation's own logged requests, latest first, narrowed by
 * key, status (or class) and code, or the one request with an id. Any member may read it, as the
 * usage; a key of another organisation in the filter matches nothing.
 */
export async function requestLogFor(db: Database, orgId: string, search: RequestSearch): Promise<RequestLogView> {
  const keyRows = await db
    .select({ id: apiKeys.id, name: apiKeys.name, hint: apiKeys.hint })
    .from(apiKeys)
    .where(eq(apiKeys.orgId, orgId))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
  const keys = keyRows.map((k) => ({ id: k.id, label: k.name ? `${k.name} (${k.hint})` : k.hint }));
  const filter = RequestFilter.safeParse({
    keyId: blank(search.key),
    status: blank(search.status),
    code: blank(search.code),
    requestId: blank(search.id),
    limit: PAGE_SIZE,
  });
  if (!filter.success) {
    return { keys, rows: [], problem: filter.error.issues.map((issue) => issue.message).join("; ") };
  }
  return { keys, rows: await listRequests(db, orgId, filter.data), problem: null };
}
