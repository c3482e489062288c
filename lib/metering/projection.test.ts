import { describe, expect, it } from "vitest";
import { projectedExhaustion } from "./projection.ts";

const monthStart = Date.UTC(2026, 10, 1);
const monthEnd = Date.UTC(2026, 11, 1);
const day = 86_400_000;

describe("projectedExhaustion", () => {
  it("continues the month's pace until the quota is reached", () => {
    // 100 of 1000 in 2 days: 1000 after 20 days.
    expect(projectedExhaustion(100, 1000, { monthStart, at: monthStart + 2 * day, monthEnd })).toBe(
      monthStart + 20 * day,
    );
  });

  it("is null when the pace does not reach the quota before the month ends", () => {
    // 100 of 1000 in 3 days: 30 days, the month's end exactly, when the count starts again.
    expect(projectedExhaustion(100, 1000, { monthStart, at: monthStart + 3 * day, monthEnd })).toBeNull();
    expect(projectedExhaustion(1, 1000, { monthStart, at: monthStart + day, monthEnd })).toBeNull();
  });

  it("is null before anything is used, and now once the quota is used up", () => {
    expect(projectedExhaustion(0, 1000, { monthStart, at: monthStart + day, monthEnd })).toBeNull();
    expect(projectedExhaustion(1000, 1000, { monthStart, at: monthStart + day, monthEnd })).toBe(monthStart + day);
  });

  it("is a moment within the month for a busy first instant", () => {
    expect(projectedExhaustion(10, 1000, { monthStart, at: monthStart + 1000, monthEnd })).toBe(monthStart + 100_000);
  });
});
