import { describe, expect, it } from "vitest";
import { ageText } from "./parts";

describe("a row's age", () => {
  it("is quiet under five seconds, then seconds, minutes and 1h+", () => {
    const at = 1_000_000;
    expect(ageText(at + 4_999, at)).toBe("");
    expect(ageText(at - 3_000, at)).toBe("");
    expect(ageText(at + 5_000, at)).toBe("5s ago");
    expect(ageText(at + 59_999, at)).toBe("59s ago");
    expect(ageText(at + 60_000, at)).toBe("1m ago");
    expect(ageText(at + 3_599_999, at)).toBe("59m ago");
    expect(ageText(at + 3_600_000, at)).toBe("1h+ ago");
    expect(ageText(at + 2_000, at, 1)).toBe("2s ago");
  });
});
