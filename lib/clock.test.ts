import { describe, expect, it } from "vitest";
import { utcDay } from "./clock.ts";

describe("utcDay", () => {
  it("is the UTC date of toISOString, at each day's edges and across years", () => {
    const edges = [
      "2026-01-01T00:00:00.000Z",
      "2026-12-31T23:59:59.999Z",
      "2028-02-29T12:00:00Z",
      "1999-09-09T09:09:09Z",
    ];
    for (const at of edges) expect(utcDay(new Date(at))).toBe(at.slice(0, 10));
    // Every day from 1970 to 2100, at a moment that moves through the day.
    for (let day = 0; day < 47_847; day++) {
      const date = new Date(day * 86_400_000 + ((day * 7_919_000) % 86_400_000));
      expect(utcDay(date)).toBe(date.toISOString().slice(0, 10));
    }
  });

  it("is the UTC day, not the machine's local one", () => {
    // 23:30 UTC is the next day east of Greenwich and the same day west of it.
    expect(utcDay(new Date("2026-11-27T23:30:00Z"))).toBe("2026-11-27");
    expect(utcDay(new Date("2026-11-28T00:30:00+02:00"))).toBe("2026-11-27");
  });
});
