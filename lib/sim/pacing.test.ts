import { describe, expect, it } from "vitest";
import { seededRandom } from "./random.ts";
import { fateOf } from "./simulated-event.ts";
import { soccer } from "./sports/soccer.ts";

const minutes = (clock: string) => {
  const [m, s] = clock.split(":").map(Number);
  return m! * 60 + s!;
};

describe("the soccer clock at the whistle", () => {
  it("stays where each half ended, stoppage time included, instead of stepping back to 45:00 or 90:00", () => {
    for (let i = 0; i < 20; i++) {
      const rng = seededRandom(`whistle:${i}`);
      const s = soccer.create(rng, 0);
      let previous = { period: "1st half", clock: "00:00" };
      while (!soccer.isOver(s)) {
        soccer.step(s, rng);
        const { period, clock } = soccer.view(s);
        // Play goes on from 45:00 after the break; everywhere else the clock never steps back.
        if (!(period === "2nd half" && previous.period === "Half time"))
          expect(minutes(clock), `${previous.period} ${previous.clock} → ${period} ${clock}`).toBeGreaterThanOrEqual(
            minutes(previous.clock),
          );
        previous = { period, clock };
      }
      expect(minutes(previous.clock)).toBeGreaterThanOrEqual(90 * 60);
    }
  });
});

describe("abandonment", () => {
  const share = (sport: Parameters<typeof fateOf>[0]["sport"]) => {
    let abandoned = 0;
    for (let i = 0; i < 20_000; i++) if (fateOf({ sport, seed: `share-${i}` }) === "abandoned") abandoned++;
    return abandoned / 20_000;
  };

  it("stops outdoor sports about 1 % of the time and indoor ones far more rarely", () => {
    for (const sport of ["soccer", "baseball", "tennis"] as const) expect(share(sport)).toBeCloseTo(0.01, 2);
    for (const sport of ["basketball", "ice-hockey"] as const) expect(share(sport)).toBeLessThan(0.0025);
  });
});
