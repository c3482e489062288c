import { now } from "@/lib/clock";
import { loadConfig } from "@/lib/config";
import { getDatabase } from "@/lib/db";
import { handleFeedUpdates } from "@/lib/feed/http";
import { problemResponse } from "@/lib/http/problem";
import { logger } from "@/lib/log";

// POST /api/feed/v1/updates: providers' NDJSON batches, through the same ingest as the simulator.
export async function POST(request: Request): Promise<Response> {
  const config = loadConfig();
  try {
    const { db } = await getDatabase(config);
    return await handleFeedUpdates(request, { db, token: config.FEED_TOKEN, now });
  } catch (error) {
    logger().error({ err: error }, "Feed ingest failed");
    return problemResponse(503, "unavailable", "Service unavailable", "The batch was not applied; send it again.", {
      headers: { "retry-after": "5" },
    });
  }
}
