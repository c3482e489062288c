import { CORS_HEADERS, JSON_SECURITY_HEADERS, PREFLIGHT_HEADERS } from "../../http/security-headers.ts";
import { logger } from "../../log/index.ts";
import { API_ERRORS, ApiError } from "./errors.ts";
import type { ApiRequest, ApiResponse, Reply } from "./types.ts";

// How an answer of /api/v1 is written: its headers, CORS preflights, conditional and compressed
// JSON, and problems.

export const ALLOWED_METHODS = "GET, HEAD";
const VARY = "Accept-Encoding, Authorization, X-Api-Key";

/**
 * On every answer of /api/v1, first: JSON is never sniffed, run or framed, and any origin may read
 * it with a key (never with cookies: see CORS_HEADERS). Constant, so each answer copies one object.
 */
export const API_HEADERS = { ...JSON_SECURITY_HEADERS, ...CORS_HEADERS } as const;

/** A CORS preflight: the browser asks before a cross-origin GET with a key in a header. */
export function isPreflight(request: ApiRequest): boolean {
  return request.method === "OPTIONS" && request.header("access-control-request-method") !== undefined;
}

/**
 * The preflight's answer, the same for any path under /api/v1 (the request itself then gets its
 * 404 or 401 readable): no credentials, never counted. Methods other than GET and HEAD are not
 * offered, and the browser refuses them itself. An OPTIONS that is not a preflight is a 405.
 */
export function preflightAnswer(requestId: string): ApiResponse {
  return {
    status: 204,
    headers: { ...JSON_SECURITY_HEADERS, ...PREFLIGHT_HEADERS, "x-request-id": requestId },
    body: null,
  };
}

/** RFC 9110 12.5.3: gzip when the client names it with q > 0, or names only `*` with q > 0. */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  let wildcard: boolean | undefined;
  for (const part of acceptEncoding.split(",")) {
    const [coding, ...params] = part.trim().toLowerCase().split(";");
    if (coding !== "gzip" && coding !== "*") continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const accepted = !q || Number(q.slice(2)) > 0;
    // An explicit coding wins over `*`, wherever each stands in the list.
    if (coding === "gzip") return accepted;
    wildcard = accepted;
  }
  return wildcard ?? false;
}

function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = etag.replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => {
    const candidate = tag.trim();
    return candidate === "*" || candidate.replace(/^W\//, "") === opaque;
  });
}

export function jsonAnswer(
  request: ApiRequest,
  reply: Reply,
  meta: unknown,
  requestId: string,
  limitHeaders: Record<string, string>,
): ApiResponse {
  // One object, in the order the headers are sent.
  const headers: Record<string, string> = {
    ...API_HEADERS,
    "x-request-id": requestId,
    ...limitHeaders,
    "cache-control": reply.cacheControl ?? "private, no-cache",
    etag: reply.payload.etag,
    vary: VARY,
  };
  // Still counted: the spec counts every request, and the count is in meta (not sent with a 304).
  if (matchesEtag(request.header("if-none-match"), reply.payload.etag)) {
    return { status: 304, headers, body: null };
  }
  const gzip = reply.payload.compressible && acceptsGzip(request.header("accept-encoding"));
  const body = reply.payload.body(meta, gzip);
  headers["content-type"] = "application/json";
  if (gzip) headers["content-encoding"] = "gzip";
  headers["content-length"] = String(body.reduce((length, chunk) => length + chunk.length, 0));
  return { status: 200, headers, body: request.method === "HEAD" ? null : body };
}

/** Any error as the API answers it: an ApiError as itself, anything else as a logged 500. */
export function problemAnswer(
  error: unknown,
  requestId: string,
  method: string,
  limitHeaders: Record<string, string> = {},
): ApiResponse {
  let apiError: ApiError;
  if (error instanceof ApiError) {
    apiError = error;
  } else {
    // Logged with the request id; the client gets the id and nothing of the error itself.
    logger().error({ err: error, request_id: requestId }, "Request failed");
    apiError = new ApiError("internal_error", `Something went wrong on our side. Quote ${requestId} if you report it.`);
  }
  const bytes = Buffer.from(JSON.stringify(apiError.toProblem(requestId)));
  return {
    status: API_ERRORS[apiError.code].status,
    headers: {
      ...API_HEADERS,
      ...limitHeaders,
      ...apiError.options.headers,
      "x-request-id": requestId,
      "content-type": "application/problem+json",
      "cache-control": "no-store",
      "content-length": String(bytes.length),
    },
    body: method === "HEAD" ? null : [bytes],
  };
}
