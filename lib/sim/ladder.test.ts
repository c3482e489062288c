import { describe, expect, it } from "vitest";
import { LADDER, LONGEST, overround, pricesWithMargin, SHORTEST, toLadder } from "./ladder.ts";
import { seededRandom } from "./random.ts";

const decimals = (x: number) => (String(x).split(".")[1] ?? "").length;

describe("the price ladder", () => {
  it("runs from 1.001 to 1000, ascending, in steps fine near evens and coarse far out", () => {
    expect(SHORTEST).toBe(1.001);
    expect(LONGEST).toBe(1000);
    const stepAt = (price: number) => {
      const i = LADDER.indexOf(price);
      expect(i, `${price} is on the ladder`).toBeGreaterThanOrEqual(0);
      return Math.round((LADDER[i + 1]! - price) * 1000) / 1000;
    };
    expect([1.005, 1.5, 2.5, 3.5, 5, 8, 15, 25, 40, 75, 500].map(stepAt)).toEqual([
      0.001, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10,
    ]);
    for (let i = 1; i < LADDER.length; i++) expect(LADDER[i]!).toBeGreaterThan(LADDER[i - 1]!);
    for (const price of LADDER) expect(decimals(price)).toBeLessThanOrEqual(3);
  });

  it("rounds a price down to the ladder price at or below it, within the ladder's bounds", () => {
    expect(toLadder(2.019)).toBe(2);
    expect(toLadder(2.02)).toBe(2.02);
    expect(toLadder(1.1)).toBe(1.1);
    expect(toLadder(0.1 + 1)).toBe(1.1);
    expect(toLadder(3.049)).toBe(3);
    expect(toLadder(109.9)).toBe(100);
    expect(toLadder(1.0005)).toBe(1.001);
    expect(toLadder(0.7)).toBe(1.001);
    expect(toLadder(4711)).toBe(1000);
    expect(toLadder(Infinity)).toBe(1000);
    const rng = seededRandom("ladder");
    let before = 0;
    for (let price = 1; price < 1100; price *= 1 + rng.next() * 0.01) {
      const quoted = toLadder(price);
      expect(LADDER).toContain(quoted);
      expect(quoted).toBeGreaterThanOrEqual(before);
      if (price >= SHORTEST && price <= LONGEST) {
        expect(quoted).toBeLessThanOrEqual(price + 1e-9);
        const next = LADDER[LADDER.indexOf(quoted) + 1];
        if (next !== undefined) expect(next).toBeGreaterThan(price);
      }
      before = quoted;
    }
  });
});

describe("prices with a margin", () => {
  it("carry the whole margin on even outcomes and always some, never below the fair chance", () => {
    expect(overround(pricesWithMargin([0.5, 0.5], 0.05))).toBeCloseTo(1.05, 2);
    expect(overround(pricesWithMargin([1 / 3, 1 / 3, 1 / 3], 0.07))).toBeCloseTo(1.07, 1);
    const rng = seededRandom("margins");
    for (let i = 0; i < 2_000; i++) {
      const n = rng.chance(0.5) ? 2 : 3;
      const raw = Array.from({ length: n }, () => rng.next() ** 4);
      const sum = raw.reduce((s, x) => s + x, 0);
      const fair = raw.map((x) => x / sum);
      const margin = n === 2 ? 0.05 : 0.07;
      const prices = pricesWithMargin(fair, margin);
      const total = overround(prices);
      expect(total, prices.join(" / ")).toBeGreaterThan(1);
      expect(total).toBeLessThanOrEqual(1 + margin + 0.03);
      // No outcome is offered above its fair price (within the ladder's bounds).
      prices.forEach((price, k) => {
        if (price < LONGEST && price > SHORTEST) expect(price).toBeLessThanOrEqual(1 / fair[k]!);
      });
    }
  });

  it("quote a side that is all but beaten in the hundreds and its favourite near 1, not at a cap", () => {
    expect(pricesWithMargin([0.999, 0.001], 0.05)).toEqual([1.001, 900]);
    const [favourite, outsider] = pricesWithMargin([0.99, 0.01], 0.05);
    expect(favourite).toBeLessThanOrEqual(1.01);
    expect(outsider).toBeGreaterThanOrEqual(85);
    expect(pricesWithMargin([0.9999, 0.00005, 0.00005], 0.07).slice(1)).toEqual([1000, 1000]);
  });

  it("lengthen as the chance falls and shorten as it rises", () => {
    let before = [0, Infinity];
    for (let p = 0.001; p < 1; p += 0.001) {
      const [side, other] = pricesWithMargin([p, 1 - p], 0.05);
      expect(side!).toBeLessThanOrEqual(before[1]!);
      expect(other!).toBeGreaterThanOrEqual(before[0]!);
      before = [other!, side!];
    }
  });
});
