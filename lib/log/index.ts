import { AsyncLocalStorage } from "node:async_hooks";
import { format, stripVTControlCharacters } from "node:util";
import { pino, type DestinationStream, type Logger } from "pino";
import { wallClockMs } from "../clock.ts";
import { loadLogSettings, type LogSettings } from "../config.ts";
import { processCell } from "../slot.ts";
import { maskCredentials } from "./credentials.ts";
import { loggedError } from "./safe-error.ts";

// The service's one logger: JSON lines in production (LOG_FORMAT=json), readable lines in
// development (pretty), at LOG_LEVEL. Every line written while a request is served carries its
// request id, from the request's scope, without each function being handed a logger.

export type { Logger } from "pino";

export type RequestScope = { requestId: string };

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

/** Lines gathered for up to `delayMs` (or `maxBytes`) and written at once: a write per line costs a request's CPU (docs/decisions/access-log.md). */
export function batched(
  out: { write(chunk: string): unknown },
  { delayMs = 25, maxBytes = 65_536 }: { delayMs?: number; maxBytes?: number } = {},
): DestinationStream & { flush(): void } {
  let lines: string[] = [];
  let bytes = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (lines.length === 0) return;
    const batch = lines.join("");
    lines = [];
    bytes = 0;
    out.write(batch);
  };
  return {
    write(line: string) {
      lines.push(line);
      bytes += line.length;
      if (bytes >= maxBytes) flush();
      // Unref'd: a line waiting is no reason to keep the process alive (exit flushes it).
      else timer ??= setTimeout(flush, delayMs).unref();
    },
    flush,
  };
}

/** Standard output, written off the main thread (sonic-boom), one batch per turn of the event loop. */
function standardOutput(): DestinationStream {
  const stdout = pino.destination({ dest: 1, sync: false });
  const lines = batched(stdout);
  process.once("exit", () => {
    lines.flush();
    try {
      stdout.flushSync();
    } catch {
      // Not open yet, or already closed: nothing more can be written.
    }
  });
  return lines;
}

// Made once per millisecond: under load many lines share one.
let isoAt = 0;
let iso = "";
function isoNow(): string {
  const now = wallClockMs();
  if (now !== isoAt) {
    isoAt = now;
    iso = new Date(now).toISOString();
  }
  return iso;
}

/** A logger with these settings, writing to `destination` (standard output by default). */
export function createLogger(
  settings: LogSettings,
  scope: AsyncLocalStorage<RequestScope>,
  destination?: DestinationStream,
): Logger {
  return createLogging(settings, scope, destination).log;
}

export type Logging = {
  log: Logger;
  /** Where JSON lines go, for the access lines written without pino; null for readable lines. */
  json: DestinationStream | null;
};

function createLogging(
  settings: LogSettings,
  scope: AsyncLocalStorage<RequestScope>,
  destination?: DestinationStream,
): Logging {
  const json = settings.LOG_FORMAT === "pretty" ? null : (destination ?? standardOutput());
  const log = pino(
    {
      level: settings.LOG_LEVEL,
      base: { pid: process.pid },
      timestamp: () => `,"time":"${isoNow()}"`,
      formatters: { level: (label) => ({ level: label }) },
      // Errors without the parameters of a failed query (passwords' and keys' hashes among them).
      serializers: { err: loggedError },
      mixin: () => {
        const request = scope.getStore();
        return request ? { request_id: request.requestId } : {};
      },
    },
    json ?? prettyDestination(destination ? toWritable(destination) : process.stdout),
  );
  return { log, json };
}

function toWritable(destination: DestinationStream): NodeJS.WritableStream {
  return { write: (chunk: string) => (destination.write(chunk), true) } as NodeJS.WritableStream;
}

// One logger and one request scope per process: the custom server's and Next's copies share them.
function instance(): Logging & { scope: AsyncLocalStorage<RequestScope> } {
  return processCell("logging", () => {
    const scope = new AsyncLocalStorage<RequestScope>();
    return { ...createLogging(loadLogSettings(process.env), scope), scope };
  });
}

/** The process's logger (made at first use, after the environment is loaded). */
export function logger(): Logger {
  return instance().log;
}

/** What the access line of one answer says (never the key itself: its id and hint). */
export type Access = {
  request_id: string;
  method: string;
  path: string;
  route: string;
  status: number;
  duration_ms: number;
  bytes: number;
  key_id?: string;
  key_hint?: string;
  user_id?: string;
  stream?: "opened";
};

/** The access line of one answer, at info: the bytes pino would write, without its generic serialiser. */
// A key pasted into a path (`/api/v1/svc_sk_…`, or percent-encoded) would be kept in every log store the line reaches.

export function logAccess(access: Access): void {
  const { log, json } = instance();
  if (!log.isLevelEnabled("info")) return;
  const path = maskCredentials(access.path, "[hidden]");
  if (path !== access.path) access = { ...access, path };
  if (!json) {
    const fields: Partial<Access> = { ...access };
    delete fields.request_id; // the request's scope adds it
    log.info(fields, "request");
    return;
  }
  json.write(accessLine(access));
}

/** An access line as pino writes it, with characters above U+00FF escaped so the line stays one-byte. */
export function accessLine(access: Access): string {
  let line =
    `{"level":"info","time":"${isoNow()}","pid":${process.pid},"request_id":${jsonString(access.request_id)}` +
    `,"method":${jsonString(access.method)},"path":${jsonString(access.path)},"route":${jsonString(access.route)}` +
    `,"status":${access.status},"duration_ms":${access.duration_ms},"bytes":${access.bytes}`;
  if (access.key_id !== undefined) line += `,"key_id":${jsonString(access.key_id)}`;
  if (access.key_hint !== undefined) line += `,"key_hint":${jsonString(access.key_hint)}`;
  if (access.user_id !== undefined) line += `,"user_id":${jsonString(access.user_id)}`;
  if (access.stream !== undefined) line += `,"stream":"${access.stream}"`;
  return `${line},"msg":"request"}\n`;
}

const WIDE = /[\u0100-\uffff]/;
// What JSON writes as it is and keeps the line one-byte: most values, quoted without
// JSON.stringify (about 0.1 µs a value, six a line, on every request).
const PLAIN = /^[^"\\\u0000-\u001f\u007f-\uffff]*$/;
// A key's hint comes with every request of the key; bounded, so invented paths cannot grow it.
const ESCAPED_MAX = 1_000;
const escaped = new Map<string, string>();

/** JSON.stringify with wider characters escaped, built from character codes: V8 keeps a replaced string two-byte. */
function jsonString(value: string): string {
  if (PLAIN.test(value)) return `"${value}"`;
  const known = escaped.get(value);
  if (known !== undefined) return known;
  const json = JSON.stringify(value);
  if (!WIDE.test(json)) return json;
  const codes: number[] = [];
  for (let i = 0; i < json.length; i++) {
    const code = json.charCodeAt(i);
    if (code <= 0xff) codes.push(code);
    else for (const c of `\\u${code.toString(16).padStart(4, "0")}`) codes.push(c.charCodeAt(0));
  }
  const result = String.fromCharCode(...codes);
  if (escaped.size >= ESCAPED_MAX) escaped.clear();
  escaped.set(value, result);
  return result;
}

/** Runs `work` as part of serving the request `requestId`: every line it logs carries the id. */
export function inRequest<T>(requestId: string, work: () => T): T {
  return instance().scope.run({ requestId }, work);
}

/** The id of the request being served here, if any (the request's scope). */
export function currentRequestId(): string | undefined {
  return instance().scope.getStore()?.requestId;
}

/**
 * Sends what other code writes with console.* (Next's own messages among it) through the logger,
 * so that every line of the process has one format.
 */
export function captureConsole(): void {
  const log = instance().log;
  // Next colours what it prints on a colour terminal; in a log line the codes are only noise.
  const text = (args: unknown[]) => stripVTControlCharacters(format(...args));
  console.log = console.info = (...args: unknown[]) => log.info(text(args));
  console.warn = (...args: unknown[]) => log.warn(text(args));
  console.error = (...args: unknown[]) => {
    const error = args.find((arg): arg is Error => arg instanceof Error);
    log.error(error ? { err: error } : {}, text(args.filter((arg) => arg !== error)));
  };
  console.debug = (...args: unknown[]) => log.debug(text(args));
}

/**
 * A line for the person at the terminal, written as it is on standard output and not as a log
 * record, in order with the log's lines: what is meant to be read once and not kept in the logs.
 */
export function printForOperator(line: string): void {
  const { json } = instance();
  if (json) json.write(`${line}\n`);
  else process.stdout.write(`${line}\n`);
}
