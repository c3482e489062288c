import { createHash, timingSafeEqual } from "node:crypto";
import type { Database } from "../db/index.ts";
import { newRequestId, problemResponse } from "../http/problem.ts";
import type { ServiceErrorCode } from "../http/service-errors.ts";
import { logger } from "../log/index.ts";
import { applyBatch, type EventNames } from "./ingest.ts";
import { parseNdjson } from "./ndjson.ts";
import type { FeedViews } from "./views.ts";

// POST /api/feed/v1/updates: a provider's batch of updates as NDJSON, answered line by line.

export const MAX_BATCH_LINES = 5_000;
export const MAX_BATCH_BYTES = 10 * 1024 * 1024;
const MEDIA_TYPES = ["application/x-ndjson", "application/jsonl", "application/ndjson"];

function sameToken(given: string, expected: string): boolean {
  // Digests of equal length, so the comparison takes the same time whatever was sent.
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

type OwnViews = Pick<FeedViews, "offer" | "reach">;

export async function handleFeedUpdates(
  request: Request,
  deps: {
    db: Database;
    /** The ids of competitions and sides earlier batches learned: one per instance. */
    names?: EventNames;
    token: string | undefined;
    now: () => Date;
    /** This instance's views: handed the batch's revisions, waited for (bounded) so the answer means "visible here". */
    views?: OwnViews;
  },
): Promise<Response> {
  const requestId = newRequestId();
  const fail = (
    status: number,
    code: ServiceErrorCode,
    title: string,
    detail: string,
    headers?: Record<string, string>,
  ) => problemResponse(status, code, title, detail, { requestId, headers });

  if (!deps.token) {
    return fail(
      403,
      "ingest_disabled",
      "Ingest is disabled",
      "This instance accepts no feed updates: FEED_TOKEN is not set.",
    );
  }
  const authorization = request.headers.get("authorization") ?? "";
  const match = /^bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) {
    return fail(
      401,
      "missing_feed_token",
      "Feed token required",
      "Send the feed token as `Authorization: Bearer <FEED_TOKEN>`.",
      {
        "www-authenticate": 'Bearer realm="feed"',
      },
    );
  }
  if (!sameToken(match[1]!, deps.token)) {
    return fail(401, "invalid_feed_token", "Invalid feed token", "The feed token is not valid.", {
      "www-authenticate": 'Bearer realm="feed", error="invalid_token"',
    });
  }
  const mediaType = (request.headers.get("content-type") ?? "").split(";", 1)[0]!.trim().toLowerCase();
  if (!MEDIA_TYPES.includes(mediaType)) {
    return fail(
      415,
      "unsupported_media_type",
      "Unsupported media type",
      `Send the batch as NDJSON, one update per line, with Content-Type: application/x-ndjson (got ${mediaType || "none"}).`,
    );
  }
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > MAX_BATCH_BYTES) {
    return fail(413, "batch_too_large", "Batch too large", `A batch may hold at most ${MAX_BATCH_BYTES} bytes.`);
  }
  const body = await readAtMost(request, MAX_BATCH_BYTES);
  if (body === null) {
    return fail(413, "batch_too_large", "Batch too large", `A batch may hold at most ${MAX_BATCH_BYTES} bytes.`, {
      connection: "close",
    });
  }
  const lines = parseNdjson(body);
  if (lines.length === 0) return fail(400, "empty_batch", "Empty batch", "The batch holds no updates.");
  if (lines.length > MAX_BATCH_LINES) {
    return fail(
      413,
      "batch_too_large",
      "Batch too large",
      `A batch may hold at most ${MAX_BATCH_LINES} updates; it held ${lines.length}.`,
    );
  }
  const result = await applyBatch(deps.db, lines, deps.now(), deps.names);
  const { applied, duplicate, rejected, results } = result;
  // A provider (or a test) that reads right after its batch is answered finds it on this instance,
  // instead of racing the change bus; other instances follow within the bus's lag.
  const last = Math.max(0, ...results.map((line) => line.revision ?? 0));
  if (applied > 0 && deps.views) {
    deps.views.offer(result.revisions);
    await deps.views.reach(last, REACH_WAIT_MS);
  }
  return new Response(
    JSON.stringify({ data: { applied, duplicate, rejected, results }, meta: { request_id: requestId } }),
    {
      status: 200,
      headers: { "content-type": "application/json", "cache-control": "no-store", "x-request-id": requestId },
    },
  );
}

/**
 * The body as text, or null as soon as it passes `limit` bytes: a chunked body declares no length,
 * and the rest of an oversized one is neither waited for nor kept.
 */
async function readAtMost(request: Request, limit: number): Promise<string | null> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString("utf8");
}

/** How long an answer waits for this instance to serve its batch; past it, it answers anyway. */
const REACH_WAIT_MS = 2_000;

/** The provider ingest of one instance: its batches are visible here when the answer comes. */
export function feedIngest(deps: {
  db: Database;
  names: EventNames;
  token: string | undefined;
  now: () => Date;
  views: OwnViews;
}): (request: Request) => Promise<Response> {
  return async (request) => {
    try {
      return await handleFeedUpdates(request, deps);
    } catch (error) {
      logger().error({ err: error }, "Feed ingest failed");
      return problemResponse(503, "unavailable", "Service unavailable", "The batch was not applied; send it again.", {
        headers: { "retry-after": "5" },
      });
    }
  };
}
