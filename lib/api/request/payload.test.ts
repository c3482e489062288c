import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { Payload } from "./payload.ts";

describe("Payload", () => {
  const data = Array.from({ length: 400 }, (_, i) => ({ id: `ev-${i}`, score: { home: i % 7, away: i % 3 } }));

  it("appends meta to the serialised data", () => {
    const body = Buffer.concat(new Payload(data).body({ requests_used: 3 }, false));
    expect(JSON.parse(body.toString())).toEqual({ data, meta: { requests_used: 3 } });
  });

  it("gzips once and stays a valid gzip member for any meta", () => {
    const payload = new Payload(data);
    for (const used of [1, 2, 99_999]) {
      const gzipped = Buffer.concat(payload.body({ requests_used: used, note: "é".repeat(used % 5) }, true));
      expect(gzipped.length).toBeLessThan(payload.bytes.length / 3);
      expect(JSON.parse(gunzipSync(gzipped).toString())).toEqual({
        data,
        meta: { requests_used: used, note: "é".repeat(used % 5) },
      });
    }
  });

  it("gives equal data equal weak ETags, and different data different ones", () => {
    expect(new Payload(data).etag).toBe(new Payload(structuredClone(data)).etag);
    expect(new Payload(data).etag).toMatch(/^W\/"[\w-]+"$/);
    expect(new Payload(data.slice(1)).etag).not.toBe(new Payload(data).etag);
  });
});
