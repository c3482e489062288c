import { DATABASE_WAIT_MS, DatabaseWaitExceeded, withinDatabaseWait } from "../../db/wait.ts";
import { wallClockMs } from "../../clock.ts";
import { logger } from "../../log/index.ts";
import { ApiError } from "./errors.ts";

/**
 * What needs the database on the way in (a key not yet cached, a first count, a session) answers
 * 503 with Retry-After when the database fails or does not answer within DATABASE_WAIT_MS,
 * instead of a 500 or a request held until the client gives up: the client should simply try
 * again. A result already at hand is returned as it is, not wrapped in a promise: most requests
 * need no database, and each promise, timer and await on the way costs them.
 */
export function unlessDatabaseFails<T>(work: () => T | Promise<T>, what: string, notAfter?: number): T | Promise<T> {
  try {
    const result = work();
    if (!(result instanceof Promise)) return result;
    return withinDatabaseWait(result, notAfter ?? wallClockMs() + DATABASE_WAIT_MS).catch((error: unknown) =>
      unavailable(error, what),
    );
  } catch (error) {
    return unavailable(error, what);
  }
}

function unavailable(error: unknown, what: string): never {
  throw unavailableError(error, what);
}

/** The 503 of work the service could not do now (logged), or the ApiError the work threw itself. */
export function unavailableError(error: unknown, what: string): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof DatabaseWaitExceeded) logger().warn(`Could not ${what}: ${error.message}`);
  else logger().error({ err: error }, `Could not ${what}`);
  return new ApiError("unavailable", `The service cannot ${what} right now; try again in a few seconds.`, {
    headers: { "retry-after": "2" },
  });
}
