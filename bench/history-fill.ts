// Filling bench:history's database with hours or days of history, two ways that lay the data out
// alike:
//
// - `ingestFill`: every simulated second one ingest batch (applyBatch), and each simulated minute
//   the leader's archiving and pruning, as the service runs: about 50 minutes for a day.
// - `fastFill`: the same updates through the ingest's own rules (applyUpdates, pure) at full
//   speed, each closed bucket written by the archiver's own writer (writeBucket, the real codec)
//   from the states the recent table would have held; at the end the store's writers put the
//   events, the last minutes' revisions and feed lines where the ingest would have, the real
//   pruning runs, and the last `tailSeconds` go through applyBatch and the archiver as above.
//
// What differs: the recent table and feed_lines never held the archived hours, so their files
// carry none of the dead rows that pruning leaves behind.
import { performance } from "node:perf_hooks";
import { sql } from "drizzle-orm";
import { rowsOf, type Database } from "../lib/db/index.ts";
import type { RevisionKind } from "../lib/db/schema/index.ts";
import {
  archiveClosedBuckets,
  BUCKET_MS,
  bucketOf,
  pruneRevisions,
  writeBucket,
  type ArchivingRevision,
} from "../lib/feed/archive.ts";
import type { FullRevision } from "../lib/feed/archive-codec.ts";
import { applyBatch, linesOf } from "../lib/feed/ingest.ts";
import {
  applyUpdates,
  checkLine,
  type FeedLineRow,
  type LineResult,
  type RevisionRow,
  type ValidLine,
} from "../lib/feed/ingest-rules.ts";
import { EventNames, loadCurrent, writeEvents, writeFeedLines, writeRevisions } from "../lib/feed/ingest-store.ts";
import type { FeedUpdate } from "../lib/feed/schemas.ts";

/** The leader's minute: archive closed buckets, prune the recent table past 15 minutes. */
const RECENT_MS = 900_000;
const SETTLE_MS = 10_000;

export type Fill = {
  db: Database;
  t0: Date;
  /** The updates of simulated second `s` (1-based), one batch. */
  updatesAt: (s: number) => FeedUpdate[];
};

/** Time spent in applyBatch and in the leader's archiving, and how many seconds they covered. */
export type FillCost = { ingestMs: number; archiveMs: number; seconds: number };

const atSecond = (t0: Date, s: number) => new Date(t0.getTime() + s * 1000);

/** Seconds `from + 1` through `to`, each one applyBatch, archiving and pruning each minute. */
export async function ingestFill(fill: Fill, from: number, to: number, progress?: (s: number) => void) {
  const cost: FillCost = { ingestMs: 0, archiveMs: 0, seconds: to - from };
  for (let s = from + 1; s <= to; s++) {
    const at = atSecond(fill.t0, s);
    const started = performance.now();
    const result = await applyBatch(fill.db, linesOf(fill.updatesAt(s)), at);
    cost.ingestMs += performance.now() - started;
    if (result.rejected > 0) throw new Error(`second ${s}: ${result.rejected} updates refused`);
    if (s % 60 === 0) {
      const archiving = performance.now();
      await archiveClosedBuckets(fill.db, at);
      cost.archiveMs += performance.now() - archiving;
      await pruneRevisions(fill.db, new Date(at.getTime() - RECENT_MS));
      if (s % 900 === 0) progress?.(s);
    }
  }
  return cost;
}

/**
 * A state as the recent table hands it back: jsonb keeps an object's keys shorter first, then by
 * their bytes. The archiver encodes what it read, so the fast fill encodes the same.
 */
const asStored = new WeakMap<object, unknown>();
function stored(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const known = asStored.get(value);
  if (known !== undefined) return known;
  const result = Array.isArray(value)
    ? value.map(stored)
    : Object.fromEntries(
        Object.keys(value)
          .sort((a, b) => Buffer.byteLength(a) - Buffer.byteLength(b) || Buffer.compare(Buffer.from(a), Buffer.from(b)))
          .map((key) => [key, stored((value as Record<string, unknown>)[key])]),
      );
  asStored.set(value, result);
  return result;
}

type Pending = { row: RevisionRow; recordedAt: Date };
const pairKey = (eventId: string, kind: RevisionKind) => `${eventId}\u0000${kind}`;

/**
 * Seconds 1 through `seconds` as `ingestFill` would leave them, the first `seconds - tailSeconds`
 * (to a whole minute) at full speed; the events must exist (an opening batch) with nothing
 * archived yet. Returns the cost of the tail, which ran the service's own path.
 */
export async function fastFill(
  fill: Fill,
  seconds: number,
  tailSeconds: number,
  progress?: (s: number) => void,
): Promise<FillCost> {
  const { db, t0 } = fill;
  const switchAt = Math.max(0, Math.floor((seconds - tailSeconds) / 60) * 60);
  // The events as the ingest reads them, and the opening revisions, not archived yet.
  const opening = rowsOf<{
    revision: string | number;
    event_id: string;
    kind: RevisionKind;
    recorded_at: string | Date;
    state: unknown;
  }>(await db.execute(sql`select revision, event_id, kind, recorded_at, state from event_revisions order by revision`));
  const ids = [...new Set(opening.map((r) => r.event_id))];
  const current = await db.transaction((tx) =>
    loadCurrent(
      tx,
      ids.map((id) => ({ event_id: id, sequence: Number.MAX_SAFE_INTEGER })),
    ),
  );
  let lastRevision = opening.length ? Number(opening.at(-1)!.revision) : 0;
  // Revisions not archived yet, and those of the last minutes the recent table keeps.
  let pending: Pending[] = opening.map((r) => ({
    row: {
      revision: Number(r.revision),
      event_id: r.event_id,
      kind: r.kind,
      recorded_at: new Date(r.recorded_at).toISOString(),
      state: r.state,
    },
    recordedAt: new Date(r.recorded_at),
  }));
  let recent: Pending[] = [];
  // Each (event, kind)'s newest revision older than `recent`: pruning keeps it.
  const older = new Map<string, Pending>();
  const before = new Map<string, FullRevision>();
  const feedLines: FeedLineRow[] = [];
  const newestLine = new Map<string, FeedLineRow>();
  let archivedThrough = 0;
  let lastBucket: number | null = null;

  // As archiveNextBucket chooses a bucket and its revisions, from memory rather than the recent table.
  const archiveClosed = async (now: Date) => {
    while (pending.length > 0) {
      const after = lastBucket === null ? 0 : lastBucket + BUCKET_MS;
      const startsAt = new Date(Math.max(bucketOf(pending[0]!.recordedAt).getTime(), after));
      const endsAt = startsAt.getTime() + BUCKET_MS;
      if (endsAt > now.getTime() - SETTLE_MS) return;
      let end = pending.length;
      while (end > 0 && pending[end - 1]!.recordedAt.getTime() >= endsAt) end--;
      const taken = pending.slice(0, end);
      pending = pending.slice(end);
      const revisions: ArchivingRevision[] = taken.map(({ row, recordedAt }) => ({
        revision: row.revision,
        eventId: row.event_id,
        kind: row.kind,
        recordedAt,
        state: stored(row.state),
      }));
      await writeBucket(db, { startsAt, through: archivedThrough, revisions, before });
      for (const r of revisions) before.set(pairKey(r.eventId, r.kind), r);
      archivedThrough = revisions.at(-1)!.revision;
      lastBucket = startsAt.getTime();
    }
  };

  for (let s = 1; s <= switchAt; s++) {
    const at = atSecond(t0, s);
    const lines = linesOf(fill.updatesAt(s));
    const results: LineResult[] = new Array(lines.length);
    const valid: ValidLine[] = [];
    lines.forEach((line, index) => {
      const checked = checkLine(line);
      if ("rejected" in checked) throw new Error(`second ${s}: ${checked.rejected.message}`);
      valid.push({ index, update: checked.update, digest: checked.digest });
    });
    const applied = applyUpdates(current, valid, lines, lastRevision, at.toISOString(), results);
    if (results.some((r) => r.status !== "applied")) throw new Error(`second ${s}: an update was not applied`);
    lastRevision = applied.revision;
    // The next batch reads each event afresh, with none of this one's applied lines.
    for (const update of valid) {
      const event = current.get(update.update.event_id)!;
      current.set(update.update.event_id, { ...event, applied: new Map(), dirty: false });
    }
    for (const row of applied.revisions) {
      const revision = { row, recordedAt: at };
      pending.push(revision);
      recent.push(revision);
    }
    for (const line of applied.applied) {
      feedLines.push(line);
      newestLine.set(line.event_id, line);
    }
    if (s % 60 === 0) {
      await archiveClosed(at);
      // The recent table's window and two minutes more, for the real pruning to cut.
      const keepFrom = at.getTime() - RECENT_MS - 2 * BUCKET_MS;
      const kept = recent.findIndex((r) => r.recordedAt.getTime() >= keepFrom);
      for (const r of recent.slice(0, kept === -1 ? recent.length : kept))
        older.set(pairKey(r.row.event_id, r.row.kind), r);
      recent = kept === -1 ? [] : recent.slice(kept);
      if (feedLines.length > 0 && new Date(feedLines[0]!.applied_at).getTime() < keepFrom) {
        feedLines.splice(
          0,
          feedLines.findIndex((l) => new Date(l.applied_at).getTime() >= keepFrom),
        );
      }
      if (s % 900 === 0) progress?.(s);
    }
  }

  if (switchAt > 0) {
    // What the ingest would have left stored: each event now, its newest revision of each kind,
    // every revision and applied line of the last minutes.
    const rows = new Map<number, RevisionRow>();
    for (const r of [...older.values(), ...recent]) rows.set(r.row.revision, r.row);
    const lines = new Map<string, FeedLineRow>();
    for (const l of [...newestLine.values(), ...feedLines]) lines.set(`${l.event_id}\u0000${l.sequence}`, l);
    await db.transaction(async (tx) => {
      await writeEvents(tx, new EventNames().batch(), [...current.values()]);
      await writeFeedLines(tx, [...lines.values()]);
      const sorted = [...rows.values()].sort((a, b) => a.revision - b.revision);
      for (let i = 0; i < sorted.length; i += 5_000) await writeRevisions(tx, sorted.slice(i, i + 5_000));
      await tx.execute(sql`update revision_counter set last_revision = ${lastRevision} where id = 1`);
    });
    await pruneRevisions(db, new Date(atSecond(t0, switchAt).getTime() - RECENT_MS));
  }
  return ingestFill(fill, switchAt, seconds, progress);
}
