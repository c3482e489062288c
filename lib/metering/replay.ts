import { eq, sql } from "drizzle-orm";
import { rowsOf, type Database } from "../db/index.ts";
import { meterJournals } from "../db/schema/index.ts";
import { logger } from "../log/index.ts";
import { claimOrphans, readJournal, removeJournalFile, type Journal } from "./journal.ts";
import { addTally, count, merge, type Tally } from "./tally.ts";

// Journal lines read back into the database: those of instances that ended, and those of this one
// that the database lost.

export function merged(a: Tally, b: Tally): Tally {
  const result: Tally = new Map();
  merge(result, a);
  merge(result, b);
  return result;
}

/**
 * Lines this instance flushed that the database no longer has: its asynchronous commits are lost
 * when PostgreSQL itself crashes before writing them. The journal row then says less than we last
 * committed, and those lines are read back from the journal and added again.
 */
export async function lostLines(tx: Pick<Database, "execute">, journals: Journal[]): Promise<Tally> {
  const lost: Tally = new Map();
  const flushed = journals.filter((j) => j.flushedBytes > 0);
  if (flushed.length === 0) return lost;
  const rows = rowsOf<{ id: string; flushed_bytes: string | number }>(
    await tx.execute(
      sql`select id, flushed_bytes from meter_journals where id in ${flushed.map((j) => j.id)} for update`,
    ),
  );
  const stored = new Map(rows.map((r) => [r.id, Number(r.flushed_bytes)]));
  for (const journal of flushed) {
    const from = stored.get(journal.id) ?? 0;
    if (from >= journal.flushedBytes) continue;
    logger().warn(
      { journal: journal.id },
      "Metering: the database lost counts it had committed; adding them again from the journal",
    );
    for (const record of readJournal(journal.file, from, journal.flushedBytes).records)
      count(lost, record.keyId, record.at);
  }
  return lost;
}

/** Replays every journal in `dir` whose process is gone; returns the requests it added. */
export async function replayOrphans(db: Database, dir: string, own?: ReadonlySet<string>): Promise<number> {
  let added = 0;
  for (const orphan of claimOrphans(dir, own)) {
    const [row] = rowsOf<{ flushed_bytes: string | number }>(
      await db.execute(sql`select flushed_bytes from meter_journals where id = ${orphan.id}`),
    );
    const { records, end } = readJournal(orphan.file, Number(row?.flushed_bytes ?? 0));
    const tally: Tally = new Map();
    for (const record of records) count(tally, record.keyId, record.at);
    // A synchronous commit: the file is deleted right after it.
    await db.transaction((tx) => addTally(tx, tally, [{ id: orphan.id, flushedBytes: end }]));
    removeJournalFile(orphan.file);
    await db.delete(meterJournals).where(eq(meterJournals.id, orphan.id));
    added += records.length;
  }
  return added;
}
