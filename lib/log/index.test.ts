import { AsyncLocalStorage } from "node:async_hooks";
import { describe, expect, it } from "vitest";
import { accessLine, batched, createLogger } from "./index.ts";

function capture() {
  const lines: string[] = [];
  return { lines, destination: { write: (line: string) => void lines.push(line) } };
}

describe("the logger", () => {
  it("writes JSON lines with the level's name, and the request id of the request being served", async () => {
    const scope = new AsyncLocalStorage<{ requestId: string }>();
    const { lines, destination } = capture();
    const log = createLogger({ LOG_FORMAT: "json", LOG_LEVEL: "info" }, scope, destination);
    log.info("outside");
    await scope.run({ requestId: "req_1" }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      log.warn({ key_id: "k1" }, "inside, after an await");
    });
    log.debug("below the level");
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({ level: "info", msg: "outside" });
    expect(entries[0]).not.toHaveProperty("request_id");
    expect(entries[1]).toMatchObject({
      level: "warn",
      msg: "inside, after an await",
      request_id: "req_1",
      key_id: "k1",
    });
    expect(new Date(String(entries[1]!.time)).toISOString()).toBe(entries[1]!.time);
  });

  it("keeps an error's stack in the line", () => {
    const { lines, destination } = capture();
    const log = createLogger({ LOG_FORMAT: "json", LOG_LEVEL: "info" }, new AsyncLocalStorage(), destination);
    log.error({ err: new Error("boom") }, "it failed");
    const entry = JSON.parse(lines[0]!) as { err: { message: string; stack: string } };
    expect(entry.err.message).toBe("boom");
    expect(entry.err.stack).toMatch(/Error: boom\n\s+at /);
  });

  it("writes readable lines when asked for the pretty format", () => {
    const { lines, destination } = capture();
    const log = createLogger({ LOG_FORMAT: "pretty", LOG_LEVEL: "info" }, new AsyncLocalStorage(), destination);
    log.info({ status: 200, path: "/api/v1/events" }, "request");
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  request pid=\d+ status=200 path=\/api\/v1\/events\n$/);
  });
});

describe("batched", () => {
  it("writes the lines of a few milliseconds in one write, in order", async () => {
    const writes: string[] = [];
    const out = batched({ write: (chunk: string) => writes.push(chunk) }, { delayMs: 5 });
    out.write('{"msg":"a"}\n');
    await new Promise((resolve) => setImmediate(resolve));
    out.write('{"msg":"b…"}\n');
    expect(writes).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(writes).toEqual(['{"msg":"a"}\n{"msg":"b…"}\n']);
    out.write('{"msg":"c"}\n');
    out.flush();
    expect(writes).toEqual(['{"msg":"a"}\n{"msg":"b…"}\n', '{"msg":"c"}\n']);
  });

  it("writes at once when the lines waiting reach maxBytes", () => {
    const writes: string[] = [];
    const out = batched({ write: (chunk: string) => writes.push(chunk) }, { delayMs: 60_000, maxBytes: 20 });
    out.write('{"msg":"first"}\n');
    expect(writes).toEqual([]);
    out.write('{"msg":"second"}\n');
    expect(writes).toEqual(['{"msg":"first"}\n{"msg":"second"}\n']);
  });
});

describe("accessLine", () => {
  it("writes the access line as pino writes the same fields, but for the time, in one-byte characters", () => {
    const { lines, destination } = capture();
    const scope = new AsyncLocalStorage<{ requestId: string }>();
    const log = createLogger({ LOG_FORMAT: "json", LOG_LEVEL: "info" }, scope, destination);
    const fields = {
      method: "GET",
      path: '/api/v1/events?q="quoted"\\\u0001\u007fé\u{1f3df}\ud800',
      route: "listEvents",
      status: 200,
      duration_ms: 0.4,
      bytes: 15632,
      key_id: "key_abc",
      key_hint: "svc_sk_…tDui",
    };
    scope.run({ requestId: "req_0123" }, () => log.info(fields, "request"));
    const byPino = JSON.parse(lines[0]!) as Record<string, unknown>;
    const line = accessLine({ request_id: "req_0123", ...fields });
    // One byte a character: wider ones (the hint's "…", a path's emoji) are escaped, not written.
    expect(line).not.toMatch(/[^\u0000-\u00ff]/);
    const withoutTime = (text: string) => text.replace(/"time":"[^"]*"/, "");
    // Again: the hint's escaped form now comes from the cache of escaped strings.
    expect(withoutTime(accessLine({ request_id: "req_0123", ...fields }))).toBe(withoutTime(line));
    const ours = JSON.parse(line) as Record<string, unknown>;
    expect(Object.keys(ours)).toEqual(Object.keys(byPino));
    expect({ ...ours, time: null }).toEqual({ ...byPino, time: null });
    expect(Date.parse(ours.time as string)).toBeGreaterThan(Date.now() - 60_000);
  });
});
