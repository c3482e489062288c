// How long a request waits for the database on its way in (its key, its first count, a session).
// A database that is down fails fast by itself; one that hangs (stopped, a network partition, a
// lock) would otherwise hold every request that needs it until the client gives up. Past the
// wait, the request is answered 503 with Retry-After, and work that would have counted it is
// told it came too late (see Meter.admit).
export const DATABASE_WAIT_MS = 2_000;

export class DatabaseWaitExceeded extends Error {
  override name = "DatabaseWaitExceeded";
  constructor(ms = DATABASE_WAIT_MS) {
    super(`the database did not answer within ${ms} ms`);
  }
}

/** `work`, or a rejection with DatabaseWaitExceeded once `notAfter` (epoch ms) has passed. */
export function withinDatabaseWait<T>(work: Promise<T>, notAfter: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new DatabaseWaitExceeded()), Math.max(0, notAfter - Date.now()));
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error as Error);
      },
    );
  });
}
