import type { Sport } from "../../db/schema/index.ts";

// When a sport's feed is fresh: judged against the sport's own pace, not one figure for all. A
// clock sport changes every few seconds while it is played; tennis between points and changeovers,
// baseball between plate appearances (no clock at all), Counter-Strike over a map break, can be
// silent for minutes with nothing wrong. An event in a named break (half time, an intermission,
// between innings) is not expected to change, and a sport whose live events are all in one is not
// judged then.

/** The longest a live event of the sport goes without a change in normal play, with some margin (s). */
export const FEED_QUIET_SECONDS: Record<Sport, number> = {
  soccer: 60,
  basketball: 60,
  "ice-hockey": 60,
  "american-football": 90,
  // A point every 20 to 42 s, a changeover of 90 s, two minutes between sets.
  tennis: 180,
  // A plate appearance takes up to 140 s, and nothing changes in between.
  baseball: 180,
  // Five minutes between maps.
  cs2: 330,
};

const BREAK_PERIOD = /^(half ?time|intermission|end\b|middle\b|break)|\bbreak\b/i;

/** A period that names a break in play: "Half time", "Halftime", "Intermission 2", "End of Q1", "Middle 5th". */
export function inBreak(period: string): boolean {
  return BREAK_PERIOD.test(period.trim());
}

export type FeedEvent = { sport: string; status: string; period: string };

/**
 * Each sport with an event in play, and whether its feed is fresh now: its newest change no older
 * than the sport's quiet time. A sport whose live events are all in a break is left out: there is
 * nothing to judge.
 */
export function feedFreshness(
  events: Iterable<FeedEvent>,
  lastChange: ReadonlyMap<string, number>,
  now: number,
): Map<string, boolean> {
  const judged = new Set<string>();
  for (const event of events) {
    if (event.status === "live" && !inBreak(event.period)) judged.add(event.sport);
  }
  const fresh = new Map<string, boolean>();
  for (const sport of judged) {
    const quiet = (FEED_QUIET_SECONDS[sport as Sport] ?? 60) * 1000;
    fresh.set(sport, now - (lastChange.get(sport) ?? 0) <= quiet);
  }
  return fresh;
}
