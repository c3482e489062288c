import type { z } from "zod";
import type { FeedMirror } from "../feed/mirror.ts";
import type { FeedViews } from "../feed/views.ts";
import type { KeyCache } from "../keys/cache.ts";
import { checkKeyFormat, hashKey, keyHint } from "../keys/format.ts";
import { keyLicenceRefusal } from "../licences.ts";
import type { ApiKeyRecord } from "../keys/lookup.ts";
import { newRequestId } from "../http/problem.ts";
import { CORS_HEADERS, JSON_SECURITY_HEADERS, PREFLIGHT_HEADERS } from "../http/security-headers.ts";
import type { Meter, StreamSlot } from "../metering/index.ts";
import type { StreamHub, StreamRequest } from "../streams/hub.ts";
import type { StreamSink } from "../streams/sink.ts";
import { SSE_CONTENT_TYPE } from "../streams/sse.ts";
import { readCredentials } from "./credentials.ts";
import { clientAddressOf, type KeyGuesses } from "./guesses.ts";
import { overLimit, sessionCookieOf, sessionExpired, type SessionReader } from "./members.ts";
import { API_ERRORS, ApiError, type ApiErrorCode, type ParamError } from "./errors.ts";
import type { Payload } from "./payload.ts";
import { logger } from "../log/index.ts";
import { DATABASE_WAIT_MS, DatabaseWaitExceeded, withinDatabaseWait } from "../db/wait.ts";

/** A request as the API sees it, whichever server received it (node:http or Next). */
export type ApiRequest = {
  method: string;
  path: string;
  query: URLSearchParams;
  /** A header by its lower-case name; undefined when absent. */
  header(name: string): string | undefined;
  /** The connection's peer, when X-Forwarded-For does not end with it yet (node:http). */
  peer?: string;
};

/**
 * An answer: `body` is written chunk by chunk (null for HEAD and 304); a stream's answer has no
 * body but `stream`, which the server calls with the connection once the headers are sent.
 */
export type ApiResponse = {
  status: number;
  headers: Record<string, string>;
  body: Buffer[] | null;
  stream?: (sink: StreamSink) => void;
};

/** What every handler gets: the key, the view of the feed it may see, and its parsed input. */
export type RequestContext = {
  key: ApiKeyRecord;
  /** The key as sent (GET /me echoes it: it is the caller's own). */
  keyValue: string;
  at: Date;
  sandbox: boolean;
  delaySeconds: number;
  view: FeedMirror;
  /** For a stream endpoint: what opening the stream needs beyond the key. */
  stream: StreamOpening | null;
};

/** The parts of a stream's request the pipeline settled: who, which slot, which id to resume after. */
export type StreamOpening = Omit<StreamRequest, "sink" | "view"> & { hub: StreamHub };

export type Reply = {
  payload: Payload;
  /** Meta beyond the spec's four (a list's next_cursor). */
  meta?: Record<string, unknown>;
  cacheControl?: string;
};

/**
 * A stream endpoint's reply: opens the stream on the client's connection; null when there is
 * nothing to follow (an event that is over), answered 204, which every EventSource stops on.
 */
export type StreamReply = { stream: ((sink: StreamSink) => void) | null };

export type Endpoint<P extends z.ZodObject = z.ZodObject, Q extends z.ZodObject = z.ZodObject> = {
  operationId: string;
  /** The spec's path, with `{name}` for path parameters. */
  path: string;
  summary: string;
  description: string;
  tag: string;
  params?: P;
  query: Q;
  /** The envelope of a 200 answer, for the OpenAPI document. */
  response: z.ZodType;
  /** Errors beyond those every endpoint can answer, for the OpenAPI document. */
  errors: ApiErrorCode[];
  /** A Server-Sent Events stream: the data schema of each message it sends, by event name. */
  stream?: { messages: Record<string, z.ZodType> };
  /**
   * A console member's browser may read it with the session cookie instead of a key (the live
   * board's first state); streams always may. Counted against the member (lib/api/members.ts).
   */
  console?: true;
  handle(context: RequestContext, input: { params: z.infer<P>; query: z.infer<Q> }): Reply | StreamReply;
};

/** Types a handler by its schemas; the pipeline parses the input with the same schemas. */
export function defineEndpoint<P extends z.ZodObject, Q extends z.ZodObject>(endpoint: Endpoint<P, Q>): Endpoint {
  return endpoint as unknown as Endpoint;
}

export type ApiServices = {
  keys: KeyCache;
  meter: Meter;
  views: FeedViews;
  now: () => Date;
  /** This instance's streams, and how a console member's session is read (the board's endpoints). */
  streams?: StreamHub;
  session?: SessionReader;
  /** Unknown keys per client address, and how many load balancers append to X-Forwarded-For. */
  guesses?: KeyGuesses;
  trustedHops?: number;
};

/** Who a request was for, once known, for its access log line (never the key itself). */
export type RequestTrace = { requestId: string; key?: { id: string; hint: string }; userId?: string };

export const ALLOWED_METHODS = "GET, HEAD";
const VARY = "Accept-Encoding, Authorization, X-Api-Key";

/**
 * On every answer of /api/v1, first: JSON is never sniffed, run or framed, and any origin may read
 * it with a key (never with cookies: see CORS_HEADERS). Constant, so each answer copies one object.
 */
export const API_HEADERS = { ...JSON_SECURITY_HEADERS, ...CORS_HEADERS } as const;

/**
 * The one wrapper of every /api/v1 endpoint, in a fixed order: request id, method, credentials,
 * key (checksum before any lookup), revocation and expiry, metering, input, entitlement (in the
 * handler), the envelope, conditional and compressed answers; every throw becomes one problem.
 * `endpoint` null is a path under /api/v1 that does not exist: a 404 to a known key, counted.
 */
export async function serve(
  services: ApiServices,
  endpoint: Endpoint | null,
  rawParams: Record<string, string>,
  request: ApiRequest,
  trace: RequestTrace = { requestId: newRequestId() },
): Promise<ApiResponse> {
  const { requestId } = trace;
  let limitHeaders: Record<string, string> = {};
  let meta = { used: 0, quota: 0 };
  let slot: StreamSlot | null = null;
  let journaled: Promise<void> | undefined;
  let response: ApiResponse;
  try {
    if (request.method !== "GET" && request.method !== "HEAD") {
      if (isPreflight(request)) return preflightAnswer(requestId);
      throw new ApiError("method_not_allowed", `${request.method} is not allowed: the API is read-only (GET, HEAD).`, {
        headers: { allow: ALLOWED_METHODS },
      });
    }
    const at = services.now();
    // A console member's board reads and streams with the session cookie, when no key is sent.
    const token = endpoint?.stream || endpoint?.console ? sessionCookieOf(request) : undefined;
    const member = token !== undefined ? await openSession(services, token, at) : null;
    const keyValue = member ? "" : readCredentials(request.header, request.query);
    // Awaited only when a read is under way: once its key is cached, a request never waits.
    const authenticated = member ? member.key : authenticate(services, request, keyValue, at);
    const key = authenticated instanceof Promise ? await authenticated : authenticated;
    if (member) trace.userId = member.userId;
    else trace.key = { id: key.id, hint: keyHint(keyValue) };
    // Before admission: a stream over the limit is refused, and not counted.
    slot = endpoint?.stream ? streamSlot(services, key, member !== null, at) : null;
    try {
      // A member's reads are counted as a key's are, under the member's own principal and limits.
      const notAfter = Date.now() + DATABASE_WAIT_MS;
      const admitting = unlessDatabaseFails(
        () => services.meter.admit(key, at, notAfter),
        "count the request",
        notAfter,
      );
      const admission = admitting instanceof Promise ? await admitting : admitting;
      limitHeaders = admission.headers;
      if (!admission.admitted) {
        throw new ApiError(admission.code, overLimit(member !== null, admission, key), {
          headers: { "retry-after": String(admission.retryAfter) },
          extensions: { "violated-policies": [admission.violated] },
        });
      }
      journaled = admission.journaled;
      meta = { used: admission.used, quota: admission.quota };
      if (!endpoint)
        throw new ApiError("not_found", `There is no ${request.path}. The API's paths are in /api/v1/openapi.json.`);
      const input = {
        params: endpoint.params ? parseInput(endpoint.params, rawParams, "path") : {},
        query: parseQuery(endpoint.query, request.query),
      };
      const sandbox = key.environment === "sandbox";
      const delaySeconds = sandbox ? services.views.delaySeconds : 0;
      const context: RequestContext = {
        key,
        keyValue,
        at,
        sandbox,
        delaySeconds,
        view: sandbox ? services.views.delayed(at) : services.views.present,
        stream: slot
          ? {
              hub: services.streams!,
              principal: { key, keyHash: member ? null : wellFormedKeyHash(keyValue), session: member !== null },
              lastEventId: request.header("last-event-id"),
              requestId,
              slot,
            }
          : null,
      };
      const reply = endpoint.handle(context, input);
      if ("stream" in reply) {
        const headers = {
          ...API_HEADERS,
          "x-request-id": requestId,
          ...limitHeaders,
          "content-type": SSE_CONTENT_TYPE,
          "cache-control": "no-store",
          // Proxies that buffer (nginx) pass a stream's messages on as they come.
          "x-accel-buffering": "no",
        };
        if (reply.stream === null) {
          slot?.release();
          response = {
            status: 204,
            headers: { ...API_HEADERS, "x-request-id": requestId, ...limitHeaders },
            body: null,
          };
        } else if (request.method === "HEAD") {
          slot?.release();
          response = { status: 200, headers, body: null };
        } else {
          response = { status: 200, headers, body: null, stream: reply.stream };
        }
      } else {
        const fullMeta = {
          sandbox,
          delay_seconds: delaySeconds,
          requests_used: meta.used,
          requests_quota: meta.quota,
          ...reply.meta,
        };
        response = answer(request, reply, fullMeta, requestId, limitHeaders);
      }
    } catch (error) {
      slot?.release();
      throw error;
    }
  } catch (error) {
    response = problemAnswer(error, requestId, request.method, limitHeaders);
  }
  // A counted request is answered once its count is journaled, whatever the answer. A count that
  // could not be written was taken back: the request is answered as one the service could not count.
  if (journaled) {
    try {
      await journaled;
    } catch (error) {
      if (response.stream) slot?.release();
      return problemAnswer(unavailableError(error, "count the request"), requestId, request.method, limitHeaders);
    }
  }
  return response;
}

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

async function openSession(services: ApiServices, token: string, at: Date) {
  if (!services.session) return null;
  const session = services.session;
  const member = await unlessDatabaseFails(() => session(token, at), "read the session");
  if (!member) throw sessionExpired();
  return member;
}

/** A place among the key's (or the member's) concurrent streams, across instances; 429 over the limit. */
function streamSlot(services: ApiServices, key: ApiKeyRecord, member: boolean, at: Date): StreamSlot {
  const hub = services.streams;
  if (!hub?.acceptingStreams) {
    throw new ApiError("unavailable", "This instance is not opening streams (it is stopping); reconnect.", {
      headers: { "retry-after": "1" },
    });
  }
  const slot = services.meter.openStream(key, at);
  if (slot) return slot;
  throw new ApiError(
    "rate_limited",
    `${member ? "Your session" : "The key"} already has ${key.concurrentStreams} streams open, as many as ${member ? "a console member may" : "its plan allows"}. Close one first.`,
    { headers: { "retry-after": "5" }, extensions: { "violated-policies": ["streams"] } },
  );
}

// RFC 6750: a 401 for a key that was sent says it is not a usable token.
const INVALID_TOKEN = { "www-authenticate": 'Bearer error="invalid_token"' };

function invalidKey(): ApiError {
  return new ApiError(
    "invalid_api_key",
    "The API key is not valid. Check that it was copied whole; keys start svc_sb_ or svc_sk_.",
    { headers: INVALID_TOKEN },
  );
}

// SHA-256 of the keys already seen, by the value sent: a client sends the same key on every
// request, and checking its checksum and hashing it again each time was a visible share of a
// request's CPU. Only well-formed keys are kept, and the oldest goes when the map is full, so
// invented keys cannot grow it. A hash is a pure function of the key, so an entry is never stale.
const KEY_HASHES_MAX = 10_000;
const keyHashes = new Map<string, string>();

/** The hash of a key whose checksum matches; null for anything else. */
function wellFormedKeyHash(keyValue: string): string | null {
  const known = keyHashes.get(keyValue);
  if (known !== undefined) return known;
  // The checksum refuses mistyped and invented keys without a database read.
  if (!checkKeyFormat(keyValue)) return null;
  const keyHash = hashKey(keyValue);
  if (keyHashes.size >= KEY_HASHES_MAX) keyHashes.delete(keyHashes.keys().next().value!);
  keyHashes.set(keyValue, keyHash);
  return keyHash;
}

/**
 * The active key sent: synchronous once the key is cached, a promise while it is read. A key this
 * instance knows nothing of costs a read, so each client address may cause only so many.
 */
function authenticate(
  services: ApiServices,
  request: ApiRequest,
  keyValue: string,
  at: Date,
): ApiKeyRecord | Promise<ApiKeyRecord> {
  const { keys, guesses } = services;
  const keyHash = wellFormedKeyHash(keyValue);
  if (keyHash === null) throw invalidKey();
  let address: string | undefined;
  if (guesses && !keys.knows(keyHash) && !keys.knowsUnknown(keyHash)) {
    address = clientAddressOf(request.header("x-forwarded-for"), request.peer, services.trustedHops ?? 0);
    guesses.take(address, Date.now());
  }
  const found = unlessDatabaseFails(() => keys.resolve(keyHash), "check the key");
  if (!(found instanceof Promise)) return usableKey(found, at);
  return found.then((key) => {
    if (key && address !== undefined) guesses!.giveBack(address);
    return usableKey(key, at);
  });
}

function usableKey(key: ApiKeyRecord | null, at: Date): ApiKeyRecord {
  if (!key) throw invalidKey();
  if (key.revokedAt) {
    throw new ApiError("key_revoked", `This key was revoked on ${key.revokedAt.toISOString()}.`, {
      headers: INVALID_TOKEN,
    });
  }
  if (key.expiresAt && key.expiresAt <= at) {
    throw new ApiError(
      "key_expired",
      `This sandbox key expired at ${key.expiresAt.toISOString()}. An organisation has one sandbox key; production keys come with a licence and a plan.`,
      { headers: INVALID_TOKEN },
    );
  }
  const licence = keyLicenceRefusal(key, at);
  if (licence !== null) throw new ApiError("licence_inactive", licence);
  return key;
}

/**
 * What needs the database on the way in (a key not yet cached, a first count, a session) answers
 * 503 with Retry-After when the database fails or does not answer within DATABASE_WAIT_MS,
 * instead of a 500 or a request held until the client gives up: the client should simply try
 * again. A result already at hand is returned as it is, not wrapped in a promise: most requests
 * need no database, and each promise, timer and await on the way costs them.
 */
function unlessDatabaseFails<T>(work: () => T | Promise<T>, what: string, notAfter?: number): T | Promise<T> {
  try {
    const result = work();
    if (!(result instanceof Promise)) return result;
    return withinDatabaseWait(result, notAfter ?? Date.now() + DATABASE_WAIT_MS).catch((error: unknown) =>
      unavailable(error, what),
    );
  } catch (error) {
    return unavailable(error, what);
  }
}

function unavailable(error: unknown, what: string): never {
  throw unavailableError(error, what);
}

/** The 503 of work the service could not do now (logged), or the ApiError the work threw itself. */
function unavailableError(error: unknown, what: string): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof DatabaseWaitExceeded) logger().warn(`Could not ${what}: ${error.message}`);
  else logger().error({ err: error }, `Could not ${what}`);
  return new ApiError("unavailable", `The service cannot ${what} right now; try again in a few seconds.`, {
    headers: { "retry-after": "2" },
  });
}

function issuesToErrors(issues: z.core.$ZodIssue[], fallback: string): ParamError[] {
  return issues.map((issue) => ({ param: String(issue.path[0] ?? fallback), message: issue.message }));
}

function parseInput<S extends z.ZodObject>(schema: S, values: Record<string, string>, where: string): z.infer<S> {
  const parsed = schema.safeParse(values);
  if (parsed.success) return parsed.data;
  const errors = issuesToErrors(parsed.error.issues, where);
  throw new ApiError("invalid_parameter", errors.map((e) => `${e.param}: ${e.message}`).join("; "), { errors });
}

function parseQuery<S extends z.ZodObject>(schema: S, query: URLSearchParams): z.infer<S> {
  const known = Object.keys(schema.shape);
  const values: Record<string, string> = {};
  const unknown: ParamError[] = [];
  const repeated: ParamError[] = [];
  for (const [name, value] of query) {
    if (!known.includes(name)) {
      if (!unknown.some((e) => e.param === name)) {
        unknown.push({
          param: name,
          message: known.length
            ? `not a parameter of this endpoint (it takes ${known.join(", ")})`
            : "this endpoint takes no parameters",
        });
      }
    } else if (name in values) {
      repeated.push({ param: name, message: "given more than once; give it once" });
    } else {
      values[name] = value;
    }
  }
  if (unknown.length) {
    throw new ApiError(
      "unknown_parameter",
      `Unknown query parameter ${unknown.map((e) => `"${e.param}"`).join(", ")}.`,
      {
        errors: unknown,
      },
    );
  }
  if (repeated.length) {
    throw new ApiError("invalid_parameter", repeated.map((e) => `${e.param}: ${e.message}`).join("; "), {
      errors: repeated,
    });
  }
  return parseInput(schema, values, "query");
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

function answer(
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
