import { now } from "@/lib/clock";
import { loadConfig } from "@/lib/config";
import { getDatabase } from "@/lib/db";
import { handleFeedUpdates } from "@/lib/feed/http";
import { getFeedService } from "@/lib/feed/service";
import { problemResponse } from "@/lib/http/problem";
import { logger } from "@/lib/log";

// POST /api/feed/v1/updates: providers' NDJSON batches, through the same ingest as the simulator.

/** How long an answer waits for this instance to serve its batch; past it, it answers anyway. */
const REACH_WAIT_MS = 2_000;

export async function POST(request: Request): Promise<Response> {
  const config = loadConfig();
  try {
    const { db } = await getDatabase(config);
    const feed = getFeedService();
    const views = feed?.views;
    return await handleFeedUpdates(request, {
      db,
      names: feed?.names,
      token: config.FEED_TOKEN,
      now,
      reach: views && ((revision) => views.reach(revision, REACH_WAIT_MS)),
    });
  } catch (error) {
    logger().error({ err: error }, "Feed ingest failed");
    return problemResponse(503, "unavailable", "Service unavailable", "The batch was not applied; send it again.", {
      headers: { "retry-after": "5" },
    });
  }
}
