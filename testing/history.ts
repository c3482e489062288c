import type { Database } from "../lib/db/index.ts";
import { archiveClosedBuckets, dropArchiveBefore, pruneRevisions } from "../lib/feed/archive.ts";

const DAY_MS = 86_400_000;

/**
 * Moves every revision into the archive and prunes the recent table down to each event's newest,
 * as hours of running would: what is read of the past then comes from the archive.
 */
export async function archiveEverything(db: Database): Promise<void> {
  await archiveClosedBuckets(db, new Date(Date.now() + DAY_MS), 10_000);
  await pruneRevisions(db, new Date(Date.now() + DAY_MS));
}

/** Forgets every revision but each event's newest, as the history does once HISTORY_SECONDS has passed over them. */
export async function forgetHistory(db: Database): Promise<void> {
  await archiveEverything(db);
  await dropArchiveBefore(db, new Date(Date.now() + 2 * DAY_MS));
}
