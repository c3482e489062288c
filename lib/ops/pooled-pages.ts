// V8 keeps the heap pages a collection empties in a pool, mapped and resident, for its next
// allocations, and gives them back to the system only on a memory-reducing collection or under
// memory pressure. Start-up (Next's module graph loaded and compiled) leaves about 200 MB there
// that a serving process may not need again for hours (docs/operations.md, "Memory"), so the
// server takes one such collection, through an inspector session of its own (no port is opened),
// once it has started and before it listens.

/** What one memory-reducing collection gave back: the process's RSS before and after, and its time. */
export type Released = { rssBefore: number; rssAfter: number; ms: number };

/** One memory-reducing collection: V8's pooled pages are given back. Null where Node has no inspector. */
export async function releasePooledPages(): Promise<Released | null> {
  let inspector: typeof import("node:inspector/promises");
  try {
    inspector = await import("node:inspector/promises");
  } catch {
    return null; // a Node built without the inspector
  }
  const rssBefore = process.memoryUsage.rss();
  const started = performance.now();
  const session = new inspector.Session();
  session.connect();
  try {
    await session.post("HeapProfiler.collectGarbage");
  } finally {
    session.disconnect();
  }
  return { rssBefore, rssAfter: process.memoryUsage.rss(), ms: performance.now() - started };
}
