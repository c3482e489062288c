import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { newRequestId } from "../http/problem.ts";
import { CORS_HEADERS, JSON_SECURITY_HEADERS } from "../http/security-headers.ts";
import { logAccess, logger } from "../log/index.ts";
import { ApiError, problemAnswer, refuseKeyInQuery, writeApiResponse, type Api } from "./api-seam.ts";
import { mcpServer, type Caller } from "./server.ts";

// POST /mcp: the Model Context Protocol over Streamable HTTP, stateless. Each POST gets a server
// and a transport of its own and answers in JSON, so any instance answers any message and nothing
// is kept between them: no session to route to one instance, to lose in a deploy, or to expire.
// GET (a stream of the server's own messages) and DELETE (the end of a session) have nothing to
// serve and are answered 405, as the transport's specification allows.

const ALLOW = "POST, OPTIONS";

/** A JSON-RPC message is a few hundred bytes; a batch of them a few KiB. */
export const MAX_BODY_BYTES = 64 * 1024;

const PREFLIGHT_HEADERS = {
  ...CORS_HEADERS,
  "access-control-allow-methods": "POST",
  "access-control-allow-headers": "Authorization, X-Api-Key, Content-Type, Accept, Mcp-Protocol-Version, Last-Event-ID",
  "access-control-max-age": "7200",
} as const;

const ANSWER_HEADERS = { ...JSON_SECURITY_HEADERS, ...CORS_HEADERS, "cache-control": "no-store" } as const;

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}

/** The node:http handler of /mcp: one server per request, the tools served by `api`'s pipeline. */
export function mcpHandler(api: Api): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const requestId = newRequestId();
    const started = performance.now();
    res.on("finish", () =>
      logAccess({
        request_id: requestId,
        method: req.method ?? "GET",
        path: "/mcp",
        route: "mcp",
        status: res.statusCode,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
        bytes: Number(res.getHeader("content-length") ?? 0),
      }),
    );
    exchange(api, req, res, requestId).catch((error: unknown) => {
      // The problem's answer logs the error with the request id; the client gets the id only.
      if (!res.headersSent) writeApiResponse(res, problemAnswer(error, requestId, req.method ?? "POST"));
      else {
        logger().error({ err: error, request_id: requestId }, "The MCP endpoint failed mid-answer");
        res.destroy();
      }
    });
  };
}

async function exchange(api: Api, req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
  const method = req.method ?? "GET";
  const url = req.url ?? "/";
  if (method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined) {
    res.writeHead(204, { ...JSON_SECURITY_HEADERS, ...PREFLIGHT_HEADERS, "x-request-id": requestId });
    res.end();
    return;
  }
  try {
    // A key in the address would be in logs and histories: refused before anything else, as on /api/v1.
    refuseKeyInQuery(new URLSearchParams(url.includes("?") ? url.slice(url.indexOf("?") + 1) : ""));
    if (method !== "POST") {
      throw new ApiError(
        "method_not_allowed",
        `${method} is not served: the MCP endpoint is stateless, and every message is a POST (Streamable HTTP).`,
        { headers: { allow: ALLOW } },
      );
    }
  } catch (error) {
    writeApiResponse(res, problemAnswer(error, requestId, method));
    return;
  }
  const caller: Caller = { header: (name) => single(req.headers[name]), peer: req.socket.remoteAddress };
  const server = mcpServer(api, caller);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MAX_BODY_BYTES,
  });
  try {
    await server.connect(transport);
    const answer = await transport.handleRequest(webRequest(req, url));
    const body = Buffer.from(await answer.arrayBuffer());
    res.writeHead(answer.status, {
      ...Object.fromEntries(answer.headers),
      ...ANSWER_HEADERS,
      "x-request-id": requestId,
      "content-length": String(body.length),
    });
    res.end(body);
  } finally {
    await server.close();
  }
}

function webRequest(req: IncomingMessage, url: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, single(value)!);
  }
  // The transport reads the body itself, within MAX_BODY_BYTES (413 beyond); the host plays no part.
  return new Request(`http://localhost${url}`, {
    method: "POST",
    headers,
    body: Readable.toWeb(req) as ReadableStream<Uint8Array>,
    duplex: "half",
  } as RequestInit);
}
