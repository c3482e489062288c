import { z } from "zod";
import { ENDPOINTS } from "../endpoints/index.ts";
import { ERROR_CODES_PAGE } from "../../http/problem.ts";
import { API_ERRORS, ApiError, type ApiErrorCode } from "../request/errors.ts";
import { ALLOWED_METHODS, type Endpoint } from "../request/pipeline.ts";
import { GUESSES_PER_WINDOW } from "../credentials/guesses.ts";
import { MEMBER_LIMITS } from "../credentials/members.ts";
import { streamOperation } from "./openapi-streams.ts";
import { ASYNCAPI_PATH } from "../request/router.ts";
import { components } from "../endpoints/schemas.ts";
import { DESKTOP_CONFIG, MCP_SUMMARY, SDK_CLIENT } from "../../mcp/connect.ts";

// The OpenAPI 3.1 document, generated from the zod schemas that validate requests and type the
// answers (lib/api/endpoints/schemas.ts) and from the endpoint definitions (lib/api/endpoints/index.ts).

type JsonSchema = Record<string, unknown>;

const COMPONENT_REF = "#/components/schemas/";

function withoutDialect(schema: JsonSchema): JsonSchema {
  const rest = { ...schema };
  delete rest.$schema;
  delete rest.$id;
  return rest;
}

/** A schema that uses registered components, with its references pointing at the document's. */
function schemaOf(schema: z.ZodType, io: "input" | "output" = "output"): JsonSchema {
  const json = z.toJSONSchema(schema, { metadata: components, target: "draft-2020-12", io });
  const rest = withoutDialect(json);
  delete rest.$defs; // the same schemas are the document's components
  return JSON.parse(JSON.stringify(rest).replaceAll('"#/$defs/', `"${COMPONENT_REF}`)) as JsonSchema;
}

/** Every registered schema, in the dialect asked for (the AsyncAPI document's is draft-07). */
export function componentSchemas(target: "draft-2020-12" | "draft-07" = "draft-2020-12"): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(components, { uri: (id) => `${COMPONENT_REF}${id}`, target });
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, withoutDialect(schema as JsonSchema)]));
}

const HEADERS = {
  "X-Request-Id": {
    description: "Identifies the request; equal to `request_id` in an error body. Quote it when reporting a problem.",
    schema: { type: "string", examples: ["req_3f9c2a7d0b1e4c5a8f6d2e1b0a9c8d7e"] },
  },
  RateLimit: {
    description:
      'What is left of each policy and seconds until it resets (draft-ietf-httpapi-ratelimit-headers-10), e.g. `"second";r=9;t=1, "month";r=4711;t=86400`.',
    schema: { type: "string" },
  },
  "RateLimit-Policy": {
    description: 'The key\'s policies, e.g. `"second";q=10;w=1, "month";q=100000;w=2592000`.',
    schema: { type: "string" },
  },
  ETag: {
    description: "Weak validator of `data`; send it back in `If-None-Match` to get 304 while nothing changed.",
    schema: { type: "string" },
  },
  "Retry-After": { description: "Seconds to wait before trying again.", schema: { type: "integer" } },
  Allow: { description: "The methods the API answers.", schema: { type: "string", const: ALLOWED_METHODS } },
  "WWW-Authenticate": { description: "`Bearer`, with `error` when a key was sent.", schema: { type: "string" } },
} as const;

const ref = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

const EXAMPLE_REQUEST_ID = "req_3f9c2a7d0b1e4c5a8f6d2e1b0a9c8d7e";
const STATUS_MESSAGE = 'Invalid option: expected one of "live"|"upcoming"';

// One example of each error, built as the pipeline builds the real ones.
const PROBLEM_EXAMPLES: Record<ApiErrorCode, ApiError> = {
  invalid_parameter: new ApiError("invalid_parameter", `status: ${STATUS_MESSAGE}`, {
    errors: [{ param: "status", message: STATUS_MESSAGE }],
  }),
  unknown_parameter: new ApiError("unknown_parameter", 'Unknown query parameter "page".', {
    errors: [
      { param: "page", message: "not a parameter of this endpoint (it takes sport, status, limit, cursor, as_of)" },
    ],
  }),
  conflicting_credentials: new ApiError(
    "conflicting_credentials",
    "Authorization and X-Api-Key carry different keys; send one key, in one of them.",
  ),
  missing_api_key: new ApiError(
    "missing_api_key",
    "This endpoint needs an API key: send `Authorization: Bearer <key>` or `X-Api-Key: <key>`.",
  ),
  invalid_api_key: new ApiError(
    "invalid_api_key",
    "The API key is not valid. Check that it was copied whole; keys start svc_sb_ or svc_sk_.",
  ),
  key_revoked: new ApiError("key_revoked", "This key was revoked on 2026-11-02T10:15:00.000Z."),
  key_expired: new ApiError("key_expired", "This sandbox key expired at 2026-11-30T09:00:00.000Z."),
  session_expired: new ApiError("session_expired", "The console session is not valid any more; sign in again."),
  token_expired: new ApiError(
    "token_expired",
    "This stream token expired at 2026-11-21T15:56:07.000Z; mint another with GET /api/v1/stream-token.",
  ),
  sport_not_covered: new ApiError("sport_not_covered", "This sandbox key covers soccer only, not tennis."),
  licence_inactive: new ApiError(
    "licence_inactive",
    "The organisation's licence MGA/B2B/123 was revoked on 2026-11-20: production keys are served only while the organisation's licence is verified and in force.",
  ),
  ip_not_allowed: new ApiError(
    "ip_not_allowed",
    "This key is limited to 203.0.113.0/24, 2001:db8::/32; the request came from 198.51.100.7. The key's IP allowlist is set in the console.",
  ),
  not_found: new ApiError("not_found", "No event soc-bdrn-983512."),
  retention_exceeded: new ApiError(
    "retention_exceeded",
    "Revision 1204 is older than the history kept (900 seconds, from revision 5310): read the current state and go on from its meta.revision.",
  ),
  method_not_allowed: new ApiError("method_not_allowed", "POST is not allowed: the API is read-only (GET, HEAD)."),
  rate_limited: new ApiError("rate_limited", "Over the key's limit of 10 requests per second.", {
    extensions: { "violated-policies": ["second"] },
  }),
  quota_exceeded: new ApiError(
    "quota_exceeded",
    "The key used its monthly quota of 1000 requests; it starts again at the next month (UTC).",
    { extensions: { "violated-policies": ["month"] } },
  ),
  internal_error: new ApiError(
    "internal_error",
    `Something went wrong on our side. Quote ${EXAMPLE_REQUEST_ID} if you report it.`,
  ),
  unavailable: new ApiError("unavailable", "The service is starting; try again shortly."),
};

function errorResponse(codes: ApiErrorCode[]) {
  const status = API_ERRORS[codes[0]!].status;
  const headers: Record<string, unknown> = { "X-Request-Id": ref("X-Request-Id") };
  if (status === 401) headers["WWW-Authenticate"] = ref("WWW-Authenticate");
  if (status === 405) headers.Allow = ref("Allow");
  if (status === 429 || status === 503) headers["Retry-After"] = ref("Retry-After");
  if (status === 429 || status === 403 || status === 404 || status === 400 || status === 410) {
    headers.RateLimit = ref("RateLimit");
    headers["RateLimit-Policy"] = ref("RateLimit-Policy");
  }
  return {
    description: codes.map((code) => `\`${code}\`: ${API_ERRORS[code].description}`).join("\n\n"),
    headers,
    content: {
      "application/problem+json": {
        schema: { $ref: `${COMPONENT_REF}Problem` },
        examples: Object.fromEntries(
          codes.map((code) => [
            code,
            {
              summary: API_ERRORS[code].title,
              value: PROBLEM_EXAMPLES[code].toProblem(EXAMPLE_REQUEST_ID),
            },
          ]),
        ),
      },
    },
  };
}

// Every endpoint can answer these; an endpoint adds its own (404, 403).
const COMMON_ERRORS: ApiErrorCode[] = [
  "invalid_parameter",
  "unknown_parameter",
  "conflicting_credentials",
  "missing_api_key",
  "invalid_api_key",
  "key_revoked",
  "key_expired",
  "licence_inactive",
  "ip_not_allowed",
  "method_not_allowed",
  "rate_limited",
  "quota_exceeded",
  "internal_error",
  "unavailable",
];

function parameters(endpoint: Endpoint) {
  const list: unknown[] = [];
  for (const [location, schema] of [
    ["path", endpoint.params],
    ["query", endpoint.query],
  ] as const) {
    if (!schema) continue;
    for (const [name, property] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
      const json = schemaOf(property, "input");
      const { description, ...rest } = json;
      list.push({
        name,
        in: location,
        required: location === "path" || !property.safeParse(undefined).success,
        description: description ?? property.description,
        schema: rest,
      });
    }
  }
  return list;
}

const CONSOLE_NOTE =
  "A signed-in console member's browser may read it with the console's session cookie instead of a key (the live " +
  "board does), with the organisation's entitlement: its plan's sports in real time while it may hold production " +
  "keys, otherwise the sandbox's view of one sport (its sandbox key's, else the first sport). Each member has limits " +
  `of their own, across instances: ${MEMBER_LIMITS.requestsPerSecond} requests per second and ` +
  `${MEMBER_LIMITS.monthlyQuota} a month (UTC), reported in \`RateLimit\` and \`meta\` as a key's are; the ` +
  "organisation's keys are not charged. A key sent with the request always wins over the cookie.\n\n";

function operation(endpoint: Endpoint) {
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of [...COMMON_ERRORS, ...endpoint.errors]) {
    const status = API_ERRORS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const okHeaders = {
    "X-Request-Id": ref("X-Request-Id"),
    RateLimit: ref("RateLimit"),
    "RateLimit-Policy": ref("RateLimit-Policy"),
    ETag: ref("ETag"),
  };
  const errors = Object.fromEntries(
    [...byStatus].sort(([a], [b]) => a - b).map(([status, codes]) => [status, errorResponse(codes)]),
  );
  if (endpoint.stream) return streamOperation(endpoint, parameters(endpoint), errors);
  return {
    operationId: endpoint.operationId,
    tags: [endpoint.tag],
    summary: endpoint.summary,
    description: `${endpoint.description}\n\n${endpoint.console ? CONSOLE_NOTE : ""}HEAD is answered too, with the same headers and no body.`,
    parameters: parameters(endpoint),
    responses: {
      200: {
        description:
          "The `{data, meta}` envelope. Bodies of 1 KB and more are gzipped when `Accept-Encoding` allows it.",
        headers: okHeaders,
        content: { "application/json": { schema: schemaOf(endpoint.response) } },
      },
      304: {
        description: "`If-None-Match` matched the current `ETag`: nothing changed. Counted like any request.",
        headers: okHeaders,
      },
      ...errors,
    },
  };
}

const DESCRIPTION = `Live and upcoming sports events (status, score, clock, period, statistics), lineups and in-play odds. The streams are also described in AsyncAPI 3.0: [${ASYNCAPI_PATH}](${ASYNCAPI_PATH}).

**Keys.** Send your key as \`Authorization: Bearer <key>\` or \`X-Api-Key: <key>\`. Both with the same key is fine; different keys are refused (400 \`conflicting_credentials\`, not counted). A key in the query string is never accepted. Sandbox keys (\`svc_sb_\`) cover one sport and see the feed as it was 60 seconds earlier (\`sandbox: true\`, \`meta.delay_seconds\` 60); production keys (\`svc_sk_\`) see it in real time, for the sports of their plan.

**Envelope.** Every success is \`{"data": …, "meta": {"sandbox", "delay_seconds", "requests_used", "requests_quota"}}\`; lists add \`meta.next_cursor\`. Every error is RFC 9457 problem details (\`application/problem+json\`) with a stable \`code\` and the \`request_id\` that is also in the \`X-Request-Id\` header. Its \`type\` is \`/docs/errors#<code>\`: a reference with the full path, resolved against the request's URL (RFC 9457, section 3.1.1), to the section of this service's page of error codes that explains the code; it is the same on every deployment.

**Counting.** Every admitted request counts against the key's monthly quota (UTC calendar months), including 400, 403, 404 and 304 answers; 401, 405 and 429 answers do not count. \`RateLimit\` and \`RateLimit-Policy\` headers report both limits on every answer to a known key. Windows are wall-clock: the per-second limit counts the UTC second a request arrives in, the quota the UTC calendar month. Every admitted request is recorded before it is answered, and never lost; \`meta.requests_used\` includes the request being answered and never goes down along one connection. Over the quota: 429 \`quota_exceeded\` until the month turns; over the per-second limit or the plan's concurrent streams: 429 \`rate_limited\`; both with \`Retry-After\` and \`violated-policies\`. Keys that pass their checksum but that no one holds: 401 \`invalid_api_key\`, answered without a database read; a key created a moment ago works at once, from any address. Only for the moments an instance re-reads its keys after losing its database's notices, each client address may send ${GUESSES_PER_WINDOW} unknown keys a minute, then 429 \`rate_limited\` (\`violated-policies\` \`unknown_keys\`) until it has sent none for a minute; keys already used from that address keep working.

**Lists.** \`GET /api/v1/events\` is ordered by kickoff, then id, with \`limit\` 1 to 100 (default 50); follow \`meta.next_cursor\` until it is null. Unknown query parameters are refused (400 \`unknown_parameter\`).

**Caching.** Answers carry a weak \`ETag\` of their data; \`If-None-Match\` gets 304 while nothing changed.

**Browsers (CORS).** A page of any origin may call the API with a key in \`Authorization\` or \`X-Api-Key\`: every answer carries \`Access-Control-Allow-Origin: *\` and exposes \`X-Request-Id\`, \`RateLimit\`, \`RateLimit-Policy\`, \`ETag\`, \`Retry-After\`, \`WWW-Authenticate\` and \`Allow\`; a preflight (\`OPTIONS\` with \`Access-Control-Request-Method\`) is answered 204 for \`GET\` and \`HEAD\` with those two headers, \`If-None-Match\` and \`Last-Event-ID\` allowed, and is not counted. Cookies are never a credential across origins: there is no \`Access-Control-Allow-Credentials\`, and the console's session cookie is ignored on a request from another origin (it answers 401 \`missing_api_key\`). A key in a web page is readable by everyone who loads that page, so put a key in a browser only where its users may hold it (an internal tool), and serve a public site from your own server. Streams in a browser: \`EventSource\` cannot send a header, so your server mints a short-lived stream token with \`GET /api/v1/stream-token\` and the page opens \`/api/v1/odds/stream?token=…\` (or an event's stream) with a plain \`EventSource\`; a token opens streams only, from any origin, counts against and ends with the key that minted it, and never reaches the key itself.

**Headers.** Every answer is sent with \`X-Content-Type-Options: nosniff\`, \`Content-Security-Policy: default-src 'none'; frame-ancestors 'none'\` and \`Referrer-Policy: no-referrer\`.

**MCP for AI assistants.** ${MCP_SUMMARY} A desktop assistant's configuration (\`mcpServers\`, the key in a header), and the official TypeScript SDK's client:

\`\`\`json
${DESKTOP_CONFIG}
\`\`\`

\`\`\`ts
${SDK_CLIENT}
\`\`\``;

let document: JsonSchema | undefined;

export function openApiDocument(): JsonSchema {
  document ??= {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: { title: "Sports Event Data API", version: "1.0.0", description: DESCRIPTION },
    externalDocs: { description: "Every error code: status, meaning, what to do", url: ERROR_CODES_PAGE },
    servers: [{ url: "/", description: "This server" }],
    security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
    tags: [
      { name: "Key", description: "The calling key" },
      { name: "Events", description: "Events, one event, lineups" },
      { name: "Odds", description: "Every event in play with its markets" },
      { name: "Streams", description: "Server-Sent Events: one event, or every event in play, as they change" },
    ],
    paths: Object.fromEntries(ENDPOINTS.map((endpoint) => [endpoint.path, { get: operation(endpoint) }])),
    components: {
      schemas: componentSchemas(),
      headers: HEADERS,
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "`Authorization: Bearer svc_sk_…` (or `svc_sb_…`)" },
        apiKeyHeader: { type: "apiKey", in: "header", name: "X-Api-Key", description: "`X-Api-Key: svc_sk_…`" },
        streamToken: {
          type: "apiKey",
          in: "query",
          name: "token",
          description:
            "`?token=svc_st_…`: a browser stream token from `GET /api/v1/stream-token`, on the two streams only (EventSource cannot send headers).",
        },
      },
    },
  };
  return document;
}
