// The production server (`npm start`) and the development server (`npm run dev`): the instance,
// one node:http server in front of it and Next, and the signals that stop them.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { keepPlatformClock } from "./lib/clock.ts";
import { checkServingConfig, ConfigError, loadConfig, type Config } from "./lib/config.ts";
import { DataDirInUseError } from "./lib/db/data-dir-lock.ts";
import { loadEnvFiles } from "./lib/env-files.ts";
import { captureConsole, logger } from "./lib/log/index.ts";
import { registerModuleHooks } from "./lib/ops/module-hooks.ts";
import { releasePooledPages } from "./lib/ops/pooled-pages.ts";

// The service's modules are loaded once the hooks are in place, so that their imports go through them.
registerModuleHooks();
const [{ runAdminCommand }, { DatabaseUnavailableError }, { nodeEntry }, { startInstance }] = await Promise.all([
  import("./lib/ops/admin/commands.ts"),
  import("./lib/db/index.ts"),
  import("./lib/node-entry.ts"),
  import("./lib/instance.ts"),
]);

const dev = process.argv.includes("--dev");

// Never process.exit() while start-up may still be compiling in the background: Node can deadlock
// joining V8's worker threads. Set the exit code and let the process end; the unref'd timer only
// ends one that something left open.
function exitSoon(code: number): void {
  process.exitCode = code;
  setTimeout(() => process.exit(), 5_000).unref();
}

async function start(config: Config): Promise<void> {
  const instance = await startInstance(config, { adminCommands: runAdminCommand });
  keepPlatformClock(Date); // before Next replaces the global Date (lib/clock.ts)
  // Loaded only now, so that a refused start (configuration, database) exits before Next's large
  // module graph is compiling in the background.
  const { default: next } = await import("next");
  const app = next({ dev, dir: import.meta.dirname, hostname: config.HOST, port: config.PORT });
  await app.prepare();
  // What start-up freed is still resident in V8's pool of pages: given back before serving.
  const released = dev ? null : await releasePooledPages();
  if (released) {
    const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
    logger().info(
      { rss_mb_before: mb(released.rssBefore), rss_mb_after: mb(released.rssAfter), ms: Math.round(released.ms) },
      "Start-up memory given back",
    );
  }

  let stopping = false;
  // Headers get HEADERS_TIMEOUT_SECONDS and the whole request (a feed batch of up to 10 MB) a
  // minute, checked each second: Node's own limits let a trickling client hold a connection long.
  const headersTimeout = config.HEADERS_TIMEOUT_SECONDS * 1000;
  const limits = {
    headersTimeout,
    requestTimeout: Math.max(60_000, headersTimeout),
    connectionsCheckingInterval: 1_000,
  };
  const server = createServer(
    limits,
    nodeEntry(instance, app.getRequestHandler(), () => stopping),
  );
  // CONNECT (a proxy's tunnel) names no path of ours: refused as any other method we do not serve,
  // rather than the connection dropped without an answer.
  server.on("connect", (_req, socket) => {
    socket.end(
      "HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD, POST, OPTIONS\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
    );
  });
  await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
  const { port } = server.address() as AddressInfo;
  logger().info(`Ready on http://localhost:${port} (${dev ? "development" : "production"})`);

  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger().info(`${signal}: stopping`);
    // Each stream gets a short retry: its client reconnects to another instance with its last id.
    instance.streams.shutdown();
    // Idle keep-alive connections would hold close() open; busy ones get a few seconds to finish.
    server.closeIdleConnections();
    const forced = setTimeout(() => server.closeAllConnections(), 5_000).unref();
    await new Promise((resolve) => server.close(resolve));
    clearTimeout(forced);
    await app.close();
    await instance.stop();
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
    checkServingConfig(config);
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
