import type { Sport } from "../db/schema/index.ts";

// Why and for how long the in-play markets are suspended: one table, so the rules a book follows
// sport by sport are in one place (docs/simulator.md, "Suspensions").

/**
 * What a second of play can bring that books suspend their markets for: a score; a penalty
 * awarded (soccer, until the kick); a red card; a hockey penalty that starts a power play; a break
 * of serve; a video review (soccer's VAR check, American football's replay review), until its call.
 */
export type Incident = "score" | "penalty" | "red card" | "power play" | "break of serve" | "video review";

/** A step with nothing to suspend for, and one with a score alone: shared, never changed. */
export const NOTHING: readonly Incident[] = Object.freeze([]);
export const SCORED: readonly Incident[] = Object.freeze(["score"] as const);

/**
 * Simulated seconds each incident keeps the markets suspended, by sport. A score: a soccer goal
 * through the celebration, the review and the restart; a touchdown through the try and the kickoff;
 * a hockey goal to the face-off; a run to the next batter; a CS2 round through the buy time (the
 * 15-second freeze: every round's end); a tennis game to the next point; a basket hardly at all
 * (basketball books price through play). The incidents that last until something is decided are
 * as long as the models make them: a soccer penalty is kicked `penalty` seconds after it is
 * awarded, and a review is called `video review` seconds after it starts.
 */
export const SUSPENSION: { score: Record<Sport, number> } & Record<
  Exclude<Incident, "score">,
  Partial<Record<Sport, number>>
> = {
  score: {
    soccer: 60,
    "american-football": 45,
    "ice-hockey": 40,
    baseball: 20,
    cs2: 15,
    tennis: 10,
    basketball: 4,
  },
  // From the award to the kick: the protests, the keeper and the taker set, often a VAR check.
  penalty: { soccer: 90 },
  // The send-off and the repricing of a side a player short.
  "red card": { soccer: 30 },
  // The penalty called and the face-off in the penalised side's zone.
  "power play": { "ice-hockey": 20 },
  // Longer than a game's 10 s: the set's balance has changed, and the players often change ends.
  "break of serve": { tennis: 30 },
  // A VAR on-field review at the monitor; an NFL replay review under the hood.
  "video review": { soccer: 80, "american-football": 100 },
};

/** How long `incident` suspends the markets in `sport`: a model that reports one without a length is a bug. */
export function suspensionFor(incident: Incident, sport: Sport): number {
  const seconds = SUSPENSION[incident][sport];
  if (seconds === undefined) throw new Error(`no suspension length for "${incident}" in ${sport}`);
  return seconds;
}
