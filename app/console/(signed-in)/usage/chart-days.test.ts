import { describe, expect, it } from "vitest";
import { chartDays } from "./chart-days.ts";

const days = ["2026-11-27", "2026-11-28", "2026-11-29", "2026-11-30"].map((day, i) => ({
  day,
  total: i < 2 ? 5 + i : 0,
  key_1: i < 2 ? 5 + i : 0,
}));

describe("the usage chart's days", () => {
  it("draws the days to come as nothing, not as zero", () => {
    const rows = chartDays({ days }, "2026-11-28");
    expect(rows.map((row) => [row.label, row.total, row.key_1])).toEqual([
      ["27", 5, 5],
      ["28", 6, 6],
      ["29", null, null],
      ["30", null, null],
    ]);
  });

  it("draws every day of a month that is over", () => {
    expect(chartDays({ days }, "2026-12-02").every((row) => row.total !== null)).toBe(true);
  });
});
