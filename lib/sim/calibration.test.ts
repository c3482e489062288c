import { describe, expect, it } from "vitest";
import type { Sport } from "../db/schema/index.ts";
import { BEST_OF_FIVE, figuresOf, GRAND_SLAM, playGames, REFERENCES } from "./realism.ts";

// The calibrated sports against the leagues' figures and their own opening prices, on a seeded
// batch of games (the same every run): the figures of `npm run bench:realism` at a fraction of its
// games, so each tolerance is widened by the square root of the smaller sample. CS2 is held to
// its map length only (docs/simulator.md).
const GAMES = 600;
const WIDER = Math.sqrt(2000 / GAMES);
const CALIBRATED: Sport[] = ["soccer", "basketball", "american-football", "ice-hockey", "baseball", "tennis"];
// Each test plays its games inside the test (600 of them, a second or two on a quiet two-core
// machine): the bound is for a hang, not for speed, and a loaded machine took over five seconds.
const PLAYING = { timeout: 60_000 };
const within = (figure: ReturnType<typeof figuresOf>[number]) => {
  const shown = `${figure.name}: ${figure.measured.toFixed(2)} against ${figure.reference.toFixed(2)}`;
  expect(Math.abs(figure.measured - figure.reference), shown).toBeLessThanOrEqual(figure.tolerance * WIDER);
};

describe.each(CALIBRATED)("%s over a seeded batch of games", (sport) => {
  const records = playGames(sport, GAMES, "calibration");

  it("scores, wins at home, draws, goes to overtime and lasts as its league does, and prices its openings as it plays", () => {
    for (const figure of figuresOf(sport, records)) within(figure);
  });
});

describe("tennis in a men's Grand Slam, best of five", PLAYING, () => {
  it("goes to as many sets and lasts as long as the Grand Slams show, and prices its openings as it plays", () => {
    for (const figure of figuresOf("tennis", playGames("tennis", GAMES, "calibration", GRAND_SLAM), BEST_OF_FIVE))
      within(figure);
  });
});

describe("CS2's maps", PLAYING, () => {
  it("last as long as professional maps do", () => {
    const [length] = figuresOf("cs2", playGames("cs2", GAMES, "calibration")).filter(
      (f) => f.source === REFERENCES.cs2.duration[2],
    );
    expect(length).toBeDefined();
    within(length!);
  });
});

describe("American football's margins", PLAYING, () => {
  it("end by exactly three points more often than by any other margin", () => {
    const margins = new Map<number, number>();
    for (const { home, away } of playGames("american-football", GAMES, "calibration")) {
      const margin = Math.abs(home - away);
      margins.set(margin, (margins.get(margin) ?? 0) + 1);
    }
    const [commonest] = [...margins].sort((a, b) => b[1] - a[1])[0]!;
    expect(commonest).toBe(3);
    expect(margins.get(3)! / GAMES).toBeGreaterThan(0.1);
  });
});
