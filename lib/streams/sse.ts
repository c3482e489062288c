// The Server-Sent Events wire format (HTML Living Standard, "Server-sent events"): what every
// stream writes. Data is one JSON line, so a message never needs more than one `data:` field.

export const SSE_CONTENT_TYPE = "text/event-stream; charset=utf-8";

/**
 * One message; `id` is a feed revision, or absent for messages that carry none (stale, end, error).
 * `retry` sets how long the client's EventSource waits before it reconnects once the stream closes.
 */
export function sseMessage(event: string, data: unknown, id?: number, retry?: number): Buffer {
  const idLine = id === undefined ? "" : `id: ${id}\n`;
  const retryLine = retry === undefined ? "" : `retry: ${retry}\n`;
  return Buffer.from(`${retryLine}${idLine}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** A message as it is written: its bytes, and the revision it carries (its SSE id), if any. */
export type EncodedMessage = { bytes: Buffer; id: number | undefined };

/** Messages written out, each once, for every client they go to. */
export function encodeMessages(
  messages: readonly { event: string; data: unknown; id?: number; retry?: number }[],
): EncodedMessage[] {
  return messages.map((message) => ({
    bytes: sseMessage(message.event, message.data, message.id, message.retry),
    id: message.id,
  }));
}

/** How long a client's EventSource waits before it reconnects. */
export function sseRetry(ms: number): Buffer {
  return Buffer.from(`retry: ${ms}\n\n`);
}

export const SSE_PING = Buffer.from(": ping\n\n");
