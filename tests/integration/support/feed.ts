import type { FeedUpdate } from "../../../lib/feed/schemas.ts";

/** The provider update that creates an event: every field creation needs, upcoming. */
export function creation(id: string, kickoff: string, sport = "basketball"): FeedUpdate {
  return {
    event_id: id,
    sequence: 1,
    event: {
      sport,
      competition: `${sport} test league`,
      home: `${id} Home`,
      away: `${id} Away`,
      status: "upcoming",
      feed: "scout",
      kickoff,
    } as FeedUpdate["event"],
  };
}
