import { AsyncLocalStorage } from "node:async_hooks";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { createMcpHandler, ProtocolError, type McpHttpHandler } from "@modelcontextprotocol/server";
import { newRequestId } from "../http/problem.ts";
import { CORS_HEADERS, JSON_SECURITY_HEADERS } from "../http/security-headers.ts";
import { logAccess, logger } from "../log/index.ts";
import { ApiError, problemAnswer, refuseKeyInQuery, writeApiResponse, type Api } from "./api-seam.ts";
import { mcpServer, type Caller } from "./server.ts";
import { Splices } from "./splice.ts";

// POST /mcp: the Model Context Protocol over Streamable HTTP, through the SDK's HTTP entry, which
// serves the 2026-07-28 revision (every request carries its protocol version, no session) and,
// for clients of the 2025 revisions, their `initialize` and calls statelessly. Each POST is served
// by a server of its own, so any instance answers any message and nothing is kept between them:
// no session to route to one instance, to lose in a deploy, or to expire. GET (the 2025 revisions'
// stream of the server's own messages) and DELETE (the end of a session) have nothing to serve
// and are answered 405, as the transport's specification allows.

const ALLOW = "POST, OPTIONS";

/** A JSON-RPC message is a few hundred bytes; a batch of them a few KiB. */
export const MAX_BODY_BYTES = 64 * 1024;

const PREFLIGHT_HEADERS = {
  ...CORS_HEADERS,
  "access-control-allow-methods": "POST",
  // The 2026-07-28 revision names each request's method and tool in headers of its own.
  "access-control-allow-headers":
    "Authorization, X-Api-Key, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID",
  "access-control-max-age": "7200",
} as const;

const ANSWER_HEADERS = { ...JSON_SECURITY_HEADERS, ...CORS_HEADERS, "cache-control": "no-store" } as const;

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}

/** One request to /mcp: who sent it, and the stand-ins its answer is written with. */
type Exchange = { caller: Caller; splices: Splices };
type Serve = (exchange: Exchange, request: Request) => Promise<Response>;

/** The SDK's handler, whose server for each exchange is built for the caller of the request it serves. */
function sdkHandler(api: Api): Serve {
  // The factory is called within the exchange, so the caller is that of the request being served.
  const exchanges = new AsyncLocalStorage<Exchange>();
  const handler: McpHttpHandler = createMcpHandler(
    () => {
      const exchange = exchanges.getStore();
      if (!exchange) throw new Error("An MCP server was asked for outside an exchange");
      return mcpServer(api, exchange.caller, exchange.splices);
    },
    {
      legacy: "stateless",
      maxRequestBodySize: MAX_BODY_BYTES,
      onerror: (error) => {
        // Requests the SDK refuses (a protocol version it does not serve, a malformed message) are the
        // client's to fix and answered as such: a line when tracing a client. Anything else is ours.
        if (error instanceof ProtocolError || /^(Rejected|Unsupported Media Type)/.test(error.message)) {
          logger().debug({ err: error }, "The MCP handler refused a request");
        } else logger().error({ err: error }, "The MCP handler failed a request");
      },
    },
  );
  return (exchange, request) => exchanges.run(exchange, () => handler.fetch(request));
}

/** The node:http handler of /mcp: one server per request, the tools served by `api`'s pipeline. */
export function mcpHandler(api: Api): (req: IncomingMessage, res: ServerResponse) => void {
  const serve = sdkHandler(api);
  return (req, res) => {
    const requestId = newRequestId();
    const started = performance.now();
    // Set before any answer, so that the headers every answer writes are kept and its length is read back.
    res.setHeader("x-request-id", requestId);
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
    exchange(serve, req, res, requestId).catch((error: unknown) => {
      // The problem's answer logs the error with the request id; the client gets the id only.
      if (!res.headersSent) writeApiResponse(res, problemAnswer(error, requestId, req.method ?? "POST"));
      else {
        logger().error({ err: error, request_id: requestId }, "The MCP endpoint failed mid-answer");
        res.destroy();
      }
    });
  };
}

async function exchange(serve: Serve, req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
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
  const splices = new Splices();
  const answer = await serve({ caller, splices }, webRequest(req, url));
  // One message: a JSON body, or (to a 2025 client) a stream that ends with it.
  const written = Buffer.from(await answer.arrayBuffer());
  const body = splices.empty ? [written] : splices.apply(written);
  res.writeHead(answer.status, {
    ...Object.fromEntries(answer.headers),
    ...ANSWER_HEADERS,
    "x-request-id": requestId,
    "content-length": String(body.reduce((sum, chunk) => sum + chunk.length, 0)),
  });
  res.cork();
  for (const chunk of body) res.write(chunk);
  res.end();
  res.uncork();
}

function webRequest(req: IncomingMessage, url: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, single(value)!);
  }
  // The SDK reads the body itself, within MAX_BODY_BYTES (413 beyond); the host plays no part.
  return new Request(`http://localhost${url}`, {
    method: "POST",
    headers,
    body: Readable.toWeb(req) as ReadableStream<Uint8Array>,
    duplex: "half",
  } as RequestInit);
}
