/**
 * The errors answered outside the API: the provider ingest, the metrics and malformed requests to
 * the server itself, by their stable code. With the API's own table (lib/api/request/errors.ts) this is
 * every code a problem body can carry, and each has its section on the reference page of errors.
 */
export const SERVICE_ERRORS = {
  invalid_request_target: {
    status: 400,
    title: "Invalid request target",
    description: "The request's target was `*`, which only `OPTIONS` may use (it asks about the server as a whole).",
  },
  ingest_disabled: {
    status: 403,
    title: "Ingest is disabled",
    description: "Provider ingest: this instance accepts no feed updates, because `FEED_TOKEN` is not set.",
  },
  missing_feed_token: {
    status: 401,
    title: "Feed token required",
    description: "Provider ingest: no `Authorization: Bearer <FEED_TOKEN>` header.",
  },
  invalid_feed_token: {
    status: 401,
    title: "Invalid feed token",
    description: "Provider ingest: the bearer token is not this instance's `FEED_TOKEN`.",
  },
  unsupported_media_type: {
    status: 415,
    title: "Unsupported media type",
    description:
      "Provider ingest: the batch must be NDJSON (`Content-Type: application/x-ndjson`), one update a line. Single sign-on's start (`POST /api/sso/start`): the body must be JSON.",
  },
  invalid_request: {
    status: 400,
    title: "Invalid request",
    description: 'Single sign-on\'s start (`POST /api/sso/start`): the body must be `{"email": "you@example.com"}`.',
  },
  batch_too_large: {
    status: 413,
    title: "Batch too large",
    description: "Provider ingest: the batch holds more than 5,000 updates or 10 MB; send it in smaller batches.",
  },
  empty_batch: { status: 400, title: "Empty batch", description: "Provider ingest: the batch holds no updates." },
  payload_too_large: {
    status: 413,
    title: "Payload too large",
    description: "Console sign-in and sign-out: the form posted is larger than the few kilobytes it can be.",
  },
  invalid_metrics_token: {
    status: 401,
    title: "Unauthorized",
    description: "`GET /metrics`: the bearer token is not the instance's `METRICS_TOKEN`.",
  },
} as const satisfies Record<string, { status: number; title: string; description: string }>;

export type ServiceErrorCode = keyof typeof SERVICE_ERRORS;
