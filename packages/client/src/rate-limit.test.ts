import { describe, expect, it } from "vitest";
import { parseRateLimit, parseStructuredList } from "./rate-limit.ts";

describe("the RateLimit headers", () => {
  it("read both headers into one record per policy", () => {
    const headers = new Headers({
      "ratelimit-policy": '"second";q=10;w=1, "month";q=100000;w=2592000',
      ratelimit: '"second";r=9;t=1, "month";r=4711;t=86400',
    });
    expect(parseRateLimit(headers)).toEqual({
      second: { quota: 10, windowSeconds: 1, remaining: 9, resetSeconds: 1 },
      month: { quota: 100000, windowSeconds: 2592000, remaining: 4711, resetSeconds: 86400 },
    });
  });

  it("are null when absent, and read structured-field lists with tokens, escapes and odd spacing", () => {
    expect(parseRateLimit(new Headers())).toBeNull();
    expect(parseStructuredList('"a\\"b";r=1 ,day;t=2;x, "c,d";q="5"')).toEqual([
      { name: 'a"b', params: { r: "1" } },
      { name: "day", params: { t: "2", x: "?1" } },
      { name: "c,d", params: { q: "5" } },
    ]);
  });
});
