import type { Sport } from "../lib/db/schema/index.ts";
import type { FeedUpdate } from "../lib/feed/schemas.ts";
import { fateOf, SimulatedEvent, type EventPlan, type Fate } from "../lib/sim/simulated-event.ts";

// Simulated events for unit tests: a plan at kickoff 0 and real-time speed, run as the simulator runs them.

export function simPlan(sport: Sport, seed: string): EventPlan {
  return {
    id: `test-${sport}-${seed}`,
    sport,
    competition: "Test League",
    home: "Home",
    away: "Away",
    kickoffMs: 0,
    speed: 1,
    seed,
  };
}

/** Runs an event from its announcement to its end, looking every `stepMs`, as the simulator does. */
export function runToEnd(event: SimulatedEvent, stepMs = 4_000): FeedUpdate[] {
  const updates: FeedUpdate[] = [];
  for (let t = -4 * 3600_000; !event.done; t += stepMs) {
    updates.push(...event.advanceTo(t));
    if (t > 12 * 3600_000) throw new Error(`${event.plan.id} did not end`);
  }
  return updates;
}

/** The first events of a sport, by seed, whose plan gives them `fate`. */
export function eventsFated(sport: Sport, fate: Fate, count: number): SimulatedEvent[] {
  const found: SimulatedEvent[] = [];
  for (let i = 0; found.length < count; i++) {
    if (i > 100_000) throw new Error(`no ${fate} ${sport} event among 100,000 seeds`);
    const plan = simPlan(sport, `fate-${i}`);
    if (fateOf(plan) === fate) found.push(new SimulatedEvent(plan));
  }
  return found;
}
