/** How long before a second's end a request may still reach the server in the next one (a loaded machine's worst). */
const END_MARGIN_MS = 250;

/** Sends one request, once the pace allows it; resolves with its answer. */
export type Pace = <T>(send: () => Promise<T>) => Promise<T>;

/**
 * Keeps a client within `perSecond` requests a second. The server's windows are wall-clock
 * seconds, and this machine's clock is the server's. A request is admitted somewhere between its
 * sending and its answer, so it counts in every second of that span: a slow answer that may have
 * been admitted in the next second leaves one place fewer there. Nothing goes in a second's last
 * END_MARGIN_MS.
 */
export function pacer(perSecond: number): Pace {
  if (perSecond === Infinity) return (send) => send();
  const counted = new Map<number, number>();
  const second = () => Math.floor(Date.now() / 1000);
  return async (send) => {
    for (;;) {
      const now = Date.now();
      if ((counted.get(second()) ?? 0) < perSecond && now % 1000 < 1000 - END_MARGIN_MS) break;
      await new Promise((resolve) => setTimeout(resolve, 1000 - (now % 1000) + 5));
    }
    const sentIn = second();
    for (const past of counted.keys()) if (past < sentIn) counted.delete(past);
    // Counted before it goes, so that concurrent senders see it.
    const count = (s: number) => counted.set(s, (counted.get(s) ?? 0) + 1);
    count(sentIn);
    try {
      return await send();
    } finally {
      for (let s = sentIn + 1; s <= second(); s++) count(s);
    }
  };
}
