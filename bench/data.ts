// Feed updates for the benchmarks (bench/api.ts, bench/metering.ts): what a provider would send
// through POST /api/feed/v1/updates (docs/feed.md), or what they apply in-process with applyBatch.
import { plans, SPORTS, type Sport } from "../lib/db/schema/index.ts";
import type { FeedUpdate } from "../lib/feed/schemas.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const SIDES: Record<Sport, string[]> = {
  soccer: ["Ashford FC", "Bramley United", "Carrow Athletic", "Dunmore Rovers", "Elmstead Town", "Fairfield City"],
  basketball: ["Harbour Hawks", "Inland Owls", "Jetty Pilots", "Kingsway Kings", "Lakeside Lynx", "Moorland Bears"],
  tennis: ["A. Novak", "B. Laurent", "C. Okafor", "D. Silva", "E. Lindqvist", "F. Moreau"],
  "american-football": ["Northport Rams", "Oakvale Bison", "Pinecrest Wolves", "Quarry Miners", "Ridgeway Elk"],
  "ice-hockey": ["Stonebridge Ice", "Tidewater Seals", "Upland Lynx", "Valemount Storm", "Westfield Blades"],
  baseball: ["Amberley Aces", "Brookside Owls", "Cedar Point Reds", "Driftwood Sox", "Eastgate Mariners"],
  cs2: ["Team Helix", "Northern Lights", "Vanta Esports", "Crimson Five", "Orbit Gaming", "Paragon"],
};

const COMPETITIONS: Record<Sport, string> = {
  soccer: "Premier Division",
  basketball: "National League",
  tennis: "City Open",
  "american-football": "Coastal Conference",
  "ice-hockey": "Northern League",
  baseball: "Eastern League",
  cs2: "Masters Series",
};

function pairing(sport: Sport, n: number): { home: string; away: string } {
  const sides = SIDES[sport];
  const home = n % sides.length;
  const away = (home + 1 + (Math.floor(n / sides.length) % (sides.length - 1))) % sides.length;
  return { home: sides[home]!, away: sides[away]! };
}

const iso = (ms: number) => new Date(Math.floor(ms / MINUTE) * MINUTE).toISOString();

/** Upcoming events of every sport, an hour apart from the next hour on. */
export function upcomingEvents(count: number, at: number): FeedUpdate[] {
  return Array.from({ length: count }, (_, i) => {
    const sport = SPORTS[i % SPORTS.length]!;
    return {
      event_id: `bench-up-${i}`,
      sequence: 1,
      event: {
        sport,
        competition: COMPETITIONS[sport],
        ...pairing(sport, i),
        status: "upcoming",
        feed: "official",
        kickoff: iso(at + (i + 1) * HOUR),
      },
    };
  });
}

// Decimal odds from a probability with a bookmaker's margin: above 1.0, two decimals.
const price = (probability: number) => Math.max(1.01, Math.round(100 / (probability * 1.06)) / 100);

type Market = NonNullable<FeedUpdate["markets"]>[number];

function soccerMarkets(eventId: string, n: number, sides: { home: string; away: string }, goals: number): Market[] {
  const home = 0.25 + ((n * 37) % 40) / 100;
  const draw = 0.22 + ((n * 11) % 10) / 100;
  const over = 0.3 + ((n * 13) % 40) / 100;
  const both = 0.35 + ((n * 17) % 30) / 100;
  const noGoal = 0.1 + ((n * 7) % 20) / 100;
  // Now and then a market is suspended after a chance, as a live board shows.
  const suspended = n % 25 === 0;
  const status = suspended ? ("suspended" as const) : ("open" as const);
  const outcome = (id: string, name: string, probability: number) => ({
    id,
    name,
    price: price(probability),
    status: suspended ? ("suspended" as const) : ("active" as const),
  });
  return [
    {
      id: `${eventId}:mw`,
      type: "match_winner",
      name: "Match result",
      line: null,
      status,
      outcomes: [
        outcome("home", sides.home, home),
        outcome("draw", "Draw", draw),
        outcome("away", sides.away, 1 - home - draw),
      ],
    },
    {
      id: `${eventId}:total`,
      type: "total",
      name: "Total goals",
      line: goals + 1.5,
      status,
      outcomes: [outcome("over", `Over ${goals + 1.5}`, over), outcome("under", `Under ${goals + 1.5}`, 1 - over)],
    },
    {
      id: `${eventId}:btts`,
      type: "both_teams_to_score",
      name: "Both teams to score",
      line: null,
      status,
      outcomes: [outcome("yes", "Yes", both), outcome("no", "No", 1 - both)],
    },
    {
      id: `${eventId}:ng`,
      type: "next_goal",
      name: `Goal ${goals + 1}`,
      line: null,
      status,
      outcomes: [
        outcome("home", sides.home, (1 - noGoal) * home * 1.4),
        outcome("none", "No goal", noGoal),
        outcome("away", sides.away, (1 - noGoal) * (1 - home * 1.4)),
      ],
    },
  ];
}

/** Live soccer matches at every minute of play, each with its score, statistics and four markets. */
export function liveSoccer(count: number, at: number): FeedUpdate[] {
  return Array.from({ length: count }, (_, i) => {
    const id = `bench-live-${i}`;
    const minute = 1 + ((i * 7) % 89);
    const secondHalf = minute > 45;
    const score = { home: (i * 3) % 4 === 0 ? 0 : Math.floor(minute / 40), away: i % 3 === 0 ? 1 : 0 };
    const sides = pairing("soccer", i);
    const shots = 2 + Math.floor(minute / 6);
    return {
      event_id: id,
      sequence: 1,
      event: {
        sport: "soccer",
        competition: `${COMPETITIONS.soccer} ${1 + (i % 4)}`,
        ...sides,
        status: "live",
        feed: "official",
        // Kickoff as long ago as the minute of play, plus half-time in the second half.
        kickoff: iso(at - (minute + (secondHalf ? 15 : 0)) * MINUTE),
        score,
        clock: `${String(minute).padStart(2, "0")}:${String((i * 13) % 60).padStart(2, "0")}`,
        period: secondHalf ? "2nd half" : "1st half",
        stats: [
          { label: "Shots", home: shots + (i % 3), away: shots - 1 },
          {
            label: "Shots on target",
            home: Math.floor(shots / 3) + score.home,
            away: Math.floor(shots / 4) + score.away,
          },
          { label: "Corners", home: Math.floor(minute / 15), away: Math.floor(minute / 20) },
          { label: "Possession %", home: 45 + (i % 11), away: 55 - (i % 11) },
          { label: "Yellow cards", home: Math.floor(minute / 50), away: (i + minute) % 3 === 0 ? 1 : 0 },
        ],
      },
      markets: soccerMarkets(id, i, sides, score.home + score.away),
    };
  });
}

/**
 * A plan no benchmark's load reaches (every plan on offer refuses it: pro above 50 requests a
 * second, enterprise above 200). The seed upserts the plans it knows and deletes none, so a row
 * written into a benchmark's scratch database survives the server's start.
 */
export const BENCH_PLAN: typeof plans.$inferInsert = {
  code: "bench",
  name: "Benchmark",
  environment: "production",
  description: "Limits no benchmark reaches; exists only in a benchmark's scratch database.",
  sports: [...SPORTS],
  monthlyQuota: 2_000_000_000,
  requestsPerSecond: 1_000_000_000,
  concurrentStreams: 1_000,
  monthlyPriceCents: null,
  ordinal: 99,
};

/** A change of one live event: the price of its first market's first outcome, from `sequence`. */
export function priceChange(update: FeedUpdate, sequence: number): FeedUpdate {
  const market = update.markets![0]!;
  const price = 1.5 + (sequence % 100) / 100;
  return {
    event_id: update.event_id,
    sequence,
    markets: [{ ...market, outcomes: market.outcomes.map((o, i) => (i === 0 ? { ...o, price } : o)) }],
  };
}
