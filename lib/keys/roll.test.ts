import { describe, expect, it } from "vitest";
import { MAX_OVERLAP_SECONDS, MIN_OVERLAP_SECONDS, overlapSeconds, rollInput } from "./roll.ts";

describe("a roll's overlap", () => {
  it("is read from a duration in seconds, minutes, hours or days", () => {
    expect(overlapSeconds("3600")).toBe(3_600);
    expect(overlapSeconds("90m")).toBe(5_400);
    expect(overlapSeconds("36h")).toBe(129_600);
    expect(overlapSeconds(" 7d ")).toBe(604_800);
    for (const text of ["", "1.5h", "h", "-1h", "1w", "1 hour"]) expect(overlapSeconds(text), text).toBeNull();
  });

  it("is from an hour to seven days, both included", () => {
    const valid = (seconds: number | string | undefined) => rollInput.safeParse({ overlapSeconds: seconds }).success;
    expect(valid(MIN_OVERLAP_SECONDS)).toBe(true);
    expect(valid(MAX_OVERLAP_SECONDS)).toBe(true);
    expect(valid("86400")).toBe(true);
    expect(valid(MIN_OVERLAP_SECONDS - 1)).toBe(false);
    expect(valid(MAX_OVERLAP_SECONDS + 1)).toBe(false);
    expect(valid(3_600.5)).toBe(false);
    expect(valid(undefined)).toBe(false);
  });
});
