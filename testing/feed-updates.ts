// Feed updates as a provider sends them, for suites that build a small world of their own: a live
// event with its three markets, a price change, a change of the event. Sequences rise per process.

let sequence = 0;
const next = () => ++sequence;

export type Side = { home: string; away: string };

export function market(
  eventId: string,
  type: "match_winner" | "handicap" | "total",
  prices: number[],
  status = "open",
) {
  const line = type === "handicap" ? -1.5 : type === "total" ? 2.5 : null;
  const names =
    type === "match_winner"
      ? ["Home", "Draw", "Away"]
      : type === "handicap"
        ? ["Home -1.5", "Away +1.5"]
        : ["Over 2.5", "Under 2.5"];
  return {
    id: `${eventId}-${type}`,
    type,
    name: type === "match_winner" ? "Match winner" : type === "handicap" ? "Handicap" : "Total goals",
    line,
    status,
    outcomes: prices.map((price, index) => ({
      id: `${eventId}-${type}-${index}`,
      name: names[index]!,
      price,
      status: status === "open" ? "active" : status === "settled" ? (index === 0 ? "won" : "lost") : "suspended",
    })),
  };
}

/** A market of any type, each outcome with its name, price and status (`active`, or how it settled). */
export function marketOf(
  eventId: string,
  key: string,
  type: string,
  name: string,
  outcomes: { name: string; price: number; status?: string }[],
  status = "open",
) {
  return {
    id: `${eventId}-${key}`,
    type,
    name,
    line: null,
    status,
    outcomes: outcomes.map((outcome, index) => ({
      id: `${eventId}-${key}-${index}`,
      name: outcome.name,
      price: outcome.price,
      status: outcome.status ?? (status === "open" ? "active" : "suspended"),
    })),
  };
}

export function liveEvent(
  id: string,
  sport: string,
  competition: string,
  sides: Side,
  prices = [2.1, 3.4, 3.2],
  options: { startedMinutesAgo?: number } = {},
) {
  return {
    event_id: id,
    sequence: next(),
    event: {
      sport,
      competition,
      home: sides.home,
      away: sides.away,
      status: "live",
      feed: "official",
      kickoff: new Date(Date.now() - (options.startedMinutesAgo ?? 30) * 60_000).toISOString(),
      score: { home: 0, away: 0 },
      clock: "30:00",
      period: "1st half",
      stats: [
        { label: "Possession %", home: 55, away: 45 },
        { label: "Shots", home: 6, away: 3 },
      ],
    },
    markets: [
      market(id, "match_winner", prices),
      market(id, "handicap", [1.9, 1.9]),
      market(id, "total", [1.85, 1.95]),
    ],
    lineups: {
      home: [{ number: 1, name: `${sides.home} Keeper`, position: "GK" }],
      away: [{ number: 1, name: `${sides.away} Keeper`, position: "GK" }],
    },
  };
}

export function priceChange(id: string, prices: number[], status = "open") {
  return { event_id: id, sequence: next(), markets: [market(id, "match_winner", prices, status)] };
}

export function eventChange(id: string, change: Record<string, unknown>) {
  return { event_id: id, sequence: next(), event: change };
}

/** Markets of an event changed, each whole. */
export function marketsChange(id: string, markets: unknown[]) {
  return { event_id: id, sequence: next(), markets };
}
