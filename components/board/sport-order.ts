import type { SportCode } from "./sports";

// The order of the board's sports: by what is happening (the markets that moved in the last minute
// of the feed shown), unless the viewer ordered them; sports the viewer's order does not name come
// after it, by activity. Pure, so that a unit test reaches it.

/** What the activity of a sport is judged on: its rows' markets' last changes. */
export type SportRows = Iterable<{ event: { sport: SportCode }; markets: readonly { updated_at: string }[] }>;

/** A market that moved within this long before the feed's newest change counts as moving now. */
export const ACTIVE_WINDOW_MS = 60_000;

/**
 * Sports by activity: most markets moved in the last minute first, then the most recent move, then
 * the feed's own order (`known`). The minute ends at the newest change shown, so a delayed view is
 * judged as it stands.
 */
export function sportsByActivity(rows: SportRows, known: readonly SportCode[]): SportCode[] {
  const tally = new Map<SportCode, { moved: number; latest: number }>();
  let newest = -Infinity;
  const all: { sport: SportCode; at: number }[] = [];
  for (const row of rows) {
    for (const market of row.markets) {
      const at = Date.parse(market.updated_at);
      newest = Math.max(newest, at);
      all.push({ sport: row.event.sport, at });
    }
    if (!tally.has(row.event.sport)) tally.set(row.event.sport, { moved: 0, latest: -Infinity });
  }
  for (const { sport, at } of all) {
    const counts = tally.get(sport)!;
    if (at > newest - ACTIVE_WINDOW_MS) counts.moved++;
    counts.latest = Math.max(counts.latest, at);
  }
  const rank = (sport: SportCode) => known.indexOf(sport);
  return [...tally.keys()].sort((a, b) => {
    const [x, y] = [tally.get(a)!, tally.get(b)!];
    return y.moved - x.moved || y.latest - x.latest || rank(a) - rank(b);
  });
}

/** The viewer's order first (the sports of it on the board), then the others in `byActivity`'s order. */
export function sportOrder(chosen: readonly SportCode[] | null, byActivity: readonly SportCode[]): SportCode[] {
  if (!chosen) return [...byActivity];
  const present = new Set(byActivity);
  const first = chosen.filter((sport) => present.has(sport));
  return [...first, ...byActivity.filter((sport) => !first.includes(sport))];
}

/** `order` with `sport` moved one place up (-1) or down (+1). */
export function moveSport(order: readonly SportCode[], sport: SportCode, by: -1 | 1): SportCode[] {
  const next = [...order];
  const at = next.indexOf(sport);
  const to = at + by;
  if (at < 0 || to < 0 || to >= next.length) return next;
  [next[at], next[to]] = [next[to]!, next[at]!];
  return next;
}

/** A stored order as the board keeps it in the browser: known sports only. */
export function readSportOrder(stored: string, known: readonly SportCode[]): SportCode[] | null {
  if (!stored) return null;
  const sports = stored.split(",").filter((sport): sport is SportCode => known.includes(sport as SportCode));
  return sports.length > 0 ? sports : null;
}
