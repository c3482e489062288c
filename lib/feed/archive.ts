import { sql } from "drizzle-orm";
import { rowsOf, type Database } from "../db/index.ts";
import type { RevisionKind } from "../db/schema/index.ts";
import { encodeChunk, encodeClock, groupByEventKind, type FullRevision } from "./archive-codec.ts";

// Writing the archive, the history kept for days: the leader moves each closed bucket of time
// from the recent table (full states, minutes) into compact chunks, prunes the recent table of
// what the archive holds, and drops hourly partitions whole once they are older than
// HISTORY_SECONDS. Reads are in archive-reads.ts.

export const BUCKET_MS = 2 * 60_000;
export const PARTITION_MS = 60 * 60_000;
// A bucket is archived once no transaction can still commit a revision recorded in it.
const SETTLE_MS = 10_000;

export const bucketOf = (at: Date) => new Date(Math.floor(at.getTime() / BUCKET_MS) * BUCKET_MS);
const partitionName = (start: Date) => `history_chunks_p${Math.floor(start.getTime() / PARTITION_MS)}`;

type RecentRow = {
  revision: string | number;
  event_id: string;
  kind: RevisionKind;
  recorded_at: string | Date;
  state: unknown;
};

/**
 * Archives the closed buckets not yet archived, oldest first, each in one transaction; returns
 * how many. The recent table keeps what is archived until its own window passes.
 */
export async function archiveClosedBuckets(db: Database, now: Date, maxBuckets = 48): Promise<number> {
  let archived = 0;
  try {
    while (archived < maxBuckets && (await archiveNextBucket(db, now))) archived++;
  } catch (error) {
    if (!(error instanceof ArchiveMovedOn)) throw error;
  }
  return archived;
}

/** Another instance archived the same bucket first: nothing to do. */
class ArchiveMovedOn extends Error {}

async function archiveNextBucket(db: Database, now: Date): Promise<boolean> {
  const [counter] = rowsOf<{ archived_through: string | number; last_revision: string | number }>(
    await db.execute(sql`select archived_through, last_revision from revision_counter where id = 1`),
  );
  if (!counter) return false;
  const through = Number(counter.archived_through);
  const [next] = rowsOf<{ recorded_at: string | Date }>(
    await db.execute(sql`
      select recorded_at from event_revisions where revision > ${through} order by revision limit 1`),
  );
  if (!next) return false;
  const [previous] = rowsOf<{ starts_at: string | Date | null }>(
    await db.execute(sql`select max(starts_at) as starts_at from history_buckets`),
  );
  // A revision recorded in a bucket already archived (a clock stepped back) goes in the next one:
  // buckets stay in the order of their revisions.
  const after = previous?.starts_at ? new Date(previous.starts_at).getTime() + BUCKET_MS : 0;
  const startsAt = new Date(Math.max(bucketOf(new Date(next.recorded_at)).getTime(), after));
  const endsAt = new Date(startsAt.getTime() + BUCKET_MS);
  if (endsAt.getTime() > now.getTime() - SETTLE_MS) return false;
  // Every revision up to the last one recorded in the bucket: the range stays whole even if a
  // clock stepped back.
  const rows = rowsOf<RecentRow>(
    await db.execute(sql`
      select revision, event_id, kind, recorded_at, state from event_revisions
      where revision > ${through} and revision <= ${Number(counter.last_revision)}
        and revision <= (
          select max(revision) from event_revisions
          where revision > ${through} and recorded_at < ${endsAt.toISOString()})
      order by revision`),
  );
  const revisions = rows.map((row) => ({
    revision: Number(row.revision),
    eventId: row.event_id,
    kind: row.kind,
    recordedAt: new Date(row.recorded_at),
    state: row.state,
  }));
  const firsts = [...groupByEventKind(revisions).values()].map((group) => group[0]!);
  await writeBucket(db, { startsAt, through, revisions, before: await statesBefore(db, through, firsts) });
  return true;
}

/** A revision as the archive takes it: the recent table's row. */
export type ArchivingRevision = FullRevision & { eventId: string; kind: RevisionKind };

/**
 * Writes one bucket of the archive in one transaction: its revisions after `through` (a contiguous
 * range, in order) as one chunk per event and kind, each from its state `before` (keyed
 * `event\u0000kind`; none: the first), and the bucket's clock; moves `archived_through` on.
 */
export async function writeBucket(
  db: Database,
  bucket: {
    startsAt: Date;
    through: number;
    revisions: readonly ArchivingRevision[];
    before: ReadonlyMap<string, FullRevision>;
  },
): Promise<void> {
  const { startsAt, through, revisions, before } = bucket;
  const chunks = [...groupByEventKind(revisions).values()].map((group) => {
    const { eventId, kind, revision } = group[0]!;
    return {
      event_id: eventId,
      kind,
      starts_at: startsAt.toISOString(),
      first_revision: revision,
      last_revision: group.at(-1)!.revision,
      payload: encodeChunk(before.get(`${eventId}\u0000${kind}`) ?? null, group, startsAt).toString("base64"),
    };
  });
  const first = revisions[0]!.revision;
  const last = revisions.at(-1)!.revision;
  await db.transaction(async (tx) => {
    await ensurePartition(tx, startsAt);
    await tx.execute(sql`
      insert into history_chunks (event_id, kind, starts_at, first_revision, last_revision, payload)
      select event_id, kind, starts_at, first_revision, last_revision, decode(payload, 'base64')
      from jsonb_to_recordset(${JSON.stringify(chunks)}::jsonb) as r(event_id text, kind text, starts_at timestamptz,
        first_revision bigint, last_revision bigint, payload text)`);
    const clock = encodeClock(
      revisions.map((r) => r.recordedAt),
      startsAt,
    ).toString("base64");
    await tx.execute(sql`
      insert into history_buckets (starts_at, first_revision, last_revision, clock)
      values (${startsAt.toISOString()}, ${first}, ${last}, decode(${clock}, 'base64'))`);
    // Another instance that archived the same range first wins; this one's transaction is undone.
    const updated = rowsOf<{ id: number }>(
      await tx.execute(sql`
        update revision_counter set archived_through = ${last}
        where id = 1 and archived_through = ${through} returning id`),
    );
    if (updated.length === 0) throw new ArchiveMovedOn();
  });
}

/**
 * The state of each (event, kind) before the first of its revisions in the bucket: its newest
 * revision archived already. The recent table still holds it, as pruning keeps the newest of
 * each event and kind and deletes only what the archive holds.
 */
async function statesBefore(
  db: Database,
  through: number,
  firsts: { eventId: string; kind: RevisionKind }[],
): Promise<Map<string, FullRevision>> {
  if (firsts.length === 0) return new Map();
  const pairs = JSON.stringify(firsts.map((f) => ({ event_id: f.eventId, kind: f.kind })));
  const rows = rowsOf<{
    event_id: string;
    kind: string;
    revision: string | number;
    recorded_at: string | Date;
    state: unknown;
  }>(
    await db.execute(sql`
      select p.event_id, p.kind, r.revision, r.recorded_at, r.state
      from jsonb_to_recordset(${pairs}::jsonb) as p(event_id text, kind text)
      cross join lateral (
        select revision, recorded_at, state from event_revisions
        where event_id = p.event_id and kind = p.kind and revision <= ${through}
        order by recorded_at desc, revision desc
        limit 1
      ) r`),
  );
  return new Map(
    rows.map((row) => [
      `${row.event_id}\u0000${row.kind}`,
      { revision: Number(row.revision), recordedAt: new Date(row.recorded_at), state: row.state },
    ]),
  );
}

async function ensurePartition(tx: Database, at: Date): Promise<void> {
  const start = new Date(Math.floor(at.getTime() / PARTITION_MS) * PARTITION_MS);
  const end = new Date(start.getTime() + PARTITION_MS);
  await tx.execute(
    sql.raw(
      `create table if not exists ${partitionName(start)} partition of history_chunks ` +
        `for values from ('${start.toISOString()}') to ('${end.toISOString()}')`,
    ),
  );
}

/**
 * Drops the partitions wholly older than `before`, with their buckets, and moves where the
 * archive is whole from past them; returns how many went. No row is deleted one by one.
 */
export async function dropArchiveBefore(db: Database, before: Date): Promise<number> {
  const partitions = rowsOf<{ name: string }>(
    await db.execute(sql`
      select c.relname as name from pg_inherits i
      join pg_class c on c.oid = i.inhrelid
      join pg_class p on p.oid = i.inhparent
      where p.relname = 'history_chunks'`),
  );
  const aged = partitions
    .map((p) => ({ name: p.name, start: Number(p.name.replace("history_chunks_p", "")) * PARTITION_MS }))
    .filter((p) => Number.isFinite(p.start) && p.start + PARTITION_MS <= before.getTime())
    .sort((a, b) => a.start - b.start);
  if (aged.length === 0) return 0;
  const bound = new Date(aged.at(-1)!.start + PARTITION_MS).toISOString();
  await db.transaction(async (tx) => {
    await tx.execute(sql`
      update revision_counter set archive_whole_from = greatest(
        archive_whole_from,
        (select coalesce(max(last_revision), 0) from history_buckets where starts_at < ${bound}))
      where id = 1`);
    await tx.execute(sql`delete from history_buckets where starts_at < ${bound}`);
    for (const partition of aged) await tx.execute(sql.raw(`drop table if exists ${partition.name}`));
  });
  return aged.length;
}

/**
 * Deletes revisions older than `before` that the archive holds, except the newest of each event
 * and kind at or before it: that one is the state "as of" any moment since, so it must stay.
 */
export async function pruneRevisions(db: Database, before: Date): Promise<number> {
  return db.transaction(async (tx) => {
    const rows = rowsOf<{ revision: string | number }>(
      await tx.execute(sql`
        delete from event_revisions r
        where r.recorded_at < ${before.toISOString()}
          and r.revision <= (select archived_through from revision_counter where id = 1)
          and exists (
            select 1 from event_revisions n
            where n.event_id = r.event_id and n.kind = r.kind
              and n.recorded_at <= ${before.toISOString()}
              and (n.recorded_at, n.revision) > (r.recorded_at, r.revision)
          )
        returning r.revision`),
    );
    if (rows.length > 0) {
      // The state at a revision recorded before the cut may have lost a row, not only at those
      // deleted: the history is whole from the last revision recorded before it.
      await tx.execute(sql`
        update revision_counter set pruned_through = greatest(
          pruned_through,
          (select coalesce(max(revision), 0) from event_revisions
            where recorded_at < ${before.toISOString()} and revision <= archived_through)
        )
        where id = 1`);
    }
    return rows.length;
  });
}
