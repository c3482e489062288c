import { DATABASE_WAIT_MS } from "../../db/wait.ts";
import { wallClockMs } from "../../clock.ts";
import { newRequestId } from "../../http/problem.ts";
import { keyHint } from "../../keys/format.ts";
import type { ApiKeyRecord } from "../../keys/lookup.ts";
import type { StreamSlot } from "../../metering/index.ts";
import { SSE_CONTENT_TYPE } from "../../streams/sse.ts";
import { authenticate } from "../credentials/authentication.ts";
import { ApiError } from "./errors.ts";
import { parseInput, parseQuery } from "./input.ts";
import { overLimit } from "../credentials/members.ts";
import {
  ALLOWED_METHODS,
  API_HEADERS,
  isPreflight,
  jsonAnswer,
  preflightAnswer,
  problemAnswer,
} from "./negotiation.ts";
import type { ApiRequest, ApiResponse, ApiServices, Endpoint, RequestContext, RequestTrace } from "./types.ts";
import { unavailableError, unlessDatabaseFails } from "./unavailable.ts";

// The endpoints, the servers and the OpenAPI document import these from here.
export {
  ALLOWED_METHODS,
  API_HEADERS,
  acceptsGzip,
  isPreflight,
  preflightAnswer,
  problemAnswer,
} from "./negotiation.ts";
export {
  defineEndpoint,
  defineStreamEndpoint,
  type ApiRequest,
  type ApiResponse,
  type ApiServices,
  type Endpoint,
  type Reply,
  type RequestContext,
  type RequestTrace,
  type StreamContext,
  type StreamOpening,
  type StreamReply,
} from "./types.ts";

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
  let meta = { used: 0, quota: 0, keyUsed: 0, organisationUsed: null as number | null };
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
    // Awaited only when a read is under way: once its key is cached, a request never waits.
    const authenticated = authenticate(services, endpoint, request, at);
    const principal = authenticated instanceof Promise ? await authenticated : authenticated;
    const { key, keyValue } = principal;
    const member = principal.userId !== null;
    if (principal.userId !== null) trace.userId = principal.userId;
    else trace.key = { id: key.id, hint: keyHint(keyValue), orgId: key.orgId };
    // Before admission: a stream over the limit is refused, and not counted.
    slot = endpoint?.stream ? streamSlot(services, key, member, at) : null;
    try {
      // A member's reads are counted as a key's are, under the member's own principal and limits.
      const notAfter = wallClockMs() + DATABASE_WAIT_MS;
      const admitting = unlessDatabaseFails(
        () => services.meter.admit(key, at, notAfter),
        "count the request",
        notAfter,
      );
      const admission = admitting instanceof Promise ? await admitting : admitting;
      limitHeaders = admission.headers;
      if (!admission.admitted) {
        throw new ApiError(admission.code, overLimit(member, admission, key), {
          headers: { "retry-after": String(admission.retryAfter) },
          extensions: { "violated-policies": [admission.violated] },
        });
      }
      journaled = admission.journaled;
      meta = {
        used: admission.used,
        quota: admission.quota,
        keyUsed: admission.counts.key.used,
        organisationUsed: admission.counts.organisation?.used ?? null,
      };
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
        requestsUsed: meta.keyUsed,
        organisationUsed: meta.organisationUsed,
        sandbox,
        delaySeconds,
        view: sandbox ? services.views.delayed(at) : services.views.present,
        tokens: services.streamTokens,
        clientAddress: principal.address,
        history: services.history,
        historySeconds: services.historySeconds,
        stream: slot
          ? {
              hub: services.streams,
              principal: { key, keyHash: principal.keyHash, session: member, address: principal.address },
              lastEventId: request.header("last-event-id"),
              requestId,
              slot,
              onlyEvent: principal.onlyEvent,
            }
          : null,
      };
      const handled = endpoint.handle(context, input);
      const reply = handled instanceof Promise ? await handled : handled;
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
          // The one cursor: a stream opened with last_event_id=<revision> misses nothing after this answer.
          revision: context.view.revision,
          ...reply.meta,
        };
        response = jsonAnswer(request, reply, fullMeta, requestId, limitHeaders);
      }
    } catch (error) {
      slot?.release();
      throw error;
    }
  } catch (error) {
    response = problemAnswer(error, requestId, request.method, limitHeaders);
    trace.code = error instanceof ApiError ? error.code : "internal_error";
    if (error instanceof ApiError && error.options.refusedKey) trace.refusedKey = error.options.refusedKey;
  }
  // A counted request is answered once its count is journaled, whatever the answer. A count that
  // could not be written was taken back: the request is answered as one the service could not count.
  if (journaled) {
    try {
      await journaled;
    } catch (error) {
      if (response.stream) slot?.release();
      trace.code = "unavailable";
      return problemAnswer(unavailableError(error, "count the request"), requestId, request.method, limitHeaders);
    }
  }
  return response;
}

/** A place among the key's (or the member's) concurrent streams, across instances; 429 over the limit. */
function streamSlot(services: ApiServices, key: ApiKeyRecord, member: boolean, at: Date): StreamSlot {
  const hub = services.streams;
  if (!hub.acceptingStreams) {
    throw new ApiError("unavailable", "This instance is not opening streams (it is stopping); reconnect.", {
      headers: { "retry-after": "1" },
    });
  }
  const slot = services.meter.openStream(key, at);
  if (slot) return slot;
  const shared = key.pool
    ? `, or the organisation's keys and members together have ${key.pool.concurrentStreams} open, as many as its plan allows`
    : "";
  throw new ApiError(
    "rate_limited",
    `${member ? "Your session" : "The key"} already has ${key.concurrentStreams} streams open, as many as ${member ? "a console member may" : "its plan allows"}${shared}. Close one first.`,
    { headers: { "retry-after": "5" }, extensions: { "violated-policies": ["streams"] } },
  );
}
