import { describe, expect, it } from "vitest";
import type { Database } from "../../db/index.ts";
import { RequestLogRecorder, type AnsweredRequest } from "./recorder.ts";

// What the recorder keeps of the answers it is told of, and what it writes: a database that only
// collects the rows of each write (the rows travel as the statement's one jsonb parameter).

function collecting() {
  const writes: { request_id: string; status: number }[][] = [];
  const db = {
    execute: async (query: { queryChunks: unknown[] }) => {
      const json = query.queryChunks.find((chunk) => typeof chunk === "string" && chunk.startsWith("[{"));
      writes.push(JSON.parse(json as string));
    },
  } as unknown as Database;
  return { db, writes };
}

const MINUTE = 60_000;
const start = Date.UTC(2026, 10, 27, 12, 0, 0);
let counter = 0;
const answer = (keyId: string, status: number, at = start): AnsweredRequest => ({
  orgId: "org_1",
  keyId,
  at,
  method: "GET",
  path: "/api/v1/events",
  query: new URLSearchParams(),
  status,
  code: status >= 400 ? "not_found" : null,
  latencyMs: 1,
  requestId: `req_${++counter}`,
});

describe("the request log's recorder", () => {
  it("keeps every refused answer and the first admitted one of each key in each minute", async () => {
    const { db, writes } = collecting();
    const recorder = new RequestLogRecorder(db);
    const kept = [
      answer("key_a", 200), // first of key_a's minute
      answer("key_b", 200), // first of key_b's
      answer("key_a", 404, start + 1000),
      answer("key_a", 503, start + 2000),
      answer("key_a", 200, start + MINUTE), // the next minute's first
    ];
    const skipped = [answer("key_a", 200, start + 10), answer("key_a", 304, start + 59_999)];
    for (const a of [kept[0]!, kept[1]!, skipped[0]!, kept[2]!, kept[3]!, skipped[1]!, kept[4]!]) recorder.record(a);
    await recorder.close();
    expect(writes.flat().map((row) => row.request_id)).toEqual(kept.map((a) => a.requestId));
    expect(writes).toHaveLength(1);
  });

  it("keeps at most so many refused answers of a key in a minute, and counts the rest", async () => {
    const { db, writes } = collecting();
    const recorder = new RequestLogRecorder(db, { refusedPerMinute: 3 });
    for (let i = 0; i < 5; i++) recorder.record(answer("key_a", 429, start + i));
    recorder.record(answer("key_b", 429, start + 5));
    recorder.record(answer("key_a", 429, start + MINUTE));
    await recorder.close();
    expect(writes.flat()).toHaveLength(5);
    expect(recorder.dropped).toBe(2);
  });

  it("writes a large buffer in statements of 500 rows", async () => {
    const { db, writes } = collecting();
    const recorder = new RequestLogRecorder(db, { refusedPerMinute: 2000 });
    for (let i = 0; i < 1200; i++) recorder.record(answer("key_a", 404, start + i));
    await recorder.close();
    expect(writes.map((rows) => rows.length)).toEqual([500, 500, 200]);
  });

  it("keeps a failed write's rows for the next, within the buffer's bound", async () => {
    let failing = true;
    const written: unknown[] = [];
    const db = {
      execute: async () => {
        if (failing) throw new Error("database away");
        written.push(1);
      },
    } as unknown as Database;
    const recorder = new RequestLogRecorder(db, { bufferMax: 2 });
    recorder.record(answer("key_a", 404));
    recorder.record(answer("key_a", 404));
    await recorder.flush();
    recorder.record(answer("key_a", 404));
    expect(recorder.dropped).toBe(1);
    failing = false;
    await recorder.close();
    expect(written).toHaveLength(1);
  });
});
