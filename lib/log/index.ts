import { AsyncLocalStorage } from "node:async_hooks";
import { format } from "node:util";
import { pino, type DestinationStream, type Logger } from "pino";
import { loadLogSettings, type LogSettings } from "../config.ts";

// The service's one logger: JSON lines in production (LOG_FORMAT=json), readable lines in
// development (pretty), at LOG_LEVEL. Every line written while a request is served carries its
// request id, from the request's scope, without each function being handed a logger.

export type { Logger } from "pino";

type RequestScope = { requestId: string };

/** Readable lines for a terminal: time, level, message, then the fields as key=value. */
function prettyDestination(out: NodeJS.WritableStream): DestinationStream {
  return {
    write(line: string) {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        out.write(line);
        return;
      }
      const { time, level, msg, err, ...fields } = entry;
      const clock = typeof time === "string" ? time.slice(11, 23) : "";
      const rest = Object.entries(fields)
        .map(([name, value]) => `${name}=${typeof value === "string" ? value : JSON.stringify(value)}`)
        .join(" ");
      const error = err && typeof err === "object" && "stack" in err ? `\n${String(err.stack)}` : "";
      out.write(
        `${clock} ${String(level).toUpperCase().padEnd(5)} ${String(msg ?? "")}${rest ? ` ${rest}` : ""}${error}\n`,
      );
    },
  };
}

/** A logger with these settings, writing to `destination` (standard output by default). */
export function createLogger(
  settings: LogSettings,
  scope: AsyncLocalStorage<RequestScope>,
  destination?: DestinationStream,
): Logger {
  const json = destination ?? pino.destination({ dest: 1, sync: false });
  return pino(
    {
      level: settings.LOG_LEVEL,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => {
        const request = scope.getStore();
        return request ? { request_id: request.requestId } : {};
      },
    },
    settings.LOG_FORMAT === "pretty" ? prettyDestination(destination ? toWritable(destination) : process.stdout) : json,
  );
}

function toWritable(destination: DestinationStream): NodeJS.WritableStream {
  return { write: (chunk: string) => (destination.write(chunk), true) } as NodeJS.WritableStream;
}

// One logger and one request scope per process, on globalThis: the custom server and the code Next
// bundles for pages and route handlers are separate copies of this module in the same process.
const shared = globalThis as typeof globalThis & {
  __sportsDataLog?: { log: Logger; scope: AsyncLocalStorage<RequestScope> };
};

function instance(): { log: Logger; scope: AsyncLocalStorage<RequestScope> } {
  if (!shared.__sportsDataLog) {
    const scope = new AsyncLocalStorage<RequestScope>();
    shared.__sportsDataLog = { log: createLogger(loadLogSettings(process.env), scope), scope };
  }
  return shared.__sportsDataLog;
}

/** The process's logger (made at first use, after the environment is loaded). */
export function logger(): Logger {
  return instance().log;
}

/** Runs `work` as part of serving the request `requestId`: every line it logs carries the id. */
export function inRequest<T>(requestId: string, work: () => T): T {
  return instance().scope.run({ requestId }, work);
}

/**
 * Sends what other code writes with console.* (Next's own messages among it) through the logger,
 * so that every line of the process has one format.
 */
export function captureConsole(): void {
  const log = instance().log;
  console.log = console.info = (...args: unknown[]) => log.info(format(...args));
  console.warn = (...args: unknown[]) => log.warn(format(...args));
  console.error = (...args: unknown[]) => {
    const error = args.find((arg): arg is Error => arg instanceof Error);
    log.error(error ? { err: error } : {}, format(...args.filter((arg) => arg !== error)));
  };
  console.debug = (...args: unknown[]) => log.debug(format(...args));
}
