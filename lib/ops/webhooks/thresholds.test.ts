import { describe, expect, it } from "vitest";
import { crossings, normaliseThresholds, thresholdCount } from "./thresholds.ts";
import { nextAttemptAt, RETRY_WINDOW_MS } from "./schedule.ts";

describe("usage thresholds", () => {
  const defaults = [80, 95, 100];

  it("are reached at the first count at or over their share of the quota", () => {
    expect(thresholdCount(1000, 80)).toBe(800);
    expect(thresholdCount(10, 95)).toBe(10);
    expect(thresholdCount(3, 1)).toBe(1);
    expect(crossings(799, 1000, defaults, new Set())).toEqual({ reached: [], nextAt: 800 });
    expect(crossings(800, 1000, defaults, new Set())).toEqual({ reached: [80], nextAt: 950 });
  });

  it("raise each threshold once, also when a count heard from elsewhere jumps past several", () => {
    expect(crossings(960, 1000, defaults, new Set())).toEqual({ reached: [80, 95], nextAt: 1000 });
    expect(crossings(961, 1000, defaults, new Set([80, 95]))).toEqual({ reached: [], nextAt: 1000 });
    expect(crossings(1000, 1000, defaults, new Set([80, 95]))).toEqual({ reached: [100], nextAt: Infinity });
  });

  it("are whole percentages 1 to 100, kept in order without repeats", () => {
    expect(normaliseThresholds([95, 50, 95])).toEqual([50, 95]);
    expect(() => normaliseThresholds([])).toThrow(RangeError);
    expect(() => normaliseThresholds([0])).toThrow(RangeError);
    expect(() => normaliseThresholds([101])).toThrow(RangeError);
    expect(() => normaliseThresholds([50.5])).toThrow(RangeError);
  });
});

describe("retries", () => {
  it("wait the base, doubling with each failed attempt, while within a day of the message", () => {
    const created = 0;
    expect(nextAttemptAt(1, created, 1_000, 30_000)).toBe(31_000);
    expect(nextAttemptAt(2, created, 31_000, 30_000)).toBe(91_000);
    expect(nextAttemptAt(4, created, 400_000, 30_000)).toBe(640_000);
    expect(nextAttemptAt(12, created, RETRY_WINDOW_MS - 60_000, 30_000)).toBeNull();
  });

  it("go on for a day: about a dozen attempts at the default base", () => {
    let at = 0;
    let attempts = 0;
    for (let next: number | null = 0; next !== null; attempts++) {
      at = next;
      next = nextAttemptAt(attempts + 1, 0, at, 30_000);
    }
    expect(attempts).toBe(12);
    expect(at).toBeGreaterThan(RETRY_WINDOW_MS / 2);
  });
});
