import type { Channel, ChannelTable, Chunk, Subscriber } from "./channels.ts";
import { holdDuringReplay } from "./replay-guard.ts";
import type { EncodedMessage } from "./sse.ts";
import type { StreamCounters, StreamSettings } from "./stream.ts";

/** What fan-out asks of the rest of the hub: to close a stream, and to catch up a client that drained. */
export type FanOutHooks = {
  close(subscriber: Subscriber, endConnection: boolean): void;
  /** The client that fell behind has drained: it is sent the latest state. */
  caughtUp(subscriber: Subscriber): void;
};

/**
 * Each channel's messages, serialised once and gathered for a flush tick, then written to each of
 * its clients in one write. A client that cannot keep up is never waited for: its connection's
 * buffer is bounded, and past it the client is written nothing until it drains.
 */
export class FanOut {
  private flushTimer: NodeJS.Timeout | undefined;
  private lastFlushAt = -Infinity;

  private readonly channels: ChannelTable;
  private readonly settings: StreamSettings;
  private readonly counters: StreamCounters;
  private readonly hooks: FanOutHooks;

  constructor(channels: ChannelTable, settings: StreamSettings, counters: StreamCounters, hooks: FanOutHooks) {
    this.channels = channels;
    this.settings = settings;
    this.counters = counters;
    this.hooks = hooks;
  }

  /** Gathers encoded messages for the channel's next flush; the same bytes may go to several channels. */
  enqueue(channel: Channel, messages: readonly EncodedMessage[]): void {
    if (messages.length === 0) return;
    for (const message of messages) {
      channel.pending.push(message.bytes);
      if (message.id !== undefined) channel.pendingLastId = message.id;
    }
    // A change after a quiet spell goes out at once (what arrived in the same turn goes with it);
    // under a steady flow, writes are at least a flush tick apart, each carrying what gathered.
    if (this.flushTimer === undefined) {
      const wait = Math.max(0, this.lastFlushAt + this.settings.flushMs - performance.now());
      this.flushTimer = setTimeout(() => this.flush(), wait);
    }
  }

  /** Writes every channel's gathered messages to its clients, one write per client. */
  flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.lastFlushAt = performance.now();
    for (const channel of this.channels.all()) this.flushChannel(channel);
  }

  flushChannel(channel: Channel): void {
    if (channel.pending.length === 0) return;
    const chunk: Chunk = {
      bytes: channel.pending.length === 1 ? channel.pending[0]! : Buffer.concat(channel.pending),
      lastId: channel.pendingLastId,
      ends: channel.ending,
    };
    channel.pending = [];
    channel.pendingLastId = undefined;
    for (const subscriber of [...channel.subscribers]) this.deliver(subscriber, chunk);
  }

  write(subscriber: Subscriber, chunk: Chunk): void {
    subscriber.sink.write(chunk.bytes);
    if (chunk.lastId !== undefined) subscriber.lastId = chunk.lastId;
    subscriber.messages++;
    this.counters.messages++;
    if (chunk.ends) this.hooks.close(subscriber, true);
  }

  stop(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
  }

  private deliver(subscriber: Subscriber, chunk: Chunk): void {
    switch (subscriber.state) {
      case "replaying":
        return holdDuringReplay(subscriber, chunk, this.settings.bufferBytes);
      case "live":
        if (subscriber.sink.pending > this.settings.bufferBytes && !chunk.ends) {
          this.counters.dropped++;
          return this.fallBehind(subscriber);
        }
        return this.write(subscriber, chunk);
      case "behind":
        if (chunk.ends) this.hooks.close(subscriber, true);
        else this.counters.dropped++;
        return;
      default:
        return;
    }
  }

  /**
   * The client is not taking what it is sent. Nothing more is written until its connection has
   * drained; then it gets the latest state instead of everything it missed.
   */
  private fallBehind(subscriber: Subscriber): void {
    subscriber.state = "behind";
    subscriber.sink.onDrain(() => {
      if (subscriber.state === "behind") this.hooks.caughtUp(subscriber);
    });
  }
}
