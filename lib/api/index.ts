import { SessionRevocations } from "../console/sessions.ts";
import type { Database } from "../db/index.ts";
import type { ChangeBus } from "../bus/index.ts";
import type { FeedViews } from "../feed/views.ts";
import type { KeyCache } from "../keys/cache.ts";
import type { Meter } from "../metering/index.ts";
import { feedSource } from "../streams/feed-source.ts";
import { StreamHub, type StreamSettings } from "../streams/hub.ts";
import { busHeartbeat } from "../streams/liveness.ts";
import { StreamTokens } from "../keys/stream-token.ts";
import { documentResponse, isDocumentPath } from "./documents.ts";
import { KeyHashes } from "./key-hashes.ts";
import { sessionViewer } from "./session-viewer.ts";
import { streamProblem } from "./stream-endpoints.ts";
import { KeyGuesses } from "./guesses.ts";
import { cachedSessions, memberLimits } from "./members.ts";
import { ENDPOINTS } from "./endpoints.ts";
import { newRequestId } from "../http/problem.ts";
import { inRequest, logAccess } from "../log/index.ts";
import {
  serve,
  type ApiRequest,
  type ApiResponse,
  type ApiServices,
  type Endpoint,
  type RequestTrace,
} from "./pipeline.ts";
import { matchEndpoint } from "./router.ts";
import type { RequestLogRecorder } from "../request-log/recorder.ts";

export type { ApiRequest, ApiResponse } from "./pipeline.ts";
export { isApiPath } from "./router.ts";

/**
 * The public API of one instance, transport-neutral: node:http (server.ts) and Next's route
 * handlers (app/api/v1) both call `handle` or `serveOperation`, so there is one implementation.
 */
export type Api = {
  handle(request: ApiRequest): Promise<ApiResponse>;
  /**
   * Serves the endpoint of this `operationId` (null: a path with none). By id, not by object: Next
   * bundles its own copy of lib/api, and only this instance's copy may run the pipeline.
   */
  serveOperation(operationId: string | null, params: Record<string, string>, request: ApiRequest): Promise<ApiResponse>;
  /** This instance's streams. */
  streams: StreamHub;
  close(): Promise<void>;
};

export async function startApi(options: {
  db: Database;
  bus: ChangeBus;
  /** The key directory: keys by hash, emptied by the bus's key changes. */
  keys: KeyCache;
  views: FeedViews;
  now: () => Date;
  meter: Meter;
  streams: StreamSettings;
  /**
   * Signs console sessions (a member's board reads and streams with the session cookie), and is
   * where the stream tokens' key is derived from.
   */
  sessionSecret: string;
  /** How far back the revision history reaches (HISTORY_SECONDS). */
  historySeconds: number;
  /** Load balancers in front that append to X-Forwarded-For (TRUST_PROXY_HOPS). */
  trustedHops?: number;
  /** Told of every answer: its route (the operation id), status and time taken. */
  observe?: (route: string, status: number, seconds: number) => void;
  /** Keeps each key's refused answers and a sample of its admitted ones (written off the request path). */
  requestLog: RequestLogRecorder;
}): Promise<Api> {
  const keys = options.keys;
  const unfollow = await keys.follow(options.bus);
  const revocations = new SessionRevocations();
  const unfollowSessions = await revocations.follow(options.bus);
  const sessions = cachedSessions((token, at) =>
    sessionViewer(options.db, token, options.sessionSecret, at, memberLimits(options.streams.sessionStreams)),
  );
  revocations.onRevoked((revocation) => sessions.forget(revocation?.userId ?? null));
  const history = feedSource(options.db, options.views);
  const streams = new StreamHub({
    feed: history,
    heartbeat: busHeartbeat(options.db, options.bus),
    keys,
    sessions: revocations,
    now: options.now,
    settings: options.streams,
    problem: streamProblem,
  });
  await streams.start();
  const services: ApiServices = {
    keys,
    keyHashes: new KeyHashes(),
    streamTokens: new StreamTokens(options.sessionSecret),
    history,
    historySeconds: options.historySeconds,
    meter: options.meter,
    views: options.views,
    now: options.now,
    streams,
    session: sessions,
    guesses: new KeyGuesses(),
    trustedHops: options.trustedHops ?? 0,
  };
  const observe = options.observe;
  const requestLog = options.requestLog;
  // Every answer, from either entry, in the request's log scope, with one access line. Plain
  // functions over the pipeline's promise: each async layer on the way cost every request a
  // promise and a turn of the microtask queue.
  const served = (endpoint: Endpoint | null, params: Record<string, string>, request: ApiRequest) => {
    const trace: RequestTrace = { requestId: newRequestId() };
    return inRequest(trace.requestId, () => {
      const started = performance.now();
      return serve(services, endpoint, params, request, trace).then((response) => {
        const seconds = (performance.now() - started) / 1000;
        const route = endpoint?.operationId ?? "unknown";
        observe?.(route, response.status, seconds);
        // A request with no known key (none sent, or one that does not exist) has no one to be
        // shown to; a console member's reads are not a key's.
        const logged = trace.key ?? trace.refusedKey;
        const at = Date.now();
        if (logged && requestLog.keeps(logged.id, response.status, at)) {
          requestLog.add({
            orgId: logged.orgId,
            keyId: logged.id,
            at,
            method: request.method,
            path: request.path,
            query: request.query,
            status: response.status,
            code: trace.code ?? null,
            latencyMs: seconds * 1000,
            requestId: trace.requestId,
          });
        }
        logAccess({
          request_id: trace.requestId,
          method: request.method,
          path: request.path,
          route,
          status: response.status,
          duration_ms: Math.round(seconds * 10_000) / 10,
          bytes: Number(response.headers["content-length"] ?? 0),
          ...(trace.key ? { key_id: trace.key.id, key_hint: trace.key.hint } : {}),
          ...(trace.userId ? { user_id: trace.userId } : {}),
          ...(response.stream ? { stream: "opened" as const } : {}),
        });
        return response;
      });
    });
  };
  const api: Api = {
    handle(request) {
      try {
        if (isDocumentPath(request.path)) return Promise.resolve(documentResponse(request.path, request));
        const { endpoint, params } = matchEndpoint(request.path);
        return served(endpoint, params, request);
      } catch (error) {
        return Promise.reject(error as Error); // the callers handle a rejection, never a throw
      }
    },
    serveOperation: (operationId, params, request) =>
      served(ENDPOINTS.find((e) => e.operationId === operationId) ?? null, params, request),
    streams,
    async close() {
      streams.stop();
      unfollow();
      unfollowSessions();
      await services.meter.close();
    },
  };
  return api;
}
