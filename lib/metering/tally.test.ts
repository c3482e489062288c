import { describe, expect, it } from "vitest";
import { count, merge, type Tally } from "./tally.ts";

describe("a tally of admitted requests", () => {
  it("counts by UTC month and day, and keeps the latest time", () => {
    const tally: Tally = new Map();
    count(tally, "key_a", Date.parse("2026-11-30T23:59:59.900Z"));
    count(tally, "key_a", Date.parse("2026-12-01T00:00:00.000Z"), 2);
    count(tally, "key_a", Date.parse("2026-11-30T12:00:00.000Z"));
    expect(tally.get("key_a")).toEqual({
      months: new Map([
        ["2026-11-01", 2],
        ["2026-12-01", 2],
      ]),
      days: new Map([
        ["2026-11-30", 2],
        ["2026-12-01", 2],
      ]),
      lastUsed: Date.parse("2026-12-01T00:00:00.000Z"),
    });
  });

  it("merges into another without changing the one merged from", () => {
    const a: Tally = new Map();
    const b: Tally = new Map();
    count(a, "key_a", Date.parse("2026-11-21T10:00:00Z"));
    count(b, "key_a", Date.parse("2026-11-21T11:00:00Z"), 3);
    const into: Tally = new Map();
    merge(into, a);
    merge(into, b);
    expect(into.get("key_a")!.months.get("2026-11-01")).toBe(4);
    expect(a.get("key_a")!.months.get("2026-11-01")).toBe(1);
    expect(b.get("key_a")!.months.get("2026-11-01")).toBe(3);
  });
});
