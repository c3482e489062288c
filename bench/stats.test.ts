import { describe, expect, it } from "vitest";
import { median, percentile, quantileOfSorted, spread } from "./stats.ts";

describe("the benchmarks' summaries of a sample", () => {
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 down to 1: any order is sorted first

  it("take the value at rank floor(q × n) of the sorted sample", () => {
    expect(percentile(hundred, 50)).toBe(51);
    expect(percentile(hundred, 95)).toBe(96);
    expect(percentile(hundred, 99)).toBe(100);
    expect(percentile(hundred, 100)).toBe(100);
    expect(percentile(hundred, 0)).toBe(1);
    expect(quantileOfSorted(Float64Array.from([1, 2, 3]), 0.5)).toBe(2);
  });

  it("give the upper of two middle values as the median, and NaN for an empty sample", () => {
    expect(median([4, 1, 3, 2])).toBe(3);
    expect(median([])).toBeNaN();
    expect(quantileOfSorted([], 0.99)).toBeNaN();
  });

  it("leave the sample as it was", () => {
    const values = [3, 1, 2];
    percentile(values, 50);
    expect(values).toEqual([3, 1, 2]);
  });

  it("print a spread as min / median / max, and n/a for nothing", () => {
    expect(spread([0.5, 3.25, 1], (n) => n.toFixed(1))).toBe("0.5 / 1.0 / 3.3");
    expect(spread([], String)).toBe("n/a");
  });
});
