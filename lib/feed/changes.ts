import type { RevisionKind } from "../db/schema/index.ts";

/** The PostgreSQL NOTIFY channel of committed feed changes. */
export const FEED_CHANNEL = "feed_changes";

/** What changed, small enough to travel in a notification: readers fetch the state themselves. */
export type EventChange = { eventId: string; revision: number; kinds: RevisionKind[] };

// NOTIFY payloads must stay under 8,000 bytes; a batch's changes are split to fit.
const PAYLOAD_LIMIT = 7_000;

export function encodeChanges(changes: EventChange[]): string[] {
  const payloads: string[] = [];
  let chunk: [string, number, string][] = [];
  let size = 2;
  for (const change of changes) {
    const entry: [string, number, string] = [change.eventId, change.revision, change.kinds.map((k) => k[0]).join("")];
    const entrySize = JSON.stringify(entry).length + 1;
    if (size + entrySize > PAYLOAD_LIMIT && chunk.length > 0) {
      payloads.push(JSON.stringify(chunk));
      chunk = [];
      size = 2;
    }
    chunk.push(entry);
    size += entrySize;
  }
  if (chunk.length > 0) payloads.push(JSON.stringify(chunk));
  return payloads;
}

const KIND_BY_LETTER: Record<string, RevisionKind> = { e: "event", m: "markets", l: "lineups" };

export function decodeChanges(payload: string): EventChange[] {
  const entries = JSON.parse(payload) as [string, number, string][];
  return entries.map(([eventId, revision, letters]) => ({
    eventId,
    revision,
    kinds: [...letters].flatMap((letter) => KIND_BY_LETTER[letter] ?? []),
  }));
}
