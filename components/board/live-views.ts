// A console member may hold only a few live views (streams) at once; a page over that limit waits
// for one to close. Each open stream of this browser holds a Web Lock named after itself, which
// the browser releases when the stream closes, and when its tab closes or crashes too, so a waiting
// page learns at once that a place may be free instead of asking the server again and again.
// Without Web Locks (an insecure origin) the waiting page relies on its timer alone.

const PREFIX = "live-view:";

/** The longest a page over the limit waits before asking again on its own. */
const LONGEST_REFUSED_PAUSE_MS = 60_000;
/** Retry-After when a refusal does not send one. */
const DEFAULT_RETRY_AFTER_SECONDS = 5;

/**
 * How long to wait after the `refusals`-th refusal in a row (0 for the first): never less than the
 * server's Retry-After, doubling while refusals repeat, up to a minute, with a little jitter so
 * that pages refused together do not ask again together.
 */
export function refusedPause(retryAfterSeconds: number | null, refusals: number, random = Math.random()): number {
  const base = (retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS) * 1_000;
  const pause = Math.min(LONGEST_REFUSED_PAUSE_MS, base * 2 ** Math.min(refusals, 10));
  return Math.max(base, pause) * (1 + random / 5);
}

const locks = (): LockManager | undefined =>
  typeof navigator === "undefined" ? undefined : (navigator.locks as LockManager | undefined);

/** Holds a lock for one open stream; call the result when the stream closes. */
export function holdLiveView(): () => void {
  const manager = locks();
  if (!manager) return () => {};
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const name = `${PREFIX}${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  manager.request(name, () => held).catch(() => {});
  return release;
}

/**
 * Resolves when one of the streams this browser holds open now closes, or when `signal` aborts;
 * never when there is none to wait for.
 */
export async function liveViewClosed(signal: AbortSignal): Promise<void> {
  const manager = locks();
  if (!manager) return never(signal);
  const { held = [] } = await manager.query();
  const names = held.map((lock) => lock.name ?? "").filter((name) => name.startsWith(PREFIX));
  if (names.length === 0) return never(signal);
  const done = new AbortController();
  const stop = () => done.abort();
  signal.addEventListener("abort", stop, { once: true });
  try {
    // Granted once its holder lets go; released again at once, as nothing is done under it.
    await Promise.any(names.map((name) => manager.request(name, { signal: done.signal }, () => undefined)));
  } catch {
    // Every wait was aborted: the caller stopped waiting.
  } finally {
    signal.removeEventListener("abort", stop);
    done.abort();
  }
}

function never(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
