import type { StreamSink } from "./sink.ts";

// What a resuming client may cost while its replay from the history is written: the live messages
// held for it meanwhile are capped at the connection's buffer size, and a client that takes
// nothing for a while is let go. Without both, a client that stops reading during its replay would
// hold every live message until its key expires.

/**
 * Holds a live chunk for a client whose replay is being written. Past `bufferBytes` nothing more
 * is kept, and what was is let go: the client will be sent a fresh snapshot (`slow_client`)
 * instead, so the held messages are of no use to it.
 */
export function holdDuringReplay<C extends { bytes: Buffer }>(
  subscriber: { held: C[]; heldBytes: number },
  chunk: C,
  bufferBytes: number,
): void {
  subscriber.heldBytes += chunk.bytes.length;
  if (overflowed(subscriber, bufferBytes)) subscriber.held = [];
  else subscriber.held.push(chunk);
}

/** More arrived during the replay than a connection may hold: its replay ends in a resync. */
export function overflowed(subscriber: { heldBytes: number }, bufferBytes: number): boolean {
  return subscriber.heldBytes > bufferBytes;
}

// The ping interval is how often a stream shows it is alive; a client that takes nothing for this
// many of them has stopped reading, or is gone without its connection closing.
const STALLED_PINGS = 4;

/**
 * Waits until the client has taken what it was sent: "drained", "closed" when it went away, or
 * "stalled" when it took nothing for four ping intervals.
 */
export function drainOrStall(sink: StreamSink, pingSeconds: number): Promise<"drained" | "closed" | "stalled"> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve("stalled"), STALLED_PINGS * pingSeconds * 1000);
    timer.unref();
    sink.onDrain(() => {
      clearTimeout(timer);
      resolve("drained");
    });
    sink.onClose(() => {
      clearTimeout(timer);
      resolve("closed");
    });
  });
}
