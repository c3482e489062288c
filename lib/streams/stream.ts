import type { ViewName } from "../feed/views.ts";
import type { ApiKeyRecord } from "../keys/lookup.ts";
import type { StreamSlot } from "../metering/index.ts";
import type { ResyncReason } from "./messages.ts";
import type { StreamSink } from "./sink.ts";

// What the parts of the hub share: a stream's request, its subscriber's state, and the counters.

export type StreamSettings = {
  /** Seconds between `: ping` comments on a quiet stream. */
  pingSeconds: number;
  /** Messages are gathered for this long and written to each client in one write. */
  flushMs: number;
  /** Unsent bytes a connection may hold before its client counts as slow. */
  bufferBytes: number;
  /** How long without hearing the change bus before streams say `stale`. */
  staleSeconds: number;
  /** Concurrent streams of one signed-in console member, per instance. */
  sessionStreams: number;
};

/** Who a stream is for: a key, or a signed-in console member (then `keyHash` is null). */
/**
 * Who a stream is for. `address`: the client address held to the key's IP allowlist (the stream's
 * own, or for a stream token the address that minted it); null for a member's stream.
 */
export type StreamPrincipal = { key: ApiKeyRecord; keyHash: string | null; session: boolean; address: string | null };

export type StreamRequest = {
  principal: StreamPrincipal;
  view: ViewName;
  /** The SSE id the client last received (Last-Event-ID, or `last_event_id`), as sent. */
  lastEventId: string | undefined;
  requestId: string;
  slot: StreamSlot;
  sink: StreamSink;
};

/** What the hub has counted since it started (for metrics and the benchmark). */
export type StreamCounters = {
  opened: number;
  closed: number;
  messages: number;
  conflated: number;
  /** Writes not made to a client that had fallen behind (it is sent the latest state instead). */
  dropped: number;
  resyncs: Record<ResyncReason, number>;
};

export function newCounters(): StreamCounters {
  return {
    opened: 0,
    closed: 0,
    messages: 0,
    conflated: 0,
    dropped: 0,
    resyncs: { retention_exceeded: 0, unknown_id: 0, slow_client: 0, bus_reconnected: 0 },
  };
}

// A function, so that TypeScript does not keep a state it narrowed before an await.
export const isClosed = (subscriber: { state: string }) => subscriber.state === "closed";
