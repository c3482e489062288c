import { request, type ClientRequest } from "node:http";
import type { FeedUpdate } from "../lib/feed/schemas.ts";
import { postUpdates } from "../testing/feed.ts";
import { takeFrames } from "../testing/sse.ts";
import { priceChange } from "../bench/data.ts";
import { sleep } from "./report.ts";

// The load of the fault suite and the soak, each part keeping a history of what it was answered
// and what it received, for a checker to judge afterwards (proof/judge.ts).

const CLIENT_TIMEOUT_MS = 10_000;

export type Answer = { at: number; ms: number; status: number; code?: string; retryAfter?: string; error?: string };

export async function ask(url: string, key: string): Promise<Answer> {
  const at = Date.now();
  try {
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
    });
    const text = await response.text();
    let body: { code?: string } = {};
    try {
      body = JSON.parse(text) as { code?: string };
    } catch {
      // not ours: nginx's own page (a 502 when no instance answered)
    }
    return {
      at,
      ms: Date.now() - at,
      status: response.status,
      code: body.code,
      retryAfter: response.headers.get("retry-after") ?? undefined,
    };
  } catch (error) {
    return { at, ms: Date.now() - at, status: 0, error: (error as Error).name };
  }
}

/**
 * An API client asking `paths` in turn, one request at a time: `pauseMs` after each answer, or,
 * with `perSecond`, at a fixed rate (a late answer delays the next request, never doubles it).
 */
export class ApiClient {
  readonly answers: Answer[] = [];
  private running = true;
  private done: Promise<void> | undefined;

  readonly name: string;
  readonly keyId: string;
  private readonly url: string;
  private readonly key: string;
  private readonly paths: string[];
  private readonly pace: { pauseMs: number } | { perSecond: number };

  constructor(
    name: string,
    url: string,
    key: string,
    keyId: string,
    paths: string[],
    pace: { pauseMs: number } | { perSecond: number },
  ) {
    this.name = name;
    this.url = url;
    this.key = key;
    this.keyId = keyId;
    this.paths = paths;
    this.pace = pace;
  }

  start(): void {
    this.done = (async () => {
      let n = 0;
      const began = Date.now();
      while (this.running) {
        this.answers.push(await ask(`${this.url}${this.paths[n++ % this.paths.length]}`, this.key));
        const wait =
          "pauseMs" in this.pace ? this.pace.pauseMs : began + (n * 1_000) / this.pace.perSecond - Date.now();
        if (wait > 0) await sleep(wait);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }
}

const ID = /^id: (\d+)$/m;
const EVENT = /^event: (\w+)$/m;

/**
 * Follows one stream through its failures: reconnects with Last-Event-ID after 250 ms, as
 * EventSource does. Keeps each message's id (and, if `timed`, its arrival) in flat arrays, so that
 * thousands of followers over an hour fit in a modest heap.
 */
export class Follower {
  /** The ids of the messages that had one, in the order they came. */
  readonly ids: number[] = [];
  /** Arrival of each of `ids`, in ms since the follower started (only when timed). */
  readonly arrivals: number[] = [];
  /** The ids of snapshots among `ids`. */
  readonly snapshots = new Set<number>();
  readonly refusals: { at: number; status: number; code?: string }[] = [];
  readonly endings: number[] = [];
  resyncs = 0;
  reconnects = 0;
  private lastId: number | undefined;
  private request: ClientRequest | undefined;
  private running = true;
  private readonly origin = Date.now();

  readonly name: string;
  readonly url: string;
  private readonly key: string;
  private readonly options: { timed?: boolean; stopOnRefusal?: boolean };

  constructor(name: string, url: string, key: string, options: { timed?: boolean; stopOnRefusal?: boolean } = {}) {
    this.name = name;
    this.url = url;
    this.key = key;
    this.options = options;
  }

  start(): void {
    this.connect();
  }

  private connect(): void {
    if (!this.running) return;
    const headers: Record<string, string> = { authorization: `Bearer ${this.key}`, accept: "text/event-stream" };
    if (this.lastId !== undefined) headers["last-event-id"] = String(this.lastId);
    // Once per connection, however it ended: a stream cut short (an instance killed) ends with
    // 'error' and 'close', not 'end'.
    let ended = false;
    const again = () => {
      if (ended) return;
      ended = true;
      this.endings.push(Date.now());
      if (!this.running) return;
      this.reconnects++;
      setTimeout(() => this.connect(), 250);
    };
    const req = request(this.url, { headers, agent: false }, (res) => {
      res.setEncoding("utf8");
      if (res.statusCode !== 200) {
        let body = "";
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => {
          let code: string | undefined;
          try {
            code = (JSON.parse(body) as { code?: string }).code;
          } catch {
            code = undefined;
          }
          this.refusals.push({ at: Date.now(), status: res.statusCode!, code });
          if (this.options.stopOnRefusal && res.statusCode === 401) this.running = false;
          again();
        });
        return;
      }
      let buffer = "";
      res.on("data", (chunk: string) => {
        const { frames, rest } = takeFrames(buffer + chunk);
        buffer = rest;
        for (const frame of frames) this.take(frame);
      });
      res.on("error", () => undefined);
      res.on("close", again);
    });
    req.on("error", again);
    this.request = req;
    req.end();
  }

  private take(frame: string): void {
    const id = ID.exec(frame);
    if (!id) return; // a ping, retry alone, or a message without an id (stale)
    const value = Number(id[1]);
    this.ids.push(value);
    if (this.options.timed) this.arrivals.push(Date.now() - this.origin);
    if (EVENT.exec(frame)?.[1] === "snapshot") {
      this.snapshots.add(value);
      if (frame.includes('"resync":true')) this.resyncs++;
    }
    this.lastId = value;
  }

  /** Messages with an id that arrived between `from` and `to` (epoch ms); needs `timed`. */
  messagesBetween(from: number, to: number): number {
    return this.arrivals.filter((a) => a + this.origin >= from && a + this.origin < to).length;
  }

  get last(): number | undefined {
    return this.lastId;
  }

  stop(): void {
    this.running = false;
    this.request?.destroy();
  }
}

/**
 * The provider: `batch` price changes of the live events every `everyMs`, posted to the ingest, one
 * post at a time (a slow answer makes the next post larger). Keeps the revision each change made,
 * by event, from the ingest's answers.
 */
export class FeedDriver {
  private sequence = 10;
  private running = true;
  private done: Promise<void> | undefined;
  applied = 0;
  refused = 0;
  readonly revisions = new Map<string, number[]>();

  private readonly url: string;
  private readonly initial: FeedUpdate[];
  private readonly pace: { batch: number; everyMs: number };

  constructor(url: string, initial: FeedUpdate[], pace: { batch: number; everyMs: number }) {
    this.url = url;
    this.initial = initial;
    this.pace = pace;
  }

  start(): void {
    this.done = (async () => {
      let n = 0;
      let sent = 0;
      const began = Date.now();
      const { batch, everyMs } = this.pace;
      while (this.running) {
        // What the pace owes by now, so that slow answers do not slow the feed (ten batches at most).
        const due = (Math.floor((Date.now() - began) / everyMs) + 1) * batch;
        const count = Math.min(due - sent, batch * 10);
        if (count <= 0) {
          await sleep(began + (sent / batch) * everyMs - Date.now());
          continue;
        }
        const changes = Array.from({ length: count }, () =>
          priceChange(this.initial[n++ % this.initial.length]!, ++this.sequence),
        );
        sent += count;
        try {
          const answer = await postUpdates(this.url, changes, { timeoutMs: CLIENT_TIMEOUT_MS });
          if (answer.status === 200) {
            this.applied += changes.length;
            answer.data?.results.forEach((result, i) => {
              if (result.revision === undefined) return;
              const id = changes[i]!.event_id;
              const list = this.revisions.get(id) ?? [];
              list.push(result.revision);
              this.revisions.set(id, list);
            });
          } else this.refused += changes.length;
        } catch {
          this.refused += changes.length;
        }
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }
}
