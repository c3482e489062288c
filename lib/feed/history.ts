import { sql, type SQL } from "drizzle-orm";
import { rowsOf, type Database } from "../db/index.ts";
import { REVISION_KINDS, type Market, type RevisionKind } from "../db/schema/index.ts";
import {
  archivedAfter,
  archivedItemRevisions,
  archivedRevisionAt,
  archivedStatesAt,
  eventsOfSports,
} from "./archive-reads.ts";
import { BUCKET_MS } from "./archive.ts";

// Reads of the revision history, whichever part holds it: the recent table (every revision's
// full state, for REVISION_RETENTION_SECONDS) or the archive (what each changed, for
// HISTORY_SECONDS; archive.ts). Each answer is the same from either.

export type Revision = { revision: number; eventId: string; kind: RevisionKind; recordedAt: Date; state: unknown };

/**
 * Where each part of the history is whole: the recent table after `recentFrom` (pruning deletes
 * only what the archive holds), the archive after `wholeFrom` through `archivedThrough`, for the
 * moments before `archivedUntil`.
 */
type Bounds = { recentFrom: number; archivedThrough: number; wholeFrom: number; archivedUntil: Date | null };

async function bounds(db: Database): Promise<Bounds> {
  const [row] = rowsOf<{
    pruned_through: string | number;
    archived_through: string | number;
    archive_whole_from: string | number;
    last_bucket: string | Date | null;
  }>(
    await db.execute(sql`
      select pruned_through, archived_through, archive_whole_from,
        (select max(starts_at) from history_buckets) as last_bucket
      from revision_counter where id = 1`),
  );
  return {
    recentFrom: Number(row?.pruned_through ?? 0),
    archivedThrough: Number(row?.archived_through ?? 0),
    wholeFrom: Number(row?.archive_whole_from ?? 0),
    archivedUntil: row?.last_bucket ? new Date(new Date(row.last_bucket).getTime() + BUCKET_MS) : null,
  };
}

type AfterOptions = {
  eventIds?: readonly string[];
  /** Only the revisions of these sports' events, chosen in the query (events.sport). */
  sports?: readonly string[];
  kinds?: readonly RevisionKind[];
  until?: Date;
  through?: number;
  limit?: number;
};

/**
 * The revisions after `after`, in order, recorded at or before `until` (a sandbox reader stays 60
 * seconds behind): what a stream resuming from Last-Event-ID replays. At least `limit` of them
 * unless no more are kept (an archived bucket may give more). `complete` is false when the history
 * no longer holds every revision after `after`, and the reader must start again from a snapshot.
 */
export async function revisionsAfter(
  db: Database,
  after: number,
  options: AfterOptions = {},
): Promise<{ revisions: Revision[]; complete: boolean }> {
  const limit = options.limit ?? 10_000;
  const through = options.through ?? Number.MAX_SAFE_INTEGER;
  // Most readers are after the recent table's start (a view following the present, a stream
  // resuming a moment later): one statement reads that table's bounds and its rows together.
  const recent = await recentAfterWithin(db, after, { ...options, limit });
  if (recent) return { complete: true, revisions: recent };
  const history = await bounds(db);
  if (after < history.wholeFrom) return { complete: false, revisions: [] };
  const revisions: Revision[] = [];
  let from = after;
  // Older than the recent table holds whole: the archive, page by page, then the recent table.
  if (after < history.recentFrom) {
    while (revisions.length < limit && from < Math.min(history.archivedThrough, through)) {
      const page = await archivedAfter(db, from, {
        eventIds: options.eventIds,
        sports: options.sports,
        kinds: options.kinds,
      });
      for (const revision of page.revisions) {
        if (revision.revision > Math.min(through, history.archivedThrough)) break;
        if (!options.until || revision.recordedAt <= options.until) revisions.push(revision);
      }
      const next = Math.min(page.reached, history.archivedThrough);
      if (next <= from) break;
      from = next;
    }
    from = Math.max(from, history.archivedThrough);
  }
  if (revisions.length < limit && from < through) {
    revisions.push(...(await recentAfter(db, from, { ...options, limit: limit - revisions.length })));
  }
  return { complete: true, revisions };
}

function recentRows(after: number, options: AfterOptions) {
  const events = options.eventIds ? sql`and event_id in ${options.eventIds.length ? options.eventIds : [""]}` : sql``;
  const kinds = options.kinds ? sql`and kind in ${options.kinds.length ? options.kinds : [""]}` : sql``;
  const sports = options.sports ? sql`and event_id in (${eventsOfSports(options.sports)})` : sql``;
  const until = options.until ? sql`and recorded_at <= ${options.until.toISOString()}` : sql``;
  const through = options.through === undefined ? sql`` : sql`and revision <= ${options.through}`;
  return sql`
    select revision, event_id, kind, recorded_at, state from event_revisions
    where revision > ${after} ${events} ${kinds} ${sports} ${until} ${through}
    order by revision
    limit ${options.limit ?? 10_000}`;
}

async function recentAfter(db: Database, after: number, options: AfterOptions): Promise<Revision[]> {
  return rowsOf<RevisionRow>(await db.execute(recentRows(after, options))).map(toRevision);
}

/**
 * The recent table's revisions after `after`, read in one statement with where that table and
 * the whole history start; null when `after` is before either, and the archive must be read.
 */
async function recentAfterWithin(db: Database, after: number, options: AfterOptions): Promise<Revision[] | null> {
  const rows = rowsOf<
    Omit<RevisionRow, "revision"> & {
      revision: string | number | null;
      pruned_through: string | number;
      archive_whole_from: string | number;
    }
  >(
    await db.execute(sql`
      select c.pruned_through, c.archive_whole_from, r.*
      from revision_counter c left join lateral (${recentRows(after, options)}) r on true
      where c.id = 1`),
  );
  const first = rows[0];
  if (!first || after < Number(first.pruned_through) || after < Number(first.archive_whole_from)) return null;
  return rows.flatMap((row) => (row.revision === null ? [] : [toRevision({ ...row, revision: row.revision })]));
}

type RevisionRow = {
  revision: string | number;
  event_id: string;
  kind: RevisionKind;
  recorded_at: string | Date;
  state: unknown;
};

function toRevision(row: RevisionRow): Revision {
  return {
    revision: Number(row.revision),
    eventId: row.event_id,
    kind: row.kind,
    recordedAt: new Date(row.recorded_at),
    state: row.state,
  };
}

/** The last revision committed, and when it was recorded; 0 before the first. */
export async function lastRevision(db: Database): Promise<{ revision: number; recordedAt: Date }> {
  const [row] = rowsOf<{ revision: string | number; recorded_at: string | Date | null }>(
    await db.execute(sql`
      select c.last_revision as revision, r.recorded_at from revision_counter c
      left join event_revisions r on r.revision = c.last_revision
      where c.id = 1`),
  );
  return { revision: Number(row?.revision ?? 0), recordedAt: new Date(row?.recorded_at ?? 0) };
}

/**
 * The newest revision N, at most `through`, such that N and every revision before it were recorded
 * at or before `at`: the feed as it was at `at`, never showing anything recorded later.
 */
export async function lastRevisionRecordedBy(db: Database, at: Date, through: number): Promise<number> {
  return (await historyAt(db, at, through)).revision;
}

/**
 * The revision of `at` (as `lastRevisionRecordedBy`) and where the history is whole from, in one
 * read: a state below `prunedThrough` may lack a revision it was built from.
 */
export async function historyAt(
  db: Database,
  at: Date,
  through: number,
): Promise<{ revision: number; prunedThrough: number }> {
  const history = await bounds(db);
  const archived = history.archivedUntil && at < history.archivedUntil ? await archivedRevisionAt(db, at) : null;
  if (archived !== null) return { revision: Math.min(archived, through), prunedThrough: history.wholeFrom };
  // Every revision the archive holds was recorded before `at`: the first later one is a recent one.
  const [row] = rowsOf<{ first_later: string | number | null }>(
    await db.execute(sql`
      select min(revision) as first_later from event_revisions
      where recorded_at > ${at.toISOString()} and revision <= ${through}
        and revision > ${history.archivedUntil ? history.archivedThrough : 0}`),
  );
  const firstLater = row?.first_later ?? null;
  return {
    revision: firstLater === null ? through : Number(firstLater) - 1,
    prunedThrough: history.archivedUntil ? history.wholeFrom : history.recentFrom,
  };
}

/** One market of an event as one markets revision holds it; null when the market did not exist yet. */
export type MarketRevision = { revision: number; recordedAt: Date; market: Market | null };

/**
 * One market of an event in every markets revision recorded after `from` and at or before `to`,
 * at most `through`, led by the newest one at or before `from` (its state then), oldest first.
 * Both halves are ranges of the index on (event_id, kind, recorded_at); only the market leaves
 * the database, not the event's other markets.
 */
export async function marketRevisions(
  db: Database,
  eventId: string,
  marketId: string,
  window: { from: Date | null; to: Date; through: number },
): Promise<MarketRevision[]> {
  const history = await bounds(db);
  if (history.archivedUntil && (window.from === null || window.from < history.archivedUntil)) {
    const through = Math.min(window.through, history.archivedThrough);
    return [
      ...(await archivedMarketRevisions(db, eventId, marketId, { ...window, through }, history)),
      ...(await recentMarketRevisions(db, eventId, marketId, { ...window, from: null }, history.archivedThrough)),
    ];
  }
  return recentMarketRevisions(db, eventId, marketId, window, 0);
}

/** As `marketRevisions`, from the recent table, for revisions after `after`. */
async function recentMarketRevisions(
  db: Database,
  eventId: string,
  marketId: string,
  window: { from: Date | null; to: Date; through: number },
  after: number,
): Promise<MarketRevision[]> {
  const to = window.to.toISOString();
  const from = window.from?.toISOString() ?? null;
  const market = sql`(select m from jsonb_array_elements(state) m where m->>'id' = ${marketId} limit 1) as market`;
  const leading =
    from === null
      ? sql``
      : sql`(select revision, recorded_at, ${market} from event_revisions
          where event_id = ${eventId} and kind = 'markets' and recorded_at <= ${from} and revision <= ${window.through}
          order by recorded_at desc, revision desc
          limit 1)
        union all`;
  const later = from === null ? sql`` : sql`and recorded_at > ${from}`;
  const rows = rowsOf<{ revision: string | number; recorded_at: string | Date; market: Market | null }>(
    await db.execute(sql`
      select revision, recorded_at, market from (
        ${leading}
        (select revision, recorded_at, ${market} from event_revisions
          where event_id = ${eventId} and kind = 'markets' ${later} and recorded_at <= ${to}
            and revision > ${after} and revision <= ${window.through})
      ) w
      order by revision`),
  );
  return rows.map((row) => ({
    revision: Number(row.revision),
    recordedAt: new Date(row.recorded_at),
    market: row.market,
  }));
}

async function archivedMarketRevisions(
  db: Database,
  eventId: string,
  marketId: string,
  window: { from: Date | null; to: Date; through: number },
  history: Bounds,
): Promise<MarketRevision[]> {
  const start = window.from ? (await historyAt(db, window.from, window.through)).revision : history.wholeFrom;
  const leading = window.from ? await snapshotThrough(db, start, [eventId]) : [];
  const marketOf = (r: Revision): MarketRevision => ({
    revision: r.revision,
    recordedAt: r.recordedAt,
    market: (r.state as Market[]).find((m) => m.id === marketId) ?? null,
  });
  const led = leading.filter((r) => r.kind === "markets").map(marketOf);
  // Older than the history holds whole: nothing after the state then (as revisionsAfter says).
  if (start < history.wholeFrom) return led;
  if (start >= history.recentFrom) {
    // The recent table still holds every revision after the start, each state whole.
    const { revisions } = await revisionsAfter(db, start, {
      eventIds: [eventId],
      kinds: ["markets"],
      until: window.to,
      through: window.through,
      limit: Number.MAX_SAFE_INTEGER,
    });
    return [...led, ...revisions.map(marketOf)];
  }
  const archived = await archivedItemRevisions(db, { eventId, kind: "markets" }, marketId, {
    after: start,
    through: window.through,
    until: window.to,
  });
  return [
    ...led,
    ...archived.map(({ revision, recordedAt, item }) => ({ revision, recordedAt, market: item as Market | null })),
  ];
}

/**
 * Every event (or those of `eventIds`), its markets and its lineups as of revision `through`: for
 * each event and kind, the newest revision at or below it. A mirror starts from this and then
 * applies what follows.
 */
export async function snapshotThrough(
  db: Database,
  through: number,
  eventIds?: readonly string[],
): Promise<Revision[]> {
  const history = await bounds(db);
  if (through < history.recentFrom) return archivedSnapshot(db, through, eventIds);
  const events = eventIds ? sql`where id in ${eventIds.length ? eventIds : [""]}` : sql``;
  const kinds = sql.raw(REVISION_KINDS.map((kind) => `('${kind}')`).join(", "));
  return newestAtOrBefore(
    db,
    through,
    sql`(select id as event_id, kind from events, (values ${kinds}) k(kind) ${events}) p`,
  );
}

/**
 * For each row of `pairs` (a from item named p, with columns event_id and kind), the recent
 * table's newest revision at or below `through`: one backward search each of the index on
 * (event_id, kind, revision), so the cost follows the pairs asked for, not the rows kept.
 */
async function newestAtOrBefore(db: Database, through: number, pairs: SQL): Promise<Revision[]> {
  const rows = rowsOf<RevisionRow>(
    await db.execute(sql`
      select r.revision, p.event_id, p.kind, r.recorded_at, r.state
      from ${pairs}
      cross join lateral (
        select revision, recorded_at, state from event_revisions
        where event_id = p.event_id and kind = p.kind and revision <= ${through}
        order by revision desc limit 1
      ) r`),
  );
  return rows.map(toRevision);
}

/**
 * The snapshot at a revision the recent table no longer holds whole: each (event, kind) of an
 * event changed since as the archive has it; the others, and those the archive does not know
 * then, as the recent table's newest at or before `through` (pruning keeps each one's newest).
 */
async function archivedSnapshot(db: Database, through: number, eventIds?: readonly string[]): Promise<Revision[]> {
  const ids = eventIds ? sql`where id in ${eventIds.length ? eventIds : [""]}` : sql``;
  const events = rowsOf<{ id: string; revision: string | number; markets: boolean; lineups: boolean }>(
    await db.execute(sql`
      select id, revision, jsonb_array_length(markets) > 0 as markets, lineups is not null as lineups
      from events ${ids}`),
  );
  // Markets and lineups are never taken away: an event without them now had none then.
  const pairs = (list: typeof events) =>
    list.flatMap((e) =>
      REVISION_KINDS.filter((kind) => kind === "event" || e[kind]).map((kind) => ({ eventId: e.id, kind })),
    );
  const archived = await archivedStatesAt(db, through, pairs(events.filter((e) => Number(e.revision) > through)));
  const known = new Set(archived.map((r) => `${r.eventId}\u0000${r.kind}`));
  const rest = pairs(events).filter((p) => !known.has(`${p.eventId}\u0000${p.kind}`));
  const recent = rest.length
    ? await newestAtOrBefore(
        db,
        through,
        sql`jsonb_to_recordset(${JSON.stringify(rest.map((p) => ({ event_id: p.eventId, kind: p.kind })))}::jsonb)
          as p(event_id text, kind text)`,
      )
    : [];
  return [...archived, ...recent];
}
