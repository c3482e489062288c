import type { FeedUpdate } from "../lib/feed/schemas.ts";
import { recordSecret } from "./logs.ts";

// Feed data as a provider sends it: POST /api/feed/v1/updates with the feed token, NDJSON lines.

/** The provider's token every server the harness starts is given (FEED_TOKEN) and posts with. */
export const FEED_TOKEN = "feed-token-for-the-harness-0123456789";

const LINES_PER_POST = 500;

export type FeedAnswer = {
  status: number;
  data?: { applied: number; rejected: number; results: { status: string; revision?: number; message?: string }[] };
  text: string;
};

/** One post of `updates`, whatever the answer: for callers that count refusals (a fault suite). */
export async function postUpdates(
  baseUrl: string,
  updates: unknown[],
  options: { token?: string; timeoutMs?: number } = {},
): Promise<FeedAnswer> {
  const token = options.token ?? FEED_TOKEN;
  recordSecret(token);
  const response = await fetch(`${baseUrl}/api/feed/v1/updates`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/x-ndjson" },
    body: updates.map((update) => JSON.stringify(update)).join("\n"),
    signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
  });
  const text = await response.text();
  let data: FeedAnswer["data"];
  try {
    data = (JSON.parse(text) as { data?: FeedAnswer["data"] }).data;
  } catch {
    data = undefined; // not the ingest's answer (a proxy's page)
  }
  return { status: response.status, data, text };
}

/**
 * Posts provider updates, 500 lines a request, and fails unless every line applied. Resolves with
 * the highest revision the lines made.
 */
export async function ingest(baseUrl: string, updates: unknown[], options: { token?: string } = {}): Promise<number> {
  let revision = 0;
  for (let i = 0; i < updates.length; i += LINES_PER_POST) {
    const answer = await postUpdates(baseUrl, updates.slice(i, i + LINES_PER_POST), options);
    if (answer.status !== 200 || !answer.data) {
      throw new Error(`the ingest answered ${answer.status}: ${answer.text.slice(0, 1_000)}`);
    }
    const rejected = answer.data.results.filter((result) => result.status === "rejected");
    if (answer.data.rejected !== 0 || rejected.length > 0) {
      throw new Error(`the ingest rejected ${answer.data.rejected} lines: ${JSON.stringify(rejected).slice(0, 1_000)}`);
    }
    revision = Math.max(revision, ...answer.data.results.map((result) => result.revision ?? 0));
  }
  return revision;
}

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
