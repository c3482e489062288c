// The table alone, with no imports: the public schemas (and so the board in the browser) read its codes.

/**
 * Every error the API answers, by its stable code: the status, the title, and what the OpenAPI
 * document says of it. The one table behind the type, the response body and the reference.
 */
export const API_ERRORS = {
  invalid_parameter: {
    status: 400,
    title: "Invalid parameter",
    description: "A path or query parameter has a value outside what it allows.",
  },
  unknown_parameter: {
    status: 400,
    title: "Unknown parameter",
    description: "The request carries a query parameter the endpoint does not know.",
  },
  conflicting_credentials: {
    status: 400,
    title: "Conflicting credentials",
    description:
      "`Authorization` and `X-Api-Key` carry different keys; neither is used, and the request is not counted.",
  },
  missing_api_key: {
    status: 401,
    title: "Missing API key",
    description: "No key in `Authorization: Bearer` or `X-Api-Key`.",
  },
  invalid_api_key: {
    status: 401,
    title: "Invalid API key",
    description:
      "The key is malformed, fails its checksum, does not exist, or was sent in the query string; or a stream token was not valid, or was sent anywhere but as `?token=` on a stream.",
  },
  key_revoked: { status: 401, title: "API key revoked", description: "The key was revoked in the console." },
  key_expired: {
    status: 401,
    title: "API key expired",
    description:
      "The key passed its `expires_at`: a sandbox key's end, or a production key's expiry (set in the console, or the overlap of a key that was rolled, after which its successor takes over).",
  },
  token_expired: {
    status: 401,
    title: "Stream token expired",
    description:
      "The browser stream token passed its `expires_at` before the stream was opened; mint another with `GET /api/v1/stream-token`.",
  },
  session_expired: {
    status: 401,
    title: "Session expired",
    description: "The console session cookie sent instead of a key is not valid any more; sign in again.",
  },
  sport_not_covered: {
    status: 403,
    title: "Sport not covered",
    description: "The key's sandbox sport or plan does not include the sport asked for.",
  },
  licence_inactive: {
    status: 403,
    title: "Licence inactive",
    description:
      "A production key whose organisation's licence is not verified and in force (pending, rejected, revoked, lapsed or not yet valid); the detail names the licence and the date. Not counted.",
  },
  ip_not_allowed: {
    status: 403,
    title: "Address not allowed",
    description:
      "The key has an IP allowlist and the request came from an address outside it (the client's address: the connection's peer, or behind the service's load balancers the address they saw). Not counted.",
  },
  not_found: { status: 404, title: "Not found", description: "No such event, or no such path under /api/v1." },
  retention_exceeded: {
    status: 410,
    title: "Beyond the history kept",
    description:
      "The revision or moment asked for is older than the revision history reaches (`history_seconds` in `GET /api/v1/me`): ask for a later one, or start again from the current state.",
  },
  method_not_allowed: {
    status: 405,
    title: "Method not allowed",
    description: "The API is read-only: GET and HEAD only.",
  },
  rate_limited: {
    status: 429,
    title: "Rate limited",
    description:
      "Over the key's (or the console member's) requests per second, or (streams) its concurrent streams, or too many unknown keys from the client's address: `violated-policies` says which. Not counted; retry after `Retry-After` seconds.",
  },
  quota_exceeded: {
    status: 429,
    title: "Monthly quota exceeded",
    description:
      "The key (or the console member) used its monthly quota. Not counted; `Retry-After` is the time until the next month (UTC).",
  },
  internal_error: {
    status: 500,
    title: "Internal error",
    description: "Something failed on our side; the `request_id` finds it in our logs.",
  },
  unavailable: {
    status: 503,
    title: "Service unavailable",
    description: "The service cannot answer right now; retry after `Retry-After` seconds.",
  },
} as const satisfies Record<string, { status: number; title: string; description: string }>;

export type ApiErrorCode = keyof typeof API_ERRORS;
