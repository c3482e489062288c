import type { FeedMirror } from "../../feed/mirror.ts";

// Built answers per view of the feed, dropped as soon as the view changes: between two changes
// every request for the same list or board is served the same bytes.
const MAX_ENTRIES = 2_000;
const caches = new WeakMap<FeedMirror, { version: number; entries: Map<string, unknown> }>();

export function cachedOn<T>(view: FeedMirror, key: string, build: () => T): T {
  let cache = caches.get(view);
  if (!cache || cache.version !== view.version) {
    cache = { version: view.version, entries: new Map() };
    caches.set(view, cache);
  }
  if (cache.entries.has(key)) return cache.entries.get(key) as T;
  const value = build();
  // Cursors make the set of keys open-ended; a bound keeps memory flat whatever clients send.
  if (cache.entries.size >= MAX_ENTRIES) cache.entries.clear();
  cache.entries.set(key, value);
  return value;
}
