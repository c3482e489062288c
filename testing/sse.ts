import { request, type IncomingMessage } from "node:http";
import { createParser } from "eventsource-parser";
import type { z } from "zod";
import { streamEvent, streamOdds } from "../lib/api/endpoints/streams.ts";
import { recordCredentials, recordQueryCredentials } from "./logs.ts";

// Reading Server-Sent Events, at three levels: `sseReader`, a well-kept SSE parser fed with text as
// it arrives; `openSse`, the stream tests' client on it (a real HTTP connection, recording every
// message, comment and retry with the time it arrived, able to stop reading like a slow client,
// and checking every message's data against the stream's schema); and `takeFrames`, for the
// benchmarks' thousands of subscribers, which only cut the bytes into messages and parse nothing.

/** One message as the wire has it: `data` unparsed, `retry` the last `retry:` field read before it. */
export type SseMessage = { id?: number; event: string; data: string; retry?: number };

export type SseReader = { feed(text: string): void };

/** A parser of a stream's text: each message, comment (`: ping`) and retry to its handler. */
export function sseReader(handlers: {
  onMessage: (message: SseMessage) => void;
  onComment?: (comment: string) => void;
  onRetry?: (ms: number) => void;
}): SseReader {
  let retry: number | undefined;
  const parser = createParser({
    onEvent: (message) => {
      const read: SseMessage = {
        id: message.id === undefined ? undefined : Number(message.id),
        event: message.event ?? "message",
        data: message.data,
      };
      if (retry !== undefined) read.retry = retry;
      retry = undefined;
      handlers.onMessage(read);
    },
    onComment: (comment) => handlers.onComment?.(comment.trim()),
    onRetry: (ms) => {
      retry = ms;
      handlers.onRetry?.(ms);
    },
  });
  return { feed: (text) => parser.feed(text) };
}

/**
 * Cuts whole messages (a blank line ends one) off the front of `buffer`, bytes as they came, and
 * returns them with what is left.
 */
export function takeFrames(buffer: string): { frames: string[]; rest: string } {
  const frames: string[] = [];
  let end: number;
  while ((end = buffer.indexOf("\n\n")) !== -1) {
    frames.push(buffer.slice(0, end + 2));
    buffer = buffer.slice(end + 2);
  }
  return { frames, rest: buffer };
}

export type Received = { id?: number; event: string; data: Record<string, unknown>; at: number };

const SCHEMAS: Record<string, Record<string, z.ZodType>> = {
  event: streamEvent.stream!.messages,
  board: streamOdds.stream!.messages,
};

export type SseClient = {
  status: number;
  headers: IncomingMessage["headers"];
  /** The body of a refused request (a problem); null for 204 (nothing to follow). */
  problem: Record<string, unknown> | null;
  messages: Received[];
  comments: string[];
  retries: number[];
  closed: Promise<void>;
  isClosed(): boolean;
  lastId(): number | undefined;
  waitFor(predicate: (message: Received) => boolean, timeoutMs?: number): Promise<Received>;
  pause(): void;
  resume(): void;
  close(): void;
};

export function openSse(
  url: string,
  options: { headers?: Record<string, string>; kind?: "event" | "board"; paused?: boolean } = {},
): Promise<SseClient> {
  const schemas = SCHEMAS[options.kind ?? (url.includes("/odds/stream") ? "board" : "event")]!;
  recordCredentials(options.headers);
  recordQueryCredentials(url);
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: "text/event-stream", ...options.headers } }, (res) => {
      let ended = false;
      const wake: (() => void)[] = [];
      const notify = () => {
        for (const callback of wake.splice(0)) callback();
      };
      const closed = new Promise<void>((done) => {
        const finish = () => {
          ended = true;
          notify();
          done();
        };
        res.on("close", finish);
        res.on("error", finish);
      });
      const client: SseClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        problem: null,
        messages: [],
        comments: [],
        retries: [],
        closed,
        isClosed: () => ended,
        lastId: () => [...client.messages].reverse().find((m) => m.id !== undefined)?.id,
        async waitFor(predicate, timeoutMs = 10_000) {
          const deadline = Date.now() + timeoutMs;
          let seen = 0;
          for (;;) {
            for (; seen < client.messages.length; seen++)
              if (predicate(client.messages[seen]!)) return client.messages[seen]!;
            if (ended) throw new Error(`stream closed before the message came; got ${describe(client)}`);
            const left = deadline - Date.now();
            if (left <= 0) throw new Error(`no such message within ${timeoutMs} ms; got ${describe(client)}`);
            await new Promise<void>((done) => {
              const timer = setTimeout(done, left);
              wake.push(() => {
                clearTimeout(timer);
                done();
              });
            });
          }
        },
        pause: () => res.pause(),
        resume: () => res.resume(),
        close: () => {
          req.destroy();
          res.destroy();
        },
      };
      if (client.status === 204) {
        res.resume();
        resolve(client);
        return;
      }
      if (client.status !== 200) {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString()));
        res.on("end", () => {
          client.problem = JSON.parse(body) as Record<string, unknown>;
          resolve(client);
        });
        return;
      }
      const parser = sseReader({
        onMessage: ({ id, event, data: text }) => {
          const data = JSON.parse(text) as Record<string, unknown>;
          const schema = schemas[event];
          if (!schema) throw new Error(`undocumented stream message "${event}"`);
          const checked = schema.safeParse(data);
          if (!checked.success) throw new Error(`"${event}" does not match its schema: ${checked.error.message}`);
          client.messages.push({ id, event, data, at: Date.now() });
          notify();
        },
        onComment: (comment) => {
          client.comments.push(comment);
          notify();
        },
        onRetry: (ms) => client.retries.push(ms),
      });
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => parser.feed(chunk));
      if (options.paused) res.pause();
      resolve(client);
    });
    req.on("error", reject);
    req.end();
  });
}

/** A stream's status and headers as a fetch Response without a body, for `expectDocumented`. */
export function responseOf(client: SseClient): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(client.headers)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
  }
  return new Response(null, { status: client.status, headers });
}

function describe(client: SseClient): string {
  if (client.status !== 200) return `status ${client.status} ${JSON.stringify(client.problem)}`;
  return client.messages.map((m) => `${m.event}#${m.id ?? "-"}`).join(", ") || "nothing";
}

/** Ids of the messages that carry one, in the order received. */
export const idsOf = (messages: Received[]) => messages.flatMap((m) => (m.id === undefined ? [] : [m.id]));

export function strictlyIncreasing(ids: number[]): boolean {
  return ids.every((id, i) => i === 0 || id > ids[i - 1]!);
}
