import "#server-only";
import { newRequestId } from "../../http/problem.ts";
import { webSink } from "../../streams/sink.ts";
import { ApiError } from "./errors.ts";
import { runningApi } from "../../instance.ts";
import { problemAnswer, type ApiRequest, type ApiResponse } from "./pipeline.ts";
import { documentResponse, type DocumentPath } from "../documents/index.ts";

// The route handlers of app/api/v1: one catch-all hands the Web request to the router node:http
// calls (`Api.handle`, lib/api/index.ts), so the Next entry keeps no table of its own.

function apiRequestFromWeb(request: Request): ApiRequest {
  const url = new URL(request.url);
  return {
    method: request.method,
    path: url.pathname,
    query: url.searchParams,
    // Next compresses route handlers' answers itself (and would compress ours again).
    header: (name) => (name === "accept-encoding" ? undefined : (request.headers.get(name) ?? undefined)),
  };
}

function toWebResponse(response: ApiResponse, signal?: AbortSignal): Response {
  if (response.stream) {
    const { sink, body } = webSink(signal ?? new AbortController().signal);
    response.stream(sink);
    return new Response(body, { status: response.status, headers: response.headers });
  }
  const body = response.body ? Buffer.concat(response.body) : null;
  return new Response(body, { status: response.status, headers: response.headers });
}

type Handler = (request: Request) => Promise<Response>;
type RouteHandlers = Record<"GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS", Handler>;

function allMethods(handler: Handler): RouteHandlers {
  return {
    GET: handler,
    HEAD: handler,
    POST: handler,
    PUT: handler,
    PATCH: handler,
    DELETE: handler,
    OPTIONS: handler,
  };
}

/** Every method of every path under /api/v1: GET and HEAD served, the others answered 405 by the pipeline. */
export function routeHandlers(): RouteHandlers {
  return allMethods(async (request) => {
    const api = runningApi();
    if (!api) {
      const error = new ApiError("unavailable", "The API is not running in this process.", {
        headers: { "retry-after": "5" },
      });
      return toWebResponse(problemAnswer(error, newRequestId(), request.method));
    }
    return toWebResponse(await api.handle(apiRequestFromWeb(request)), request.signal);
  });
}

/** Every method of a document's route (lib/api/documents/index.ts), answered without the instance. */
export function documentRouteHandlers(path: DocumentPath): RouteHandlers {
  return allMethods(async (request) => toWebResponse(documentResponse(path, apiRequestFromWeb(request))));
}
