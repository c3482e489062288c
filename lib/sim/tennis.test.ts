import { describe, expect, it } from "vitest";
import { raceProbability, unitsOver } from "./model.ts";
import { competitionsOf } from "./names.ts";
import { seededRandom } from "./random.ts";
import { GRAND_SLAM } from "./realism.ts";
import { bestOfSets, tennis, type TennisState } from "./sports/tennis.ts";

const SIDES = { home: "Home", away: "Away" };
const open = (s: TennisState, key: string) => tennis.quotes(s, SIDES).find((q) => q.key === key)!;

function playToEnd(competition: string, seed: string): TennisState {
  const rng = seededRandom(seed);
  const s = tennis.create(rng, 0.3, competition);
  while (!tennis.isOver(s)) tennis.step(s, rng);
  return s;
}

describe("tennis's formats", () => {
  it("plays best of five in the men's Grand Slam only, and the simulator's competitions include it", () => {
    expect(competitionsOf("tennis").map((c) => c.name)).toContain(GRAND_SLAM);
    expect(bestOfSets(GRAND_SLAM)).toBe(5);
    expect(bestOfSets("Lakemont Classic (WTA 500)")).toBe(3);
    expect(bestOfSets("Crownfield Championships (Grand Slam, women's singles)")).toBe(3);
    expect(bestOfSets(undefined)).toBe(3);
  });

  it("ends a best-of-five match at three sets won, with its total at 3.5 sets settled by the sets played", () => {
    const lengths = new Set<number>();
    for (let i = 0; i < 40; i++) {
      const s = playToEnd(GRAND_SLAM, `bo5:${i}`);
      expect(Math.max(...s.setsWon)).toBe(3);
      expect(Math.min(...s.setsWon)).toBeLessThan(3);
      lengths.add(s.sets.length);
      const total = open(s, "total");
      expect(total.line).toBe(3.5);
      expect(total.outcomes[0]!.result).toBe(s.sets.length > 3.5 ? "won" : "lost");
      const winner = open(s, "match_winner");
      expect(winner.outcomes[0]!.result).toBe(s.setsWon[0] === 3 ? "won" : "lost");
    }
    expect([...lengths].sort()).toEqual([3, 4, 5]);
  });

  it("prices a best-of-five match above a best-of-three one for the better player (more sets, less luck)", () => {
    const rng = seededRandom("format");
    const three = tennis.create(rng, 0.8, "Harbour Open (ATP 500)");
    const five = tennis.create(seededRandom("format"), 0.8, GRAND_SLAM);
    const pThree = open(three, "match_winner").outcomes[0]!.probability;
    const pFive = open(five, "match_winner").outcomes[0]!.probability;
    expect(pThree).toBeGreaterThan(0.5);
    expect(pFive).toBeGreaterThan(pThree);
    expect(open(five, "total").line).toBe(3.5);
    expect(open(three, "total").line).toBe(2.5);
  });
});

describe("the race of sets with momentum", () => {
  // c: the current set; p0, p1: each later set after the first side, or the second, won the one before.
  const [c, p0, p1] = [0.55, 0.62, 0.45];

  it("prices best of three exactly as the sets can fall", () => {
    const byHand = c * (p0 + (1 - p0) * p1) + (1 - c) * p1 * p0;
    expect(raceProbability([0, 0], 2, c, [p0, p1])).toBeCloseTo(byHand, 12);
    const thirdSet = c * (1 - p0) + (1 - c) * p1;
    expect(unitsOver([0, 0], 2, 2.5, c, [p0, p1])).toBeCloseTo(thirdSet, 12);
  });

  it("reduces to independent sets when both chances are the same", () => {
    expect(raceProbability([1, 1], 3, c, [p0, p0])).toBeCloseTo(raceProbability([1, 1], 3, c, p0), 12);
    expect(raceProbability([0, 0], 3, 0.5, 0.5)).toBeCloseTo(0.5, 12);
  });

  it("makes straight sets likelier in an even match: the set winner carries on", () => {
    const s = tennis.create(seededRandom("even"), 0, GRAND_SLAM);
    const fourOrFive = open(s, "total").outcomes[0]!.probability;
    // Independent even sets go past three 75 % of the time; momentum takes some of that away.
    expect(fourOrFive).toBeLessThan(0.72);
    expect(fourOrFive).toBeGreaterThan(0.5);
  });
});
