// The baseline of bench/streams.ts: plain node:http holding Server-Sent Events connections and
// writing the bytes it is given to every one of them, doing no other work (no keys, no metering,
// no views, no buffers, no history). It runs in a process of its own, as our server does.
//
//   node bench/sse-broadcaster.ts
//
// POST /snapshot sets what a new connection receives first; POST /broadcast writes its body to every
// open connection, one write each, as our server writes one chunk per subscriber per flush tick.
// Any GET opens a stream.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { serveUntilTerminated } from "../testing/ready.ts";

const subscribers = new Set<ServerResponse>();
let snapshot: Buffer = Buffer.alloc(0);

function bodyOf(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

const server = createServer((req, res) => {
  if (req.method === "POST") {
    void bodyOf(req).then((body) => {
      if (req.url === "/snapshot") snapshot = body;
      else for (const subscriber of subscribers) subscriber.write(body);
      res.end();
    });
    return;
  }
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    "x-accel-buffering": "no",
  });
  res.socket?.setNoDelay(true);
  res.write(snapshot);
  subscribers.add(res);
  req.on("close", () => subscribers.delete(res));
});

serveUntilTerminated(server);
