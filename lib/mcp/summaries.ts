// The short text an assistant can quote beside each tool's structured answer: what the data says
// in a sentence or two, how old it is, and how to go on (the next page, the next `since`). The
// numbers are the answer's own; nothing here reads anything else.

export type Answer = { data: unknown; meta: Meta };
type Meta = {
  sandbox: boolean;
  delay_seconds: number;
  requests_used: number;
  requests_quota: number;
  revision: number;
  next_cursor?: string | null;
  next_since?: number;
};

type Outcome = { name: string; price: number; status: string };
type Market = { id: string; name: string; status: string; line: number | null; outcomes: Outcome[] };
type Event = {
  id: string;
  sport: string;
  competition: string;
  home: string;
  away: string;
  status: string;
  kickoff: string;
  score: { home: number; away: number };
  clock: string;
  period: string;
  markets?: Market[];
};
type Player = { number: number; name: string };
type Lineup = { event_id: string; home: Player[]; away: Player[] };
type KeyDescription = {
  key: string;
  environment: string;
  sports: string[];
  plan: string | null;
  delay_seconds: number;
  limits: { requests_per_second: number };
  usage: { requests_used: number; requests_quota: number; resets_at: string; projected_exhaustion_at: string | null };
};
type Change = { id: number; event: string; data: { id?: string; event_id?: string; markets?: unknown[] } };
type PricePoint = { at: string; status: string; outcomes: { id: string; price: number }[] };
type MarketHistory = { event_id: string; market_id: string; points: PricePoint[] };

/** How many items a list names before it says how many more there are. */
const NAMED = 5;

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** Where the answer stands: the revision, a sandbox key's delay, the month's count. */
function footing(meta: Meta): string {
  const view = meta.sandbox ? `the feed as it was ${meta.delay_seconds} s ago (sandbox)` : "real time";
  return `Revision ${meta.revision}, ${view}; request ${meta.requests_used} of ${meta.requests_quota} this month.`;
}

/** An event in a few words: sides, score when it has started, state, period and clock. */
export function eventLine(event: Event): string {
  const started = event.status !== "upcoming" && event.status !== "postponed" && event.status !== "cancelled";
  const sides = started
    ? `${event.home} ${event.score.home}-${event.score.away} ${event.away}`
    : `${event.home} v ${event.away}`;
  const when = started ? [event.period, event.clock].filter(Boolean).join(" ") : `kickoff ${event.kickoff}`;
  return `${sides} (${event.sport}, ${event.competition}; ${event.status}${when ? `, ${when}` : ""}) [${event.id}]`;
}

function marketLine(market: Market): string {
  const prices = market.outcomes.map((o) => `${o.name} ${o.status === "active" ? o.price : o.status}`).join(", ");
  const line = market.line === null ? "" : ` ${market.line}`;
  return `${market.name}${line} (${market.status}): ${prices}`;
}

function listed<T>(items: T[], line: (item: T) => string): string {
  const named = items.slice(0, NAMED).map(line).join("; ");
  return items.length > NAMED ? `${named}; and ${items.length - NAMED} more` : named;
}

export function accountSummary({ data, meta }: Answer): string {
  const key = data as KeyDescription;
  const { usage } = key;
  const pace = usage.projected_exhaustion_at
    ? `at this month's pace the quota runs out at ${usage.projected_exhaustion_at}`
    : "at this month's pace the quota lasts until it resets";
  const view = key.delay_seconds > 0 ? `sees the feed ${key.delay_seconds} s late` : "sees the feed in real time";
  return (
    `${key.environment === "sandbox" ? "Sandbox" : "Production"} key ${key.key}` +
    `${key.plan ? ` on plan ${key.plan}` : ""}, covering ${key.sports.join(", ")}; it ${view}. ` +
    `${usage.requests_used} of ${usage.requests_quota} requests used this month (resets ${usage.resets_at}); ${pace}. ` +
    `At most ${key.limits.requests_per_second} requests a second. ${footing(meta)}`
  );
}

export function eventsSummary({ data, meta }: Answer): string {
  const events = data as Event[];
  const live = events.filter((e) => e.status === "live").length;
  const more = meta.next_cursor ? `More: call again with cursor="${meta.next_cursor}".` : "That is the last page.";
  const head = `${plural(events.length, "event")} on this page (${live} live, ${events.length - live} upcoming)`;
  return `${head}${events.length ? `: ${listed(events, eventLine)}` : ""}. ${more} ${footing(meta)}`;
}

export function eventSummary({ data, meta }: Answer): string {
  return `${eventLine(data as Event)}. ${footing(meta)}`;
}

export function lineupsSummary({ data, meta }: Answer): string {
  const lineup = data as Lineup;
  const sides =
    lineup.home.length + lineup.away.length === 0
      ? "not published yet (they are, about an hour before kickoff)"
      : `${plural(lineup.home.length, "player")} for the home side, ${lineup.away.length} for the away side`;
  return `Lineups of ${lineup.event_id}: ${sides}. ${footing(meta)}`;
}

export function boardSummary({ data, meta }: Answer): string {
  const events = data as Event[];
  const markets = events.reduce((sum, e) => sum + (e.markets?.length ?? 0), 0);
  const head = `${plural(events.length, "event")} in play with ${plural(markets, "market")}`;
  const each = (event: Event) => {
    const first = event.markets?.[0];
    return first ? `${eventLine(event)}: ${marketLine(first)}` : eventLine(event);
  };
  return `${head}${events.length ? `: ${listed(events, each)}` : ""}. ${footing(meta)}`;
}

export function eventOddsSummary({ data, meta }: Answer): string {
  const event = data as Event;
  const markets = event.markets ?? [];
  const head = `${eventLine(event)}, ${plural(markets.length, "market")}`;
  return `${head}${markets.length ? `: ${listed(markets, marketLine)}` : ""}. ${footing(meta)}`;
}

export function stateSummary(answer: Answer): string {
  return Array.isArray(answer.data) ? boardSummary(answer) : eventOddsSummary(answer);
}

export function changesSummary({ data, meta }: Answer): string {
  const changes = data as Change[];
  const next = `call again with since=${meta.next_since} to go on`;
  if (changes.length === 0) return `Nothing changed yet; ${next}. ${footing(meta)}`;
  const events = new Set(changes.map((c) => c.data.event_id ?? c.data.id));
  const byKind = (kind: string) => changes.filter((c) => c.event === kind).length;
  return (
    `${plural(changes.length, "change")} (${byKind("event")} to events, ${byKind("markets")} to markets) of ` +
    `${plural(events.size, "event")}, through revision ${meta.next_since}; ${next}. ${footing(meta)}`
  );
}

export function marketHistorySummary({ data, meta }: Answer): string {
  const history = data as MarketHistory;
  const first = history.points[0];
  const last = history.points.at(-1);
  if (!first || !last) return `No state of market ${history.market_id} in that window. ${footing(meta)}`;
  const prices = (point: PricePoint) => point.outcomes.map((o) => o.price).join(" / ");
  return (
    `Market ${history.market_id} of ${history.event_id}: ${plural(history.points.length, "state")} from ` +
    `${first.at} (${prices(first)}, ${first.status}) to ${last.at} (${prices(last)}, ${last.status}). ${footing(meta)}`
  );
}
