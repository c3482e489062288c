import type { MarketType, Sport } from "./db/schema/index.ts";

/**
 * The market types each sport offers. A type a sport does not offer gives no markets (not an
 * error) on the odds board; the ingest refuses a market of a type its event's sport does not offer.
 */
export const SPORT_MARKET_TYPES: Record<Sport, readonly MarketType[]> = {
  soccer: ["match_winner", "handicap", "total", "both_teams_to_score", "next_goal"],
  basketball: ["match_winner", "handicap", "total"],
  tennis: ["match_winner", "set_winner", "total"],
  "american-football": ["match_winner", "handicap", "total"],
  "ice-hockey": ["match_winner", "handicap", "total", "next_goal"],
  baseball: ["match_winner", "handicap", "total"],
  cs2: ["match_winner", "map_winner", "next_round", "total"],
};

/** The positions of a starting lineup, in order: short codes as the sport writes them. */
export const LINEUP_POSITIONS: Record<Sport, readonly string[]> = {
  soccer: ["GK", "RB", "CB", "CB", "LB", "CM", "CM", "CAM", "RW", "LW", "ST"],
  basketball: ["PG", "SG", "SF", "PF", "C"],
  // The player is the side.
  tennis: ["S"],
  "american-football": ["QB", "RB", "WR", "WR", "TE", "LT", "LG", "C", "RG", "RT", "WR"],
  "ice-hockey": ["G", "D", "D", "LW", "C", "RW"],
  baseball: ["CF", "SS", "1B", "RF", "3B", "LF", "2B", "C", "P"],
  cs2: ["IGL", "AWP", "ENT", "SUP", "LRK"],
};

/** The sports as people read them; the API and the URLs keep the codes. */
export const SPORT_NAMES: Record<Sport, string> = {
  soccer: "Soccer",
  basketball: "Basketball",
  tennis: "Tennis",
  "american-football": "American football",
  "ice-hockey": "Ice hockey",
  baseball: "Baseball",
  cs2: "Counter-Strike 2",
};

export function sportName(code: string): string {
  return SPORT_NAMES[code as Sport] ?? code;
}

/** "Soccer, Ice hockey and Tennis". */
export function sportNames(codes: readonly string[]): string {
  const names = codes.map(sportName);
  return names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}
