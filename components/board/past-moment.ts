import { formatIn, zoneName } from "@/lib/time-display";

// The event page's timeline: the window of the past a viewer can scrub through, in whole seconds,
// and the moment chosen in it as the API's `as_of`. The end of the window is the live view, or, for
// an event that is over, its final state.

export type TimelineWindow = {
  /** The first moment that can be shown (s). */
  start: number;
  /** Now, as the viewer's data stands (a sandbox view is its delay behind), or when the event ended (s). */
  end: number;
  /** The history kept, not the event, is what the window begins with. */
  limited: boolean;
};

/**
 * A moment this close to the edge of the history kept may be pruned on its way to the server, so the
 * window begins a little later.
 */
export const EDGE_SECONDS = 10;

/** Where the history worth reading begins (ms): the event's kickoff, unless the history kept is shorter. */
export function historyFrom(kickoff: string, now: number, historySeconds: number): number {
  const kept = now - (historySeconds - EDGE_SECONDS) * 1_000;
  const began = Date.parse(kickoff);
  return began <= now ? Math.max(began, kept) : kept;
}

/**
 * From the event's kickoff, the beginning of the history kept or the event's first state the
 * history has (`earliest`, ms), whichever is latest, to now, or to the moment the event ended
 * (`ended`, ms: its final state, after which nothing changes). Before kickoff the window is the
 * history kept before it: the prices before the start move too.
 */
export function timelineWindow(input: {
  kickoff: string;
  now: number;
  historySeconds: number;
  delaySeconds: number;
  earliest: number | null;
  ended?: number | null;
}): TimelineWindow {
  const now = Math.floor(input.now / 1_000) - input.delaySeconds;
  const end = input.ended == null ? now : Math.min(now, Math.ceil(input.ended / 1_000));
  const kept = Math.ceil(input.now / 1_000) - input.historySeconds + EDGE_SECONDS;
  const kickoff = Math.ceil(Date.parse(input.kickoff) / 1_000);
  const began = kickoff <= end ? kickoff : -Infinity;
  const first = input.earliest === null ? -Infinity : Math.ceil(input.earliest / 1_000);
  const start = Math.min(end, Math.max(began, kept, first));
  return { start, end, limited: kept > began && kept >= first };
}

/**
 * Where the charts begin (s): on a ten-second tick at or before the window's start, and before the
 * event's first state (`earliest`, ms) when that is what the window begins with. The window rounds
 * that state's second up, and a chart begun there drew the state at its start as the next change's,
 * losing the first state when both fell in the second before a tick.
 */
export function chartFrom(window: TimelineWindow, earliest: number | null): number {
  const first = earliest === null ? null : earliest / 1_000;
  const start = first !== null && Math.ceil(first) === window.start ? Math.floor(first) : window.start;
  return Math.min(window.end, Math.floor(start / 10) * 10);
}

/** The moment a position of the range stands for: null at its end, the live view. */
export function momentOf(value: number, window: TimelineWindow): number | null {
  if (!Number.isFinite(value) || value >= window.end) return null;
  return Math.max(window.start, Math.floor(value));
}

/** The range's position for a moment (null: live, at the end). */
export function rangeValue(moment: number | null, window: TimelineWindow): number {
  if (moment === null) return window.end;
  return Math.min(window.end, Math.max(window.start, moment));
}

/** The moment as the API's `as_of`: an ISO 8601 time, UTC. */
export function asOfParam(moment: number): string {
  return new Date(moment * 1_000).toISOString();
}

/** The runtime's own zone: the viewer's, in a browser. */
export const localZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** HH:MM:SS of a moment (s) in `zone`, the viewer's own unless they chose UTC. */
export function clockTime(moment: number, zone: string = localZone()): string {
  return formatIn(moment * 1_000, zone, "clock");
}

/** HH:MM:SS with the zone named: "18:29:05 CET". */
export function zonedClock(moment: number, zone: string = localZone()): string {
  return `${clockTime(moment, zone)} ${zoneName(zone, moment * 1_000)}`;
}

/** How long the history reaches back, for people: "15 minutes", "24 hours", "7 days". */
export function historySpan(seconds: number): string {
  const [count, unit] =
    seconds % 86_400 === 0 && seconds >= 86_400
      ? [seconds / 86_400, "day"]
      : seconds % 3_600 === 0 && seconds >= 3_600
        ? [seconds / 3_600, "hour"]
        : [Math.round(seconds / 60), "minute"];
  return `${count} ${unit}${count === 1 ? "" : "s"}`;
}
