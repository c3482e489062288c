import type { IncomingMessage, ServerResponse } from "node:http";
import { nodeSink } from "../../streams/sink.ts";
import type { ApiRequest, ApiResponse } from "./pipeline.ts";
import type { QueryParams } from "./types.ts";

const NO_QUERY: QueryParams = new URLSearchParams();

/** A node:http request as the API sees it. */
export function apiRequestFromNode(req: IncomingMessage): ApiRequest {
  const url = req.url ?? "/";
  const queryAt = url.indexOf("?");
  return {
    method: req.method ?? "GET",
    path: queryAt === -1 ? url : url.slice(0, queryAt),
    query: queryAt === -1 ? NO_QUERY : new URLSearchParams(url.slice(queryAt + 1)),
    header: (name) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(", ") : value;
    },
    peer: req.socket.remoteAddress ?? "unknown",
  };
}

export function writeApiResponse(res: ServerResponse, response: ApiResponse): void {
  res.writeHead(response.status, response.headers);
  if (response.stream) {
    res.flushHeaders();
    response.stream(nodeSink(res));
    return;
  }
  if (!response.body) {
    res.end();
    return;
  }
  if (response.body.length === 1) {
    res.end(response.body[0]);
    return;
  }
  res.cork();
  for (const chunk of response.body) res.write(chunk);
  res.end();
  res.uncork();
}
