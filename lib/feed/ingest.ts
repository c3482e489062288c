import { eq } from "drizzle-orm";
import type { Database } from "../db/index.ts";
import { revisionCounter } from "../db/schema/index.ts";
import { feedChangeNotices, feedChanges, publishing, type EventChange } from "../bus/index.ts";
import type { Revision } from "./history.ts";
import { applyUpdates, checkLine, type BatchResult, type LineResult, type ValidLine } from "./ingest-rules.ts";
import { EventNames, loadCurrent, writeBatch } from "./ingest-store.ts";
import type { BatchLine } from "./ndjson.ts";

// The one path by which any change reaches stored state: the simulator and the providers' ingest
// endpoint both call applyBatch. A batch is one transaction; each line is applied or rejected on
// its own merits, and a rejected line changes nothing. The rules are in ingest-rules.ts, the
// reads and writes in ingest-store.ts.

export type { BatchResult, LineResult, RejectionCode } from "./ingest-rules.ts";
export { EventNames } from "./ingest-store.ts";

/** Lines that are already parsed objects (the simulator) skip JSON but not validation. */
export function linesOf(updates: unknown[]): BatchLine[] {
  return updates.map((value, i) => ({ line: i + 1, value }));
}

/**
 * Applies a batch in one transaction. `names` is what earlier batches on this database learned of
 * competitions' and sides' ids: whoever applies batches keeps one; without it each batch looks up
 * its names again.
 */
export async function applyBatch(
  db: Database,
  lines: BatchLine[],
  at: Date,
  names: EventNames = new EventNames(),
): Promise<BatchResult> {
  const results: LineResult[] = new Array(lines.length);
  const valid: ValidLine[] = [];
  lines.forEach((line, index) => {
    const checked = checkLine(line);
    if ("rejected" in checked) results[index] = checked.rejected;
    else valid.push({ index, update: checked.update, digest: checked.digest });
  });

  let committed: { changes: EventChange[]; revisions: Revision[] } = { changes: [], revisions: [] };
  const batchNames = names.batch();
  if (valid.length > 0) {
    committed = await db.transaction(async (tx) => {
      // The counter's row lock orders every ingest transaction, so revision numbers are handed
      // out in commit order: a reader that has seen revision N has seen every revision below it.
      const [counter] = await tx.select().from(revisionCounter).where(eq(revisionCounter.id, 1)).for("update");
      const current = await loadCurrent(
        tx,
        valid.map((v) => v.update),
      );
      const applied = applyUpdates(current, valid, lines, counter!.lastRevision, at.toISOString(), results);

      const dirty = [...current.values()].filter((c) => c.dirty);
      if (dirty.length === 0) return { changes: [], revisions: [] };
      await writeBatch(tx, batchNames, {
        events: dirty,
        lines: applied.applied,
        revisions: applied.revisions,
        lastRevision: applied.revision,
        // Delivered to every listening instance when, and only if, the transaction commits.
        then: publishing(feedChanges, feedChangeNotices(applied.changes)),
      });
      const revisions = applied.revisions.map((row): Revision => ({
        revision: row.revision,
        eventId: row.event_id,
        kind: row.kind,
        recordedAt: at,
        state: row.state,
      }));
      return { changes: applied.changes, revisions };
    });
    batchNames.commit();
  }

  const count = (status: LineResult["status"]) => results.filter((r) => r.status === status).length;
  return {
    applied: count("applied"),
    duplicate: count("duplicate"),
    rejected: count("rejected"),
    results,
    ...committed,
  };
}
