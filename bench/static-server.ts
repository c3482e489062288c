// The baseline of bench/api.ts: plain node:http answering every request with one recorded response
// (status, headers and body exactly as our server sent them), doing no other work. It runs in a
// process of its own, as our server does, so neither side shares an event loop with the load
// generator.
//
//   node bench/static-server.ts RESPONSE.json      (RESPONSE.json: {status, headers, body: base64})
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { serveUntilTerminated } from "../testing/ready.ts";

type Recorded = { status: number; headers: Record<string, string>; body: string };

const file = process.argv[2];
if (!file) throw new Error("usage: node bench/static-server.ts RESPONSE.json");
const recorded = JSON.parse(readFileSync(file, "utf8")) as Recorded;
const body = Buffer.from(recorded.body, "base64");

const server = createServer((_req, res) => {
  res.writeHead(recorded.status, recorded.headers);
  res.end(body);
});

serveUntilTerminated(server);
