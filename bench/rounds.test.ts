import { describe, expect, it } from "vitest";
import { roundSeconds } from "./rounds.ts";

describe("the benchmark's rounds", () => {
  it("split the measured time into whole seconds, as wrk needs, adding up to it", () => {
    expect(roundSeconds(10, 5)).toEqual([2, 2, 2, 2, 2]);
    expect(roundSeconds(10, 3)).toEqual([4, 3, 3]);
    expect(roundSeconds(7, 4)).toEqual([2, 2, 2, 1]);
    expect(roundSeconds(30, 4).reduce((a, b) => a + b)).toBe(30);
  });

  it("never ask for a round under one second, nor for a fraction", () => {
    expect(roundSeconds(2, 5)).toEqual([1, 1, 1, 1, 1]);
    expect(roundSeconds(7.5, 2)).toEqual([4, 4]);
    for (const [total, rounds] of [
      [11, 3],
      [1, 1],
      [59, 7],
    ] as const) {
      for (const seconds of roundSeconds(total, rounds)) {
        expect(Number.isInteger(seconds) && seconds >= 1).toBe(true);
      }
    }
  });
});
