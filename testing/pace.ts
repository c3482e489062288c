/** How long before a second's end a request may still reach the server in the next one (a loaded machine's worst). */
const END_MARGIN_MS = 250;

/**
 * Keeps a client within `perSecond` requests a second: the returned function resolves when the
 * next request may go. The server's windows are wall-clock seconds, and this machine's clock is
 * the server's. Nothing goes in a second's last END_MARGIN_MS: a request sent then may reach the
 * server in the next second, and be one more than that second allows.
 */
export function pacer(perSecond: number): () => Promise<void> {
  if (perSecond === Infinity) return () => Promise.resolve();
  let second = 0;
  let sent = 0;
  return async () => {
    for (;;) {
      const now = Date.now();
      const current = Math.floor(now / 1000);
      if (current !== second) {
        second = current;
        sent = 0;
      }
      if (sent < perSecond && now % 1000 < 1000 - END_MARGIN_MS) {
        sent++;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 1000 - (now % 1000) + 5));
    }
  };
}
