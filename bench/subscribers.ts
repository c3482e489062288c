import { request } from "node:http";
import { connect } from "node:net";
import { takeFrames } from "../testing/sse.ts";

// Subscribers of a stream, for the benchmarks. The reference subscriber reads through node:http and
// keeps each message's bytes and `as_of`; the others are bare TCP connections that send the GET
// themselves and note the id of each message and the moment its bytes arrived, scanning for the
// `id:` lines and nothing else, so that the subscribers' own reading (one core for tens of
// thousands of them) adds as little as it can to the delays measured, on both sides alike.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type Subscriber = {
  ids: number[];
  arrivals: number[];
  announced: Set<number>; // ids of messages marked resync or conflated
  frames: { at: number; frame: string }[] | null;
  asOf: Map<number, number> | null;
  close(): void;
};

export const ID = /^id: (\d+)$/m;
const AS_OF = /"as_of":"([^"]+)"/;
// Several source addresses, so that tens of thousands of connections (and their TIME_WAITs between
// scenarios) never run out of local ports.
const SOURCES = ["127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"];

function newSubscriber(reference: boolean): Subscriber {
  return {
    ids: [],
    arrivals: [],
    announced: new Set(),
    frames: reference ? [] : null,
    asOf: reference ? new Map() : null,
    close: () => undefined,
  };
}

/** Reads complete messages (a blank line ends one) off `buffer`; returns what is left of it. */
function readMessages(subscriber: Subscriber, buffer: string, at: number): string {
  const { frames, rest } = takeFrames(buffer);
  for (const frame of frames) {
    const id = ID.exec(frame);
    if (!id) continue; // a ping, or retry alone
    const value = Number(id[1]);
    subscriber.ids.push(value);
    subscriber.arrivals.push(at);
    if (frame.includes('"resync":true') || frame.includes('"conflated":true')) subscriber.announced.add(value);
    if (subscriber.frames) {
      subscriber.frames.push({ at, frame });
      subscriber.asOf!.set(value, Date.parse(AS_OF.exec(frame)![1]!));
    }
  }
  return rest;
}

export function subscribeReference(url: string, headers: Record<string, string>): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const subscriber = newSubscriber(true);
    let buffer = "";
    const req = request(url, { headers: { accept: "text/event-stream", ...headers }, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`${url} answered ${res.statusCode}`));
        return;
      }
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buffer = readMessages(subscriber, buffer + chunk, Date.now());
        if (subscriber.ids.length > 0) resolve(subscriber);
      });
    });
    subscriber.close = () => req.destroy();
    req.on("error", reject);
    req.end();
  });
}

/**
 * One bare subscriber. Through a proxy, `http` "1.0" asks for a body that is not chunked: the
 * proxy's chunks need not fall between messages, and the scan below does not decode them.
 */
export function subscribe(
  url: string,
  headers: Record<string, string>,
  n: number,
  http: "1.0" | "1.1" = "1.1",
): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const subscriber = newSubscriber(false);
    const socket = connect({
      host: target.hostname,
      port: Number(target.port),
      localAddress: SOURCES[n % SOURCES.length],
    });
    subscriber.close = () => socket.destroy();
    const lines = Object.entries({ host: target.host, accept: "text/event-stream", ...headers }).map(
      ([name, value]) => `${name}: ${value}\r\n`,
    );
    socket.write(`GET ${target.pathname}${target.search} HTTP/${http}\r\n${lines.join("")}\r\n`);
    // The body is chunked: the chunk-size lines fall between whole messages (each write holds whole
    // messages), so they never split an `id:` line and the scan below steps over them.
    socket.setEncoding("latin1");
    let buffer = "";
    let head = true;
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      if (head) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end === -1) return;
        if (!/^HTTP\/1\.[01] 200/.test(buffer)) {
          reject(new Error(`${url} answered ${buffer.slice(0, buffer.indexOf("\r\n"))}`));
          socket.destroy();
          return;
        }
        head = false;
        buffer = buffer.slice(end + 4);
      }
      buffer = readMessages(subscriber, buffer, Date.now());
      if (subscriber.ids.length > 0) resolve(subscriber);
    });
    socket.on("error", reject);
  });
}

/** Opens `count` subscribers, a few hundred at a time, each resolved once its first message came. */
export async function subscribeAll(
  url: string,
  headers: Record<string, string>,
  count: number,
  http: "1.0" | "1.1" = "1.1",
): Promise<Subscriber[]> {
  const all: Subscriber[] = [];
  for (let i = 0; i < count; i += 250) {
    const batch = Array.from({ length: Math.min(250, count - i) }, (_, j) => subscribe(url, headers, i + j, http));
    all.push(...(await Promise.all(batch)));
  }
  return all;
}

export async function closeAll(subscribers: Subscriber[]): Promise<void> {
  for (const subscriber of subscribers) subscriber.close();
  await sleep(1_000);
}

/** Waits until every subscriber has `lastId`, or `timeoutMs` passed. */
export async function delivered(subscribers: Subscriber[], lastId: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (subscribers.every((s) => (s.ids.at(-1) ?? 0) >= lastId)) return;
    await sleep(50);
  }
}
