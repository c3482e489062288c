/**
 * Keeps a client within `perSecond` requests a second: the returned function resolves when the
 * next request may go. The server's windows are wall-clock seconds, and this machine's clock is
 * the server's.
 */
export function pacer(perSecond: number): () => Promise<void> {
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
      if (sent < perSecond) {
        sent++;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 1000 - (now % 1000) + 5));
    }
  };
}
