import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { isApiPath } from "./api/index.ts";
import { apiRequestFromNode, writeApiResponse } from "./api/request/node.ts";
import { readiness } from "./health.ts";
import type { Instance } from "./instance.ts";
import { logger } from "./log/index.ts";
import { MCP_PATH } from "./mcp/connect.ts";
import { mcpHandler } from "./mcp/http.ts";
import { answerUnservedMethod } from "./http/page-methods.ts";
import { answerAsteriskForm } from "./http/request-target.ts";
import { JSON_SECURITY_HEADERS, STRICT_TRANSPORT_SECURITY } from "./http/security-headers.ts";

// The node:http entry: operational endpoints, the public API, its MCP server and the provider
// ingest are answered here, straight from node:http, because Next's request pipeline costs many
// times the work of an API answer (docs/decisions/node-http-entry.md); everything else goes to Next.

const FEED_PATH = "/api/feed/v1/updates";

type NextHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export function nodeEntry(
  instance: Instance,
  next: NextHandler,
  isStopping: () => boolean,
): (req: IncomingMessage, res: ServerResponse) => void {
  const { config } = instance;
  const mcp = mcpHandler(instance.api);
  // Over https (the public address says so, or a trusted load balancer did), browsers are told to
  // use nothing else: a session cookie must never travel in the clear.
  const servedOverHttps = (req: IncomingMessage): boolean =>
    config.NEXTAUTH_URL?.startsWith("https:") === true ||
    (config.TRUST_PROXY_HOPS > 0 &&
      String(req.headers["x-forwarded-proto"] ?? "")
        .split(",")[0]
        ?.trim() === "https");

  return (req, res) => {
    const path = (req.url ?? "/").split("?", 1)[0] ?? "/";
    const method = req.method ?? "GET";
    lingerAfterEarlyAnswer(req, res);
    if (servedOverHttps(req)) res.setHeader("strict-transport-security", STRICT_TRANSPORT_SECURITY);
    if (req.url === "*") return answerAsteriskForm(res, method);
    if ((path === "/healthz" || path === "/readyz") && (method === "GET" || method === "HEAD")) {
      if (path === "/healthz") return sendJson(res, 200, { status: "ok" }, method);
      // A stopping instance says so at once, so the load balancer sends new clients elsewhere.
      if (isStopping()) return sendJson(res, 503, { status: "stopping" }, method);
      void readiness(instance.database).then((report) => sendJson(res, report.status, report.body, method));
      return;
    }
    if (path === "/status.json" && (method === "GET" || method === "HEAD")) {
      // Public and read by other sites' dashboards: any origin, cached as long as it is.
      instance.status.report().then(
        (report) =>
          sendJson(res, 200, report, method, {
            "cache-control": "public, max-age=30",
            "access-control-allow-origin": "*",
          }),
        (error: unknown) => failed(res, method, error, "Reading the status failed"),
      );
      return;
    }
    const { metrics } = instance;
    if (path === "/metrics" && metrics && config.METRICS_TOKEN && (method === "GET" || method === "HEAD")) {
      metrics.scrape(config.METRICS_TOKEN, req.headers.authorization).then(
        (answer) => {
          res.writeHead(answer.status, { ...JSON_SECURITY_HEADERS, ...answer.headers });
          res.end(method === "HEAD" ? undefined : answer.body);
        },
        (error: unknown) => failed(res, method, error, "Collecting the metrics failed"),
      );
      return;
    }
    // The MCP server, whichever entry serves /api/v1: its tools run the API's pipeline in this process.
    if (path === MCP_PATH) return mcp(req, res);
    if (config.API_ENTRY === "node" && isApiPath(path)) {
      instance.api.handle(apiRequestFromNode(req)).then(
        (response) => writeApiResponse(res, response),
        (error: unknown) => failed(res, method, error, "Unhandled error in the API"),
      );
      return;
    }
    // The API answers its own methods (405 with its Allow); every other path, the methods it serves.
    if (!isApiPath(path) && answerUnservedMethod(res, path, method, FEED_PATH)) return;
    if (path === FEED_PATH && method === "POST") {
      instance.ingest(webRequest(req)).then(
        (response) => writeWebResponse(res, response),
        (error: unknown) => failed(res, method, error, "Unhandled error in the feed ingest"),
      );
      return;
    }
    // Sign-in throttling counts per client address. The connection's peer goes last in
    // X-Forwarded-For, after what trusted load balancers wrote (TRUST_PROXY_HOPS); with none, a
    // client's own X-Forwarded-For is dropped so it cannot choose its address.
    const peer = req.socket.remoteAddress ?? "unknown";
    const forwarded = req.headers["x-forwarded-for"];
    req.headers["x-forwarded-for"] = config.TRUST_PROXY_HOPS > 0 && forwarded ? `${String(forwarded)}, ${peer}` : peer;
    // next-auth takes its origin and the cookie's Secure flag from these when NEXTAUTH_URL is
    // unset: a client must not choose them, only a trusted load balancer may have set them.
    if (config.TRUST_PROXY_HOPS === 0) {
      delete req.headers["x-forwarded-host"];
      delete req.headers["x-forwarded-proto"];
    }
    next(req, res).catch((error: unknown) => failed(res, method, error, "Unhandled error in a page or action"));
  };
}

// How long a connection answered before its request's body ended is read on before it is dropped.
const LINGER_MS = 2_000;

/**
 * An answer given before its request's body has all arrived (a refused upload) ends the connection
 * in stages (RFC 9112, section 9.6): the answer and a FIN, then the rest of the body read and
 * dropped for up to LINGER_MS. Closed at once, the body still arriving made the kernel reset the
 * connection, and a client still sending lost the answer unread.
 */
function lingerAfterEarlyAnswer(req: IncomingMessage, res: ServerResponse): void {
  if (req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined) return;
  const socket = req.socket;
  res.once("finish", () => {
    if (req.complete || socket.destroyed) return;
    // Node ends a connection its answer closes, then destroys it once the FIN is written (the
    // socket's destroySoon); the destroy waits for the client or the bound instead.
    if (socket.listeners("finish").includes(socket.destroy)) {
      socket.removeListener("finish", socket.destroy);
      const bound = setTimeout(() => socket.destroy(), LINGER_MS).unref();
      socket.once("close", () => clearTimeout(bound));
      socket.once("end", () => socket.destroy());
      socket.resume();
    }
  });
}

function failed(res: ServerResponse, method: string, error: unknown, message: string): void {
  logger().error({ err: error }, message);
  if (!res.headersSent) sendJson(res, 500, { status: "internal_error" }, method);
  else res.destroy();
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  method: string,
  headers: Record<string, string> = {},
): void {
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(status, {
    ...JSON_SECURITY_HEADERS,
    "content-type": "application/json",
    "content-length": bytes.length,
    "cache-control": "no-store",
    ...headers,
  });
  res.end(method === "HEAD" ? undefined : bytes);
}

function webRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  return new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, {
    method: req.method,
    headers,
    body: Readable.toWeb(req) as ReadableStream<Uint8Array>,
    duplex: "half",
  } as RequestInit);
}

async function writeWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, { ...Object.fromEntries(response.headers), "content-length": body.length });
  res.end(body);
}
