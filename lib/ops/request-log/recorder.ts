import { sql } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { logger } from "../../log/index.ts";
import { redactedTarget } from "./redact.ts";

/** What the pipeline knows of an answer once it is sent (lib/api/index.ts). */
export type AnsweredRequest = {
  orgId: string;
  keyId: string;
  at: number;
  method: string;
  path: string;
  query: Iterable<[string, string]>;
  status: number;
  code: string | null;
  latencyMs: number;
  requestId: string;
};

type Row = {
  org_id: string;
  key_id: string;
  at: string;
  method: string;
  path: string;
  status: number;
  code: string | null;
  latency_ms: number;
  request_id: string;
};

/** How often the buffer is written, and how many rows it holds at most between two writes. */
export const FLUSH_EVERY_MS = 1000;
export const BUFFER_MAX = 5000;
/** The refused requests logged per key and minute at most: a client retrying in a loop is not a log's worth. */
export const REFUSED_PER_MINUTE = 600;
const ROWS_PER_STATEMENT = 500;

/**
 * The request log's writer, one per instance. `keeps` and `add` run on the request path and only
 * decide and buffer: every refused answer (status 400 and up) is kept, up to REFUSED_PER_MINUTE per key
 * and minute (a client hammering a 429 or a revoked key writes no more than that), and of the
 * admitted ones the first of each key in each minute (per instance), so a busy key leaves at most
 * 1,440 samples a day and a quiet one shows every request. The buffer is written every second, off
 * the request path; when the database is away it keeps at most BUFFER_MAX rows
 * and drops (and counts) the rest, since a log line is worth less than the memory it would take.
 */
export class RequestLogRecorder {
  private buffer: Row[] = [];
  private minute = -1;
  private sampledThisMinute = new Set<string>();
  private refusedThisMinute = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | null = null;
  private droppedRows = 0;

  private readonly db: Database;
  private readonly flushEveryMs: number;
  private readonly bufferMax: number;
  private readonly refusedPerMinute: number;

  constructor(db: Database, options: { flushEveryMs?: number; bufferMax?: number; refusedPerMinute?: number } = {}) {
    this.db = db;
    this.flushEveryMs = options.flushEveryMs ?? FLUSH_EVERY_MS;
    this.bufferMax = options.bufferMax ?? BUFFER_MAX;
    this.refusedPerMinute = options.refusedPerMinute ?? REFUSED_PER_MINUTE;
  }

  /**
   * Whether an answer of this key and status at `at` is to be kept: a refused one within the key's
   * allowance for the minute, or the key's first admitted one of the minute. Asked before the
   * answer is described, so the admitted requests that are not kept cost no allocation.
   */
  keeps(keyId: string, status: number, at: number): boolean {
    return status < 400 ? this.firstThisMinute(keyId, at) : this.refusedRoom(keyId, at);
  }

  /** Records an answer: for the pipeline, after `keeps` said yes. */
  add(answer: AnsweredRequest): void {
    if (this.buffer.length >= this.bufferMax) {
      this.droppedRows += 1;
      return;
    }
    this.buffer.push({
      org_id: answer.orgId,
      key_id: answer.keyId,
      at: new Date(answer.at).toISOString(),
      method: answer.method.slice(0, 16),
      path: redactedTarget(answer.path, answer.query),
      status: answer.status,
      code: answer.code,
      latency_ms: Math.round(answer.latencyMs),
      request_id: answer.requestId,
    });
  }

  /** `keeps`, then `add`. */
  record(answer: AnsweredRequest): void {
    if (this.keeps(answer.keyId, answer.status, answer.at)) this.add(answer);
  }

  private turnMinute(at: number): void {
    const minute = Math.floor(at / 60_000);
    if (minute === this.minute) return;
    this.minute = minute;
    this.sampledThisMinute = new Set();
    this.refusedThisMinute = new Map();
  }

  private firstThisMinute(keyId: string, at: number): boolean {
    this.turnMinute(at);
    if (this.sampledThisMinute.has(keyId)) return false;
    this.sampledThisMinute.add(keyId);
    return true;
  }

  private refusedRoom(keyId: string, at: number): boolean {
    this.turnMinute(at);
    const logged = this.refusedThisMinute.get(keyId) ?? 0;
    if (logged >= this.refusedPerMinute) {
      this.droppedRows += 1;
      return false;
    }
    this.refusedThisMinute.set(keyId, logged + 1);
    return true;
  }

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.flushEveryMs);
    this.timer.unref();
  }

  /** Rows not logged: over a key's refused requests of the minute, or the buffer full. */
  get dropped(): number {
    return this.droppedRows;
  }

  /** Writes what is buffered, one write at a time; a failed write keeps its rows for the next. */
  flush(): Promise<void> {
    if (this.writing) return this.writing;
    if (this.buffer.length === 0) return Promise.resolve();
    const rows = this.buffer;
    this.buffer = [];
    this.writing = this.write(rows).finally(() => {
      this.writing = null;
    });
    return this.writing;
  }

  // A statement per ROWS_PER_STATEMENT rows: on PGlite on the main thread (PGLITE_THREAD=main) a
  // statement holds the event loop while it runs, so none runs long. What a failure left unwritten goes back in front of the buffer.
  private async write(rows: Row[]): Promise<void> {
    let from = 0;
    try {
      for (; from < rows.length; from += ROWS_PER_STATEMENT) {
        await writeRows(this.db, rows.slice(from, from + ROWS_PER_STATEMENT));
      }
    } catch (error) {
      const left = rows.slice(from);
      logger().warn({ err: error, rows: left.length }, "Writing the request log failed; trying again");
      const room = Math.max(0, this.bufferMax - this.buffer.length);
      this.droppedRows += Math.max(0, left.length - room);
      this.buffer = [...left.slice(0, room), ...this.buffer];
    }
  }

  /** Stops the timer and writes the last rows (after any write under way). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    if (this.writing) await this.writing;
    await this.flush();
  }
}

// One statement for the rows: they travel as one jsonb parameter. A key deleted meanwhile is
// skipped rather than failing the batch.
async function writeRows(db: Database, rows: Row[]): Promise<void> {
  await db.execute(sql`
    insert into request_log (org_id, key_id, at, method, path, status, code, latency_ms, request_id)
    select t.org_id, t.key_id, t.at, t.method, t.path, t.status, t.code, t.latency_ms, t.request_id
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as t(
      org_id text, key_id text, at timestamptz, method text, path text, status smallint, code text,
      latency_ms integer, request_id text)
    where exists (select 1 from api_keys k where k.id = t.key_id)`);
}
