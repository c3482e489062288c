// The value lists the tables' check constraints and the public schemas share. No drizzle here, so
// the browser's bundle (the board's schemas) can import them.

export const SPORTS = ["soccer", "basketball", "tennis", "american-football", "ice-hockey", "baseball", "cs2"] as const;
export type Sport = (typeof SPORTS)[number];

export const ENVIRONMENTS = ["sandbox", "production"] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export const EVENT_STATUSES = ["upcoming", "live", "finished", "postponed", "cancelled", "suspended"] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];
export const FEEDS = ["official", "scout", "broadcast", "simulation"] as const;
export type Feed = (typeof FEEDS)[number];
export const SIDES = ["home", "away"] as const;
export type Side = (typeof SIDES)[number];
export const MARKET_TYPES = [
  "match_winner",
  "handicap",
  "total",
  "both_teams_to_score",
  "next_goal",
  "set_winner",
  "map_winner",
  "next_round",
] as const;
export type MarketType = (typeof MARKET_TYPES)[number];
export const MARKET_STATUSES = ["open", "suspended", "settled"] as const;
export type MarketStatus = (typeof MARKET_STATUSES)[number];
export const OUTCOME_STATUSES = ["active", "suspended", "won", "lost", "void"] as const;
export type OutcomeStatus = (typeof OUTCOME_STATUSES)[number];
export const REVISION_KINDS = ["event", "markets", "lineups"] as const;
export type RevisionKind = (typeof REVISION_KINDS)[number];
