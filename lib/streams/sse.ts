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

/** How long a client's EventSource waits before it reconnects. */
export function sseRetry(ms: number): Buffer {
  return Buffer.from(`retry: ${ms}\n\n`);
}

export const SSE_PING = Buffer.from(": ping\n\n");
