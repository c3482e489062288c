import { randomBytes } from "node:crypto";
import { publish, streamHeartbeat, type ChangeBus } from "../bus/index.ts";
import type { Database } from "../db/index.ts";
import type { ViewName } from "../feed/views.ts";
import type { Freshness } from "./messages.ts";
import { SSE_PING, sseMessage } from "./sse.ts";
import type { StreamSettings } from "./stream.ts";
import type { Subscriber } from "./channels.ts";

const HEARTBEAT_MS = 1_000;

/**
 * The instance's notification to itself over the database: hearing it back means the instance
 * hears the feed too.
 */
export type Heartbeat = {
  send(): Promise<unknown>;
  /** Calls back each time this instance's own heartbeat comes back; resolves to how to stop. */
  onHeard(listener: () => void): Promise<() => void>;
};

/** A heartbeat through the database pool (NOTIFY) and back through the change bus (LISTEN). */
export function busHeartbeat(db: Database, bus: ChangeBus): Heartbeat {
  const instance = randomBytes(6).toString("hex");
  return {
    send: () => publish(db, streamHeartbeat, instance),
    onHeard: (listener) =>
      bus.subscribe(streamHeartbeat, (sender) => {
        if (sender === instance) listener();
      }),
  };
}

/**
 * Whether the streams can trust what they show, and the signs of life they send: a `: ping` on a
 * quiet stream, and `stale` when the instance has not heard its heartbeat for `staleSeconds`
 * (database down or hung), then again when it hears it, while the views read what was missed
 * from the history so the changes arrive in order with nothing left out.
 */
export class Liveness {
  private lastHeard = Date.now();
  private inFlight = false;
  private staleSince: Date | null = null;

  private readonly heartbeat: Heartbeat;
  private readonly settings: StreamSettings;
  private readonly subscribers: ReadonlySet<Subscriber>;
  private readonly hooks: {
    freshness(view: ViewName): Freshness;
    /** Writes what is gathered before the `stale` message, so it is not sent ahead of older changes. */
    flush(): void;
    /** The instance hears the feed again: read what it missed. */
    recovered(): void;
  };

  constructor(
    heartbeat: Heartbeat,
    settings: StreamSettings,
    subscribers: ReadonlySet<Subscriber>,
    hooks: Liveness["hooks"],
  ) {
    this.heartbeat = heartbeat;
    this.settings = settings;
    this.subscribers = subscribers;
    this.hooks = hooks;
  }

  get stale(): boolean {
    return this.staleSince !== null;
  }

  /** Listens for the heartbeat and sends it every second; returns how to stop. */
  async start(): Promise<() => void> {
    const unsubscribe = await this.heartbeat.onHeard(() => this.heard());
    const timer = setInterval(() => this.beat(), HEARTBEAT_MS);
    timer.unref();
    return () => {
      clearInterval(timer);
      unsubscribe();
    };
  }

  /** A `: ping` for each live client that is taking what it is sent. */
  ping(): void {
    for (const subscriber of this.subscribers) {
      if (subscriber.state === "live" && subscriber.sink.pending <= this.settings.bufferBytes) {
        subscriber.sink.write(SSE_PING);
      }
    }
  }

  /** The `stale` message while the instance cannot hear the feed; null while it can. */
  staleMessage(view: ViewName): Buffer | null {
    return this.staleSince ? this.message(view) : null;
  }

  private beat(): void {
    if (!this.inFlight) {
      this.inFlight = true;
      this.heartbeat
        .send()
        .catch(() => {})
        .finally(() => (this.inFlight = false));
    }
    if (!this.staleSince && Date.now() - this.lastHeard > this.settings.staleSeconds * 1000) {
      this.staleSince = new Date(this.lastHeard);
      this.broadcast();
    }
  }

  private heard(): void {
    this.lastHeard = Date.now();
    if (!this.staleSince) return;
    this.staleSince = null;
    this.broadcast();
    this.hooks.recovered();
  }

  private broadcast(): void {
    this.hooks.flush();
    const messages = { present: this.message("present"), delayed: this.message("delayed") };
    for (const subscriber of this.subscribers) {
      if (subscriber.state === "live") subscriber.sink.write(messages[subscriber.view]);
    }
  }

  private message(view: ViewName): Buffer {
    const data = {
      stale: this.staleSince !== null,
      ...(this.staleSince ? { since: this.staleSince.toISOString() } : {}),
      ...this.hooks.freshness(view),
    };
    return sseMessage("stale", data);
  }
}
