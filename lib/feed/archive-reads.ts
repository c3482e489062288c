import { sql, type SQL } from "drizzle-orm";
import { rowsOf, type Database } from "../db/index.ts";
import type { RevisionKind } from "../db/schema/index.ts";
import { ChunkReader, decodeClock, itemHistory, type FullRevision, type ItemRevision } from "./archive-codec.ts";
import { BUCKET_MS, PARTITION_MS } from "./archive.ts";
import { ChunkCache, deepFreeze } from "./chunk-cache.ts";

// Reading the archive: revisions after a revision, each event's state at a revision, and the
// revision of a moment, from the chunks. history.ts decides when the archive is the one to read.

export type ArchivedRevision = {
  revision: number;
  eventId: string;
  kind: RevisionKind;
  recordedAt: Date;
  state: unknown;
};

type ChunkRow = {
  event_id: string;
  kind: RevisionKind;
  starts_at: string | Date;
  first_revision: string | number;
  payload: Uint8Array;
};

const CHUNK_COLUMNS = sql`event_id, kind, starts_at, first_revision, payload`;

/** A chunk as far as it was decoded, and its revisions as the archive's readers get them. */
type CachedChunk = { reader: ChunkReader; before: ArchivedRevision | null; revisions: ArchivedRevision[] };

/** Decoded chunks of this process, at most 32 MB of their text and payloads (chunk-cache.ts). */
export const decodedChunks = new ChunkCache<CachedChunk>(32 * 1024 * 1024);

/**
 * A chunk decoded at least as far as `upTo`, kept for the next read, which goes on from there, and
 * how many of its revisions are at or below `upTo`. Its revisions are shared by every reader of the
 * chunk: what a read hands out is frozen first.
 */
function decoded(row: ChunkRow, upTo: number): { chunk: CachedChunk; count: number } {
  const payload = toBytes(row.payload);
  const key = `${row.event_id}\u0000${row.kind}\u0000${row.first_revision}\u0000${new Date(row.starts_at).getTime()}`;
  let chunk = decodedChunks.get(key, payload);
  const label = (r: FullRevision): ArchivedRevision => ({ ...r, eventId: row.event_id, kind: row.kind });
  if (!chunk) {
    const reader = new ChunkReader(payload, Number(row.first_revision), new Date(row.starts_at));
    chunk = { reader, before: reader.before && label(reader.before), revisions: [] };
    decodedChunks.set(key, payload, chunk, reader.textBytes);
  }
  const count = chunk.reader.readThrough(upTo);
  for (let i = chunk.revisions.length; i < chunk.reader.revisions.length; i++) {
    chunk.revisions.push(label(chunk.reader.revisions[i]!));
  }
  return { chunk, count };
}

/** A chunk's newest revision at or below `upTo`, else the revision before it (null: none), frozen. */
function newestThrough(row: ChunkRow, upTo: number): ArchivedRevision | null {
  const { chunk, count } = decoded(row, upTo);
  const newest = count > 0 ? chunk.revisions[count - 1]! : chunk.before;
  return newest && deepFreeze(newest);
}

// PGlite hands bytea back as a Uint8Array, postgres.js as a Buffer; a hex string on older paths.
function toBytes(value: Uint8Array | string): Uint8Array {
  return typeof value === "string" ? Buffer.from(value.replace(/^\\x/, ""), "hex") : value;
}

const inList = (column: SQL, values: readonly string[] | undefined) =>
  values ? sql`and ${column} in ${values.length ? values : [""]}` : sql``;

/** The ids of these sports' events, as a subquery: a board's sports are chosen by the database. */
export function eventsOfSports(sports: readonly string[]): SQL {
  return sql`select id from events where sport in ${sports.length ? sports : [""]}`;
}

export type ArchiveFilter = {
  eventIds?: readonly string[];
  sports?: readonly string[];
  kinds?: readonly RevisionKind[];
};

/**
 * Archived revisions after `after`, in order: every one through `reached`, which is where the
 * next read goes on from (a bucket's end, or, for some events only, the last of a page of chunks).
 */
export async function archivedAfter(
  db: Database,
  after: number,
  filter: ArchiveFilter,
): Promise<{ revisions: ArchivedRevision[]; reached: number }> {
  const events = inList(sql`event_id`, filter.eventIds);
  const kinds = inList(sql`kind`, filter.kinds);
  const sports = filter.sports ? sql`and event_id in (${eventsOfSports(filter.sports)})` : sql``;
  const [bucket] = rowsOf<{ starts_at: string | Date; last_revision: string | number }>(
    await db.execute(sql`
      select starts_at, last_revision from history_buckets where last_revision > ${after}
      order by last_revision limit 1`),
  );
  if (!bucket) return { revisions: [], reached: after };
  let rows: ChunkRow[];
  let reached = Number(bucket.last_revision);
  if (filter.eventIds) {
    // A few events change rarely: a page of their chunks from this bucket on, not bucket by bucket.
    const page = 64;
    rows = rowsOf<ChunkRow & { last_revision: string | number }>(
      await db.execute(sql`
        select ${CHUNK_COLUMNS}, last_revision from history_chunks
        where starts_at >= ${new Date(bucket.starts_at).toISOString()} and last_revision > ${after} ${events} ${kinds}
        order by first_revision
        limit ${page + 1}`),
    );
    if (rows.length > page) {
      reached = Number(rows[page]!.first_revision) - 1;
      rows = rows.slice(0, page);
    } else {
      reached = Number.MAX_SAFE_INTEGER;
    }
  } else {
    rows = rowsOf<ChunkRow>(
      await db.execute(sql`
        select ${CHUNK_COLUMNS} from history_chunks
        where starts_at = ${new Date(bucket.starts_at).toISOString()} ${kinds} ${sports}`),
    );
  }
  const revisions = rows
    .flatMap((row) => decoded(row, Infinity).chunk.revisions)
    .filter((r) => r.revision > after && r.revision <= reached)
    .map(deepFreeze)
    .sort((a, b) => a.revision - b.revision);
  return { revisions, reached };
}

type Pair = { eventId: string; kind: RevisionKind };

/**
 * One keyed item (a market) of an (event, kind)'s archived states in each revision after `after`,
 * through `through`, recorded at or before `until`: read from the pair's chunks in pages, parsing
 * only the changes that name the item (itemHistory), not decoding whole states.
 */
export async function archivedItemRevisions(
  db: Database,
  pair: Pair,
  id: string,
  window: { after: number; through: number; until: Date },
): Promise<ItemRevision[]> {
  const from = await startOf(db, sql`where last_revision > ${window.after} order by last_revision`);
  if (!from) return [];
  const items: ItemRevision[] = [];
  const page = 256;
  for (let reached = window.after; ;) {
    const rows = rowsOf<Omit<ChunkRow, "event_id" | "kind"> & { last_revision: string | number }>(
      await db.execute(sql`
        select starts_at, first_revision, last_revision, payload from history_chunks
        where event_id = ${pair.eventId} and kind = ${pair.kind}
          and starts_at >= ${from.toISOString()} and starts_at <= ${window.until.toISOString()}
          and last_revision > ${reached} and first_revision <= ${window.through}
        order by first_revision
        limit ${page}`),
    );
    for (const row of rows) {
      const chunk = itemHistory(toBytes(row.payload), Number(row.first_revision), new Date(row.starts_at), id);
      for (const item of chunk.revisions) {
        if (item.revision > window.after && item.revision <= window.through && item.recordedAt <= window.until) {
          items.push(item);
        }
      }
    }
    if (rows.length < page) return items;
    reached = Number(rows.at(-1)!.last_revision);
  }
}

const wanted = (pairs: readonly Pair[]) => JSON.stringify(pairs.map((p) => ({ event_id: p.eventId, kind: p.kind })));

/**
 * Each (event, kind)'s state at revision `at` (its newest revision at or before it), for those
 * the archive knows: from the chunk holding it, or else the state the next chunk starts from.
 */
export async function archivedStatesAt(db: Database, at: number, pairs: readonly Pair[]): Promise<ArchivedRevision[]> {
  if (pairs.length === 0) return [];
  const bucket = await startOf(db, sql`where first_revision <= ${at} order by first_revision desc`);
  // Before the first bucket, every pair's state is where its first chunk starts; no bucket kept,
  // no chunk kept: they are written and dropped together.
  const from = bucket ?? (await startOf(db, sql`order by starts_at`));
  if (!from) return [];
  // The chunk of each pair holding `at`: the newest starting at or before it, looked for from the
  // start of the hour of `at` through its bucket (no chunk holding `at` starts later), so one
  // partition's index answers however many partitions are kept.
  const hour = new Date(Math.floor(from.getTime() / PARTITION_MS) * PARTITION_MS);
  const near = bucket
    ? await chunkPerPair(
        db,
        pairs,
        sql`first_revision <= ${at} and starts_at >= ${hour.toISOString()} and starts_at <= ${bucket.toISOString()}`,
        sql`first_revision desc`,
      )
    : [];
  // A pair that did not change since the hour began: the state its next chunk starts from, looked
  // for in the hour after `at` first, where a live board's pairs all are, and only then in every
  // later partition: a search of them all probes each one's index, for each pair, however far.
  const soon = new Date(from.getTime() + PARTITION_MS);
  const rest = unfound(near, pairs);
  const next = await chunkPerPair(
    db,
    rest,
    sql`first_revision > ${at} and starts_at >= ${from.toISOString()} and starts_at < ${soon.toISOString()}`,
    sql`first_revision`,
  );
  const later = await chunkPerPair(
    db,
    unfound(next, rest),
    sql`first_revision > ${at} and starts_at >= ${soon.toISOString()}`,
    sql`first_revision`,
  );
  const states: ArchivedRevision[] = [];
  for (const row of [...near, ...next, ...later]) {
    const newest = newestThrough(row, at);
    if (newest && newest.state !== null) states.push(newest);
  }
  return states;
}

/** The start of the bucket this clause orders first, or null when none is kept. */
async function startOf(db: Database, clause: SQL): Promise<Date | null> {
  const [row] = rowsOf<{ starts_at: string | Date }>(
    await db.execute(sql`select starts_at from history_buckets ${clause} limit 1`),
  );
  return row ? new Date(row.starts_at) : null;
}

/** The pairs among `among` that have no chunk in `rows`. */
function unfound(rows: readonly ChunkRow[], among: readonly Pair[]): Pair[] {
  const found = new Set(rows.map((r) => `${r.event_id}\u0000${r.kind}`));
  return among.filter((p) => !found.has(`${p.eventId}\u0000${p.kind}`));
}

/** Each pair's one chunk meeting `where`, the first in `order`: one index search per pair. */
async function chunkPerPair(db: Database, pairs: readonly Pair[], where: SQL, order: SQL): Promise<ChunkRow[]> {
  if (pairs.length === 0) return [];
  return rowsOf<ChunkRow>(
    await db.execute(sql`
      select c.event_id, c.kind, c.starts_at, c.first_revision, c.payload
      from jsonb_to_recordset(${wanted(pairs)}::jsonb) as p(event_id text, kind text)
      cross join lateral (
        select ${CHUNK_COLUMNS} from history_chunks
        where event_id = p.event_id and kind = p.kind and ${where}
        order by ${order} limit 1
      ) c`),
  );
}

/**
 * The newest archived revision N such that N and every one before it were recorded at or before
 * `at`; null when `at` is at or after the end of the last archived bucket (the recent table knows).
 */
export async function archivedRevisionAt(db: Database, at: Date): Promise<number | null> {
  const [row] = rowsOf<{
    starts_at: string | Date;
    first_revision: string | number;
    last_revision: string | number;
    clock: Uint8Array;
    next_first: string | number | null;
  }>(
    await db.execute(sql`
      select b.starts_at, b.first_revision, b.last_revision, b.clock,
        (select min(first_revision) from history_buckets n where n.starts_at > b.starts_at) as next_first
      from history_buckets b where b.starts_at <= ${at.toISOString()}
      order by b.starts_at desc limit 1`),
  );
  // Before the first bucket kept: nothing yet, or older than the history holds whole.
  if (!row) return 0;
  const startsAt = new Date(row.starts_at);
  if (at.getTime() >= startsAt.getTime() + BUCKET_MS) {
    return row.next_first === null ? null : Number(row.next_first) - 1;
  }
  const times = decodeClock(toBytes(row.clock), startsAt);
  const later = times.findIndex((t) => t > at.getTime());
  if (later === -1) return row.next_first === null ? null : Number(row.next_first) - 1;
  return Number(row.first_revision) + later - 1;
}
