import type { ViewName } from "../feed/views.ts";
import { logger } from "../log/index.ts";
import type { ChannelTable, Subscriber } from "./channels.ts";
import type { StreamEnding, StreamProblem } from "./errors.ts";
import type { Freshness } from "./messages.ts";
import { sseMessage } from "./sse.ts";
import type { StreamCounters } from "./stream.ts";

/**
 * How a stream ends, by the client's doing or the service's: its place among its key's (or its
 * session's) concurrent streams is given back, its channel is dropped with its last subscriber,
 * and one log line says how long it ran and who ended it.
 */
export class Closing {
  private readonly subscribers: Set<Subscriber>;
  private readonly channels: ChannelTable;
  private readonly counters: StreamCounters;
  private readonly problem: StreamProblem;
  private readonly freshness: (view: ViewName) => Freshness;

  constructor(options: {
    subscribers: Set<Subscriber>;
    channels: ChannelTable;
    counters: StreamCounters;
    problem: StreamProblem;
    /** The freshness of a message a view sends now. */
    freshness: (view: ViewName) => Freshness;
  }) {
    this.subscribers = options.subscribers;
    this.channels = options.channels;
    this.counters = options.counters;
    this.problem = options.problem;
    this.freshness = options.freshness;
  }

  /** The stream's last message: the problem that ends it, as the API would answer it. */
  endWithError(subscriber: Subscriber, ending: StreamEnding): void {
    if (subscriber.state === "closed") return;
    const fresh = this.freshness(subscriber.view);
    if (subscriber.state !== "behind") {
      subscriber.sink.write(sseMessage("error", { ...this.problem(ending, subscriber.requestId), ...fresh }));
    }
    this.close(subscriber, true);
  }

  close(subscriber: Subscriber, endConnection: boolean): void {
    if (subscriber.state === "closed") return;
    subscriber.state = "closed";
    subscriber.held = [];
    this.subscribers.delete(subscriber);
    this.counters.closed++;
    subscriber.slot.release();
    const { channel, principal } = subscriber;
    logger().info(
      {
        request_id: subscriber.requestId,
        ...(principal.session ? { session: true } : { key_id: principal.key.id }),
        stream: channel.kind,
        view: subscriber.view,
        duration_ms: Date.now() - subscriber.openedAt,
        messages: subscriber.messages,
        ended_by: endConnection ? "service" : "client",
      },
      "stream closed",
    );
    channel.subscribers.delete(subscriber);
    if (channel.subscribers.size === 0) this.channels.drop(channel);
    if (endConnection) subscriber.sink.end();
  }
}
