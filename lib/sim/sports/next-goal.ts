import { oneWinner, type MarketQuote, type Sides } from "../model.ts";

/**
 * Next-goal markets, one per goal: each goal scored settles its own market (won by the scorer),
 * and the market for the goal to come is open, priced from `home` and `none` (the chance that the
 * home side scores it, and that no one does), until the final whistle settles it as "No goal".
 * `scorers` lists the side (0 home, 1 away) of every goal so far, in order; all of them are quoted,
 * so a goal's market settles even when two goals fall between two refreshes of the prices.
 */
export function nextGoalMarkets(
  scorers: readonly (0 | 1)[],
  sides: Sides,
  next: { home: number; none: number },
  over: boolean,
): MarketQuote[] {
  const market = (goal: number, probabilities: [number, number, number], winner?: string) =>
    oneWinner(
      `next_goal:${goal}`,
      "next_goal",
      `Next goal (goal ${goal})`,
      [
        { key: "home", name: sides.home, probability: probabilities[0] },
        { key: "none", name: "No goal", probability: probabilities[1] },
        { key: "away", name: sides.away, probability: probabilities[2] },
      ],
      winner,
    );
  const scored = scorers.map((side, i) =>
    market(i + 1, side === 0 ? [1, 0, 0] : [0, 0, 1], side === 0 ? "home" : "away"),
  );
  const away = Math.max(0, 1 - next.home - next.none);
  return [...scored, market(scorers.length + 1, [next.home, next.none, away], over ? "none" : undefined)];
}
