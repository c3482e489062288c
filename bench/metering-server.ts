// The server of bench/metering.ts: one instance answering /api/v1 on one port exactly as server.ts's
// node:http entry does; there is no Next, no /healthz, nothing else. Metered as server.ts meters
// (on PGlite, a journal in DATA_DIR/meter added every second), or with METERING=off through a meter
// that admits every request and counts nothing.
//
//   DATA_DIR=… [METERING=off] node bench/metering-server.ts
//
// Writes nothing outside DATA_DIR. Prints one line, `READY URL`, once it listens on 127.0.0.1;
// SIGTERM (or SIGINT) closes the server, then the instance (the meter flushes its counts), then the
// process ends.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { loadConfig } from "../lib/config.ts";
import type { Api } from "../lib/api/index.ts";
import { apiRequestFromNode, writeApiResponse } from "../lib/api/request/node.ts";
import { startInstance } from "../lib/instance.ts";
import { unmetered } from "../lib/metering/index.ts";

/** A node:http server answering every request as server.ts answers /api/v1. */
function serveApi(api: Api): Server {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    api.handle(apiRequestFromNode(req)).then(
      (response) => writeApiResponse(res, response),
      (error: unknown) => {
        console.error("Unhandled error in the API:", error);
        if (!res.headersSent) {
          res.writeHead(500, { "content-type": "application/json" });
          res.end(JSON.stringify({ status: "internal_error" }));
        } else res.destroy();
      },
    );
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server): Promise<void> {
  // The load generator's keep-alive connections would hold close() open.
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

// The instance as server.ts composes it, but no simulator and no demo organisation (the bench made its own).
const config = loadConfig({ ...process.env, SIM: "off", SEED_DEMO: "0" });
const instance = await startInstance(config, process.env.METERING === "off" ? { parts: { meter: unmetered } } : {});
const server = serveApi(instance.api);
console.log(`READY ${await listen(server)}`);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await close(server);
  await instance.stop();
  // Anything still open (a timer of a library) does not keep the process.
  setTimeout(() => process.exit(), 5_000).unref();
}
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
