import { documentResponse, isDocumentPath } from "./documents/index.ts";
import { wallClockMs } from "../clock.ts";
import { newRequestId } from "../http/problem.ts";
import { inRequest, logAccess } from "../log/index.ts";
import {
  serve,
  type ApiRequest,
  type ApiResponse,
  type ApiServices,
  type Endpoint,
  type RequestTrace,
} from "./request/pipeline.ts";
import { matchEndpoint } from "./request/router.ts";
import type { RequestLogRecorder } from "../ops/request-log/recorder.ts";

export type { ApiRequest, ApiResponse } from "./request/pipeline.ts";
export { isApiPath } from "./request/router.ts";

/**
 * The public API of one instance, transport-neutral: node:http (lib/node-entry.ts), Next's route
 * handlers (app/api/v1) and the MCP server's tools all call `handle`, which finds the endpoint by
 * its path in the one table (lib/api/request/router.ts).
 */
export type Api = {
  handle(request: ApiRequest): Promise<ApiResponse>;
};

/** The API over services the instance composed: it starts and stops nothing of its own. */
export function createApi(
  services: ApiServices,
  options: {
    /** Told of every answer: its route (the operation id), status and time taken. */
    observe?: (route: string, status: number, seconds: number) => void;
    /** Keeps each key's refused answers and a sample of its admitted ones (written off the request path). */
    requestLog: RequestLogRecorder;
  },
): Api {
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
        const at = wallClockMs();
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
  };
  return api;
}
