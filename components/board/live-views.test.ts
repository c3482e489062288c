import { describe, expect, it } from "vitest";
import { refusedPause } from "./live-views.ts";

// A page over the member's live-view limit asks the server again rarely: never sooner than its
// Retry-After, less and less often while it stays refused.
describe("refusedPause", () => {
  it("waits the server's Retry-After first, then doubles, up to a minute", () => {
    const pauses = [0, 1, 2, 3, 4, 5, 20].map((refusals) => refusedPause(5, refusals, 0));
    expect(pauses).toEqual([5_000, 10_000, 20_000, 40_000, 60_000, 60_000, 60_000]);
  });

  it("never asks sooner than Retry-After, a long one too", () => {
    expect(refusedPause(120, 0, 0)).toBe(120_000);
    expect(refusedPause(120, 6, 0)).toBe(120_000);
  });

  it("spreads pages refused together by up to a fifth, and assumes 5 s without a Retry-After", () => {
    expect(refusedPause(null, 0, 0)).toBe(5_000);
    expect(refusedPause(null, 0, 0.999)).toBeCloseTo(5_999, 0);
  });
});
