import { describe, expect, it } from "vitest";
import { american, formatPrice, fractional } from "./odds-format.ts";

describe("odds formats", () => {
  it("shows common fractions for the prices bookmakers quote", () => {
    expect(fractional(2.5)).toBe("3/2");
    expect(fractional(2)).toBe("1/1");
    expect(fractional(1.5)).toBe("1/2");
    expect(fractional(1.25)).toBe("1/4");
    expect(fractional(11)).toBe("10/1");
    expect(fractional(1.91)).toBe("10/11");
    expect(fractional(3.75)).toBe("11/4");
    expect(fractional(1.001)).toBe("1/1000");
    expect(fractional(1.005)).toBe("1/200");
    expect(fractional(1000)).toBe("999/1");
  });

  it("shows American odds with their sign", () => {
    expect(american(2.5)).toBe("+150");
    expect(american(2)).toBe("+100");
    expect(american(1.5)).toBe("−200");
    expect(american(1.91)).toBe("−110");
  });

  it("keeps two decimals in decimal", () => {
    expect(formatPrice(1.8, "decimal")).toBe("1.80");
    expect(formatPrice(12.346, "decimal")).toBe("12.35");
    expect(formatPrice(1.01, "decimal")).toBe("1.01");
  });

  it("keeps the third decimal of the shortest prices, which step by 0.001", () => {
    expect(formatPrice(1.001, "decimal")).toBe("1.001");
    expect(formatPrice(1.005, "decimal")).toBe("1.005");
  });
});
