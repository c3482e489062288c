import { sql } from "drizzle-orm";
import { utcDay } from "../clock.ts";
import { rowsOf, type Database } from "../db/index.ts";
import { monthOf } from "./policies.ts";
import { memberOf, memberPrincipal, organisationOf, organisationPrincipal } from "./principals.ts";

export { memberOf, memberPrincipal, organisationOf, organisationPrincipal } from "./principals.ts";

/** Admitted requests not yet in the usage tables, per key: by month, by day, and the latest. */
export type Tally = Map<string, { months: Map<string, number>; days: Map<string, number>; lastUsed: number }>;

/** Counts requests of a key at `at` (epoch ms), in its UTC month and day. */
export function count(tally: Tally, keyId: string, at: number, requests = 1): void {
  const date = new Date(at);
  add(tally, keyId, monthOf(date), utcDay(date), at, requests);
}

/** As `count`, with the month and day already known: the per-request path. */
export function add(tally: Tally, keyId: string, month: string, day: string, at: number, requests = 1): void {
  let entry = tally.get(keyId);
  if (!entry) {
    entry = { months: new Map(), days: new Map(), lastUsed: at };
    tally.set(keyId, entry);
  }
  entry.months.set(month, (entry.months.get(month) ?? 0) + requests);
  entry.days.set(day, (entry.days.get(day) ?? 0) + requests);
  if (at > entry.lastUsed) entry.lastUsed = at;
}

export function merge(into: Tally, from: Tally): void {
  for (const [keyId, entry] of from) {
    const target = into.get(keyId);
    if (!target) {
      // A copy: `from` stays as it was (a flush that fails puts its own tally back).
      into.set(keyId, { months: new Map(entry.months), days: new Map(entry.days), lastUsed: entry.lastUsed });
      continue;
    }
    for (const [month, n] of entry.months) target.months.set(month, (target.months.get(month) ?? 0) + n);
    for (const [day, n] of entry.days) target.days.set(day, (target.days.get(day) ?? 0) + n);
    target.lastUsed = Math.max(target.lastUsed, entry.lastUsed);
  }
}

export type MonthTotal = { keyId: string; month: string; requests: number };

type Executor = Pick<Database, "execute">;

/**
 * Adds a tally to usage_monthly, usage_daily and api_keys.last_used_at (to the minute), and records how far each
 * journal has been added, all in the caller's transaction. Returns each month's new total. A key
 * that no longer exists is skipped rather than failing the batch.
 */
export async function addTally(
  tx: Executor,
  tally: Tally,
  journals: { id: string; flushedBytes: number }[],
): Promise<MonthTotal[]> {
  const months: { key_id: string; month: string; requests: number }[] = [];
  const days: { key_id: string; day: string; requests: number }[] = [];
  const lastUsed: { key_id: string; at: string }[] = [];
  const memberMonths: { user_id: string; month: string; requests: number }[] = [];
  const orgMonths: { org_id: string; month: string; requests: number }[] = [];
  for (const [keyId, entry] of tally) {
    const orgId = organisationOf(keyId);
    if (orgId !== undefined) {
      for (const [month, requests] of entry.months) orgMonths.push({ org_id: orgId, month, requests });
      continue;
    }
    const userId = memberOf(keyId);
    if (userId !== undefined) {
      for (const [month, requests] of entry.months) memberMonths.push({ user_id: userId, month, requests });
      continue;
    }
    for (const [month, requests] of entry.months) months.push({ key_id: keyId, month, requests });
    for (const [day, requests] of entry.days) days.push({ key_id: keyId, day, requests });
    lastUsed.push({ key_id: keyId, at: new Date(entry.lastUsed).toISOString() });
  }
  // One statement per table whatever the number of keys: the rows travel as one jsonb parameter.
  const totals =
    months.length === 0
      ? []
      : rowsOf<{ key_id: string; month: string; requests: string | number }>(
          await tx.execute(sql`
            insert into usage_monthly (key_id, month, requests)
            select t.key_id, t.month, t.requests
            from jsonb_to_recordset(${JSON.stringify(months)}::jsonb) as t(key_id text, month date, requests bigint)
            where exists (select 1 from api_keys k where k.id = t.key_id)
            on conflict (key_id, month) do update set requests = usage_monthly.requests + excluded.requests
            returning key_id, month::text as month, requests`),
        );
  if (days.length > 0) {
    await tx.execute(sql`
      insert into usage_daily (key_id, day, requests)
      select t.key_id, t.day, t.requests
      from jsonb_to_recordset(${JSON.stringify(days)}::jsonb) as t(key_id text, day date, requests bigint)
      where exists (select 1 from api_keys k where k.id = t.key_id)
      on conflict (key_id, day) do update set requests = usage_daily.requests + excluded.requests`);
    // Kept to the minute: a key's row is written at most once a minute, however often it is used
    // and however often the counts are flushed.
    await tx.execute(sql`
      update api_keys k set last_used_at = date_trunc('minute', t.at)
      from jsonb_to_recordset(${JSON.stringify(lastUsed)}::jsonb) as t(key_id text, at timestamptz)
      where k.id = t.key_id and (k.last_used_at is null or k.last_used_at < date_trunc('minute', t.at))`);
  }
  const memberTotals =
    memberMonths.length === 0
      ? []
      : rowsOf<{ user_id: string; month: string; requests: string | number }>(
          await tx.execute(sql`
            insert into member_usage_monthly (user_id, month, requests)
            select t.user_id, t.month, t.requests
            from jsonb_to_recordset(${JSON.stringify(memberMonths)}::jsonb) as t(user_id text, month date, requests bigint)
            where exists (select 1 from users u where u.id = t.user_id)
            on conflict (user_id, month) do update set requests = member_usage_monthly.requests + excluded.requests
            returning user_id, month::text as month, requests`),
        );
  const orgTotals =
    orgMonths.length === 0
      ? []
      : rowsOf<{ org_id: string; month: string; requests: string | number }>(
          await tx.execute(sql`
            insert into org_usage_monthly (org_id, month, requests)
            select t.org_id, t.month, t.requests
            from jsonb_to_recordset(${JSON.stringify(orgMonths)}::jsonb) as t(org_id text, month date, requests bigint)
            where exists (select 1 from organisations o where o.id = t.org_id)
            on conflict (org_id, month) do update set requests = org_usage_monthly.requests + excluded.requests
            returning org_id, month::text as month, requests`),
        );
  for (const journal of journals) {
    await tx.execute(sql`
      insert into meter_journals (id, flushed_bytes, updated_at) values (${journal.id}, ${journal.flushedBytes}, now())
      on conflict (id) do update set flushed_bytes = excluded.flushed_bytes, updated_at = now()`);
  }
  return [
    ...totals.map((row) => ({ keyId: row.key_id, month: row.month, requests: Number(row.requests) })),
    ...memberTotals.map((row) => ({
      keyId: memberPrincipal(row.user_id),
      month: row.month,
      requests: Number(row.requests),
    })),
    ...orgTotals.map((row) => ({
      keyId: organisationPrincipal(row.org_id),
      month: row.month,
      requests: Number(row.requests),
    })),
  ];
}
