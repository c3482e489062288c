// The server of bench/metering.ts: one process answering /api/v1 on two ports over one instance's
// parts, the one metered as server.ts meters (on PGlite, a journal in DATA_DIR/meter added every
// second), the other through a meter that admits every request and counts nothing. Each port answers exactly as server.ts's node:http
// entry does for /api/v1; there is no Next, no /healthz, nothing else.
//
//   DATA_DIR=… SIM=off node bench/metering-server.ts
//
// Writes nothing outside DATA_DIR. Prints one line, `READY {"metered":URL,"unmetered":URL}`, once
// both listen on 127.0.0.1; SIGTERM (or SIGINT) closes the servers, both APIs (the metered one
// flushes its counts), then the instance, then the process ends.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { loadConfig } from "../lib/config.ts";
import { createApi, type Api } from "../lib/api/index.ts";
import { apiRequestFromNode, writeApiResponse } from "../lib/api/request/node.ts";
import { startInstance } from "../lib/instance.ts";
import type { Admission, Meter } from "../lib/metering/index.ts";

/** Admits everything, counts nothing, sends no rate-limit headers: the API without metering. */
const admitAll: Meter = {
  admit: (key): Admission => ({
    admitted: true,
    used: 0,
    quota: key.monthlyQuota,
    counts: { key: { used: 0, quota: key.monthlyQuota }, organisation: null },
    headers: {},
  }),
  openStream: () => ({ release() {} }),
  close: async () => {},
};

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

// The instance as server.ts composes it (no simulator, no demo organisation: the bench made its own),
// and a second API over the same parts but the meter: the two differ in metering only.
const instance = await startInstance(loadConfig({ ...process.env, SIM: "off", SEED_DEMO: "0" }));
const meteredApi = instance.api;
const unmeteredApi = createApi({ ...instance.services, meter: admitAll }, { requestLog: instance.requestLog });
const metered = serveApi(meteredApi);
const unmetered = serveApi(unmeteredApi);
console.log(`READY ${JSON.stringify({ metered: await listen(metered), unmetered: await listen(unmetered) })}`);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await Promise.all([close(metered), close(unmetered)]);
  await instance.stop();
  // Anything still open (a timer of a library) does not keep the process.
  setTimeout(() => process.exit(), 5_000).unref();
}
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
