// The production server (`npm start`) and the development server (`npm run dev`): one node:http
// server that answers operational endpoints itself and hands every other request to Next.
// The public API is answered here too, straight from node:http, because Next's request pipeline
// costs many times the work of an API answer (see README, "Architecture"); Next's route handlers
// in app/api/v1 call the same implementation (API_ENTRY=next routes the API through them).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { now } from "./lib/clock.ts";
import { authSecret } from "./lib/auth/secret.ts";
import { ConfigError, loadConfig, streamSettings, type Config } from "./lib/config.ts";
import { loadEnvFiles } from "./lib/env-files.ts";
import { closeDatabase, DatabaseUnavailableError, getDatabase } from "./lib/db/index.ts";
import { DataDirInUseError } from "./lib/db/data-dir-lock.ts";
import { isApiPath, startApi } from "./lib/api/index.ts";
import { JSON_SECURITY_HEADERS, STRICT_TRANSPORT_SECURITY } from "./lib/http/security-headers.ts";
import { answerAsteriskForm } from "./lib/http/request-target.ts";
import { apiRequestFromNode, writeApiResponse } from "./lib/api/node.ts";
import { startFeed } from "./lib/feed/service.ts";
import { readiness } from "./lib/health.ts";
import { captureConsole, logger, printForOperator } from "./lib/log/index.ts";
import { startInstanceMeter } from "./lib/metering/index.ts";
import { ServiceMetrics } from "./lib/metrics/index.ts";
import { seed } from "./seeds/index.ts";

const dev = process.argv.includes("--dev");

// Never process.exit() while start-up may still be compiling in the background: Node can deadlock
// joining V8's worker threads (nodejs/node#54918). Set the exit code and let the process end; the
// unref'd timer only ends one that something left open.
function exitSoon(code: number): void {
  process.exitCode = code;
  setTimeout(() => process.exit(), 5_000).unref();
}

function sendJson(res: ServerResponse, status: number, body: unknown, method: string): void {
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(status, {
    ...JSON_SECURITY_HEADERS,
    "content-type": "application/json",
    "content-length": bytes.length,
    "cache-control": "no-store",
  });
  res.end(method === "HEAD" ? undefined : bytes);
}

async function start(config: Config): Promise<void> {
  const handle = await getDatabase(config);
  logger().info(
    `Database: ${handle.kind === "pglite" ? `embedded PGlite in ${handle.location}` : `PostgreSQL at ${handle.location}`} (migrated)`,
  );

  if (config.DATABASE_URL && !config.AUTH_SECRET) {
    logger().warn(
      "AUTH_SECRET is not set: console sessions are signed with a secret kept in DATA_DIR; " +
        "instances sharing a database must share AUTH_SECRET, or a session works on one instance only.",
    );
  }

  // The demo organisation is for a trial on the embedded database: PostgreSQL gets it only when asked.
  const demo = config.SEED_DEMO === undefined ? handle.kind === "pglite" : config.SEED_DEMO === "1";
  const seeded = await seed(handle.db, now(), { demo });
  if (seeded.demoAdmin) {
    // For the person starting the server, never a log record: a password has no place in the logs.
    printForOperator(`Demo sign-in (shown this once): ${seeded.demoAdmin.email} / ${seeded.demoAdmin.password}`);
  } else if (seeded.demoAdminEmail) {
    logger().info(
      `Demo sign-in: ${seeded.demoAdminEmail} (password printed at first start; ` +
        `\`npm run admin -- user reset-password --email ${seeded.demoAdminEmail}\` sets a new one)`,
    );
  }

  const feed = await startFeed(handle, config);
  const { meter, replayed } = await startInstanceMeter(handle, config, feed.bus, now);
  if (replayed > 0) logger().info(`Metering: ${replayed} requests replayed from journals of earlier processes`);
  const metrics = config.METRICS_TOKEN ? new ServiceMetrics() : null;
  const api = await startApi({
    db: handle.db,
    bus: feed.bus,
    views: feed.views,
    now,
    meter,
    streams: streamSettings(config),
    sessionSecret: authSecret(config),
    trustedHops: config.TRUST_PROXY_HOPS,
    observe: metrics ? (route, status, seconds) => metrics.observeRequest(route, status, seconds) : undefined,
  });
  if (metrics) {
    metrics.followFeed(feed.views);
    metrics.watchStreams(api.streams);
    metrics.watchMeter(() => meter.stats());
    metrics.watchDatabase(handle.pool);
    metrics.countQueries(handle.pool.queries);
  }

  // Loaded only now, so that a refused start (configuration, database) exits before Next's large
  // module graph is compiling in the background.
  const { default: next } = await import("next");
  const app = next({ dev, dir: import.meta.dirname, hostname: config.HOST, port: config.PORT });
  await app.prepare();
  const handleWithNext = app.getRequestHandler();

  // Over https (the public address says so, or a trusted load balancer did), browsers are told to
  // use nothing else: a session cookie must never travel in the clear.
  const servedOverHttps = (req: IncomingMessage): boolean =>
    config.NEXTAUTH_URL?.startsWith("https:") === true ||
    (config.TRUST_PROXY_HOPS > 0 &&
      String(req.headers["x-forwarded-proto"] ?? "")
        .split(",")[0]
        ?.trim() === "https");

  let stopping = false;
  // Node's own limits let a client take a minute to send its headers (checked every 30 s) and five
  // to send its request: a client trickling bytes held a connection that long. Headers get
  // HEADERS_TIMEOUT_SECONDS, the whole request (a feed batch of up to 10 MB) a minute, checked each second.
  const headersTimeout = config.HEADERS_TIMEOUT_SECONDS * 1000;
  const limits = {
    headersTimeout,
    requestTimeout: Math.max(60_000, headersTimeout),
    connectionsCheckingInterval: 1_000,
  };
  const server = createServer(limits, (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?", 1)[0] ?? "/";
    const method = req.method ?? "GET";
    if (servedOverHttps(req)) res.setHeader("strict-transport-security", STRICT_TRANSPORT_SECURITY);
    if (req.url === "*") return answerAsteriskForm(res, method);
    if ((path === "/healthz" || path === "/readyz") && (method === "GET" || method === "HEAD")) {
      if (path === "/healthz") return sendJson(res, 200, { status: "ok" }, method);
      // A stopping instance says so at once, so the load balancer sends new clients elsewhere.
      if (stopping) return sendJson(res, 503, { status: "stopping" }, method);
      void readiness(handle).then((report) => sendJson(res, report.status, report.body, method));
      return;
    }
    if (path === "/metrics" && metrics && config.METRICS_TOKEN && (method === "GET" || method === "HEAD")) {
      metrics.scrape(config.METRICS_TOKEN, req.headers.authorization).then(
        (answer) => {
          res.writeHead(answer.status, { ...JSON_SECURITY_HEADERS, ...answer.headers });
          res.end(method === "HEAD" ? undefined : answer.body);
        },
        (error: unknown) => {
          logger().error({ err: error }, "Collecting the metrics failed");
          sendJson(res, 500, { status: "internal_error" }, method);
        },
      );
      return;
    }
    if (config.API_ENTRY === "node" && isApiPath(path)) {
      api.handle(apiRequestFromNode(req)).then(
        (response) => writeApiResponse(res, response),
        (error: unknown) => {
          logger().error({ err: error }, "Unhandled error in the API");
          if (!res.headersSent) sendJson(res, 500, { status: "internal_error" }, method);
          else res.destroy();
        },
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
    handleWithNext(req, res).catch((error: unknown) => {
      logger().error({ err: error, path }, "Unhandled error in a page or action");
      if (!res.headersSent) sendJson(res, 500, { status: "internal_error" }, method);
      else res.destroy();
    });
  });

  await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
  const { port } = server.address() as AddressInfo;
  logger().info(`Ready on http://localhost:${port} (${dev ? "development" : "production"})`);

  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger().info(`${signal}: stopping`);
    // Each stream gets a short retry: its client reconnects to another instance with its last id.
    api.streams.shutdown();
    // Idle keep-alive connections would hold close() open; busy ones get a few seconds to finish.
    server.closeIdleConnections();
    const forced = setTimeout(() => server.closeAllConnections(), 5_000).unref();
    await new Promise((resolve) => server.close(resolve));
    clearTimeout(forced);
    await app.close();
    await api.close();
    await feed.stop();
    await closeDatabase();
    exitSoon(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

async function main(): Promise<void> {
  const envFiles = loadEnvFiles();
  // Readable lines on a developer's terminal, JSON lines otherwise (LOG_FORMAT decides).
  if (dev) process.env.LOG_FORMAT ||= "pretty";
  // Next's own messages, and anything else written with console.*, in the same format.
  captureConsole();
  if (envFiles.length) logger().info(`Configuration: the environment, then ${envFiles.join(" and ")}`);
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    // A refused start is told to the operator as one plain line on stderr, not as a log line.
    if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
    else logger().fatal({ err: error }, "Reading the configuration failed");
    return exitSoon(1);
  }
  try {
    await start(config);
  } catch (error) {
    if (error instanceof DataDirInUseError || error instanceof DatabaseUnavailableError) {
      process.stderr.write(`${error.message}\n`);
    } else logger().fatal({ err: error }, "Start-up failed");
    exitSoon(1);
  }
}

await main();
