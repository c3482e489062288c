// The server of bench/metering.ts: one process answering /api/v1 on two ports, with the same
// database, feed views and key cache code, the one metered as server.ts meters (the same
// startInstanceMeter: on PGlite, a journal in DATA_DIR/meter added every second), the other through a meter
// that admits every request and counts nothing. Each port answers exactly as server.ts's node:http
// entry does for /api/v1; there is no Next, no /healthz, nothing else.
//
//   DATA_DIR=… SIM=off node bench/metering-server.ts
//
// Writes nothing outside DATA_DIR. Prints one line, `READY {"metered":URL,"unmetered":URL}`, once
// both listen on 127.0.0.1; SIGTERM (or SIGINT) closes the servers, both APIs (the metered one
// flushes its counts), the feed and the database, then the process ends.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { now } from "../lib/clock.ts";
import { authSecret } from "../lib/auth/secret.ts";
import { loadConfig, streamSettings } from "../lib/config.ts";
import { openDatabase } from "../lib/db/index.ts";
import { KeyCache, keysOf } from "../lib/keys/cache.ts";
import { startApi, type Api } from "../lib/api/index.ts";
import { apiRequestFromNode, writeApiResponse } from "../lib/api/node.ts";
import { startFeed } from "../lib/feed/service.ts";
import { startInstanceMeter, type Admission, type Meter } from "../lib/metering/index.ts";
import { RequestLogRecorder } from "../lib/request-log/recorder.ts";
import { seed } from "../seeds/index.ts";

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

const config = loadConfig(process.env);
const handle = await openDatabase(config);
await seed(handle.db, now());
const feed = await startFeed(handle, config, { log: (line) => console.error(line) });
const { meter } = await startInstanceMeter(handle, config, feed.bus, now);
// Both APIs keep a request log, as server.ts's does, so the two differ in metering only.
const requestLog = new RequestLogRecorder(handle.db);
requestLog.start();
const common = {
  db: handle.db,
  requestLog,
  bus: feed.bus,
  views: feed.views,
  now,
  streams: streamSettings(config),
  sessionSecret: authSecret(config),
  historySeconds: config.HISTORY_SECONDS,
};
const meteredApi = await startApi({ ...common, keys: new KeyCache(keysOf(handle.db)), meter });
const unmeteredApi = await startApi({ ...common, keys: new KeyCache(keysOf(handle.db)), meter: admitAll });
const metered = serveApi(meteredApi);
const unmetered = serveApi(unmeteredApi);
console.log(`READY ${JSON.stringify({ metered: await listen(metered), unmetered: await listen(unmetered) })}`);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await Promise.all([close(metered), close(unmetered)]);
  await meteredApi.close();
  await unmeteredApi.close();
  await requestLog.close();
  await feed.stop();
  await handle.close();
  // Anything still open (a timer of a library) does not keep the process.
  setTimeout(() => process.exit(), 5_000).unref();
}
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
