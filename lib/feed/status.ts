import type { EventStatus } from "../db/schema/index.ts";

/** The contract's event lifecycle: the only status changes a feed may make. */
export const STATUS_TRANSITIONS: Record<EventStatus, readonly EventStatus[]> = {
  upcoming: ["live", "postponed", "cancelled"],
  live: ["finished", "suspended"],
  suspended: ["live", "cancelled"],
  postponed: ["upcoming"],
  finished: [],
  cancelled: [],
};

export function canMove(from: EventStatus, to: EventStatus): boolean {
  return from === to || STATUS_TRANSITIONS[from].includes(to);
}

/** Events in play: their markets are on the odds board. */
export const IN_PLAY: readonly EventStatus[] = ["live", "suspended"];
