import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";

/**
 * Where a stream writes: the client's connection, whichever server holds it. `pending` is what
 * was written and not yet taken by the client (a slow reader makes it grow); `onDrain` fires once
 * it has all gone; `onClose` once the client has gone.
 */
export type StreamSink = {
  write(chunk: Buffer): void;
  readonly pending: number;
  onDrain(callback: () => void): void;
  onClose(callback: () => void): void;
  end(): void;
  /** Drops the connection with whatever it still holds: for a client that stopped reading. */
  destroy(): void;
};

const CRLF = Buffer.from("\r\n", "latin1");
// Each chunk framed for HTTP/1.1 chunked encoding, once: the hub writes the same bytes (a flush's
// chunk, a board's shared snapshot) to many clients, and a framed copy per client would be that
// many copies of the bytes in memory. Kept as long as the chunk itself is.
const framedCopies = new WeakMap<Buffer, Buffer>();

/** `bytes` framed as one HTTP/1.1 chunk, the same framed buffer for every client written it. */
export function chunkFramed(bytes: Buffer): Buffer {
  let framed = framedCopies.get(bytes);
  if (!framed) {
    framed = Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`, "latin1"), bytes, CRLF]);
    framedCopies.set(bytes, framed);
  }
  return framed;
}

/**
 * A node:http answer as a stream's sink: the fast path (server.ts). Once the head is sent, chunks
 * go straight to the socket, framed once per chunk for all its clients: `res.write` would frame
 * each client's copy again and write it in three parts, which at ten thousand clients a tick is
 * most of the cost of a message. `res.end()` still writes the last chunk, as node:http keeps the
 * answer's state.
 */
export function nodeSink(res: ServerResponse): StreamSink {
  const socket = res.socket;
  // Every message goes out as soon as it is written, not when Nagle's algorithm lets it.
  socket?.setNoDelay(true);
  if (!socket) {
    return {
      write: (chunk) => void res.write(chunk),
      pending: 0,
      onDrain: (callback) => void res.once("drain", callback),
      onClose: (callback) => void res.once("close", callback),
      end: () => void res.end(),
      destroy: () => void res.destroy(),
    };
  }
  // HTTP/1.0 has no chunked encoding: the body ends when the connection does.
  const frame = res.chunkedEncoding ? chunkFramed : (bytes: Buffer) => bytes;
  return {
    write: (chunk) => {
      if (!socket.destroyed) socket.write(frame(chunk));
    },
    // The answer's writableLength already counts its socket's.
    get pending() {
      return res.writableLength;
    },
    onDrain: (callback) => drainOf(socket, callback),
    onClose: (callback) => void res.once("close", callback),
    end: () => void res.end(),
    // A reset, not a close: a close would still wait for the client to read what is buffered.
    destroy: () => void socket.resetAndDestroy(),
  };
}

const DRAIN_POLL_MS = 50;

/**
 * Calls back once the socket has sent everything. A socket says `drain` only after a write it
 * refused (past its high-water mark); below that mark its buffer empties without an event, so it
 * is looked at instead.
 */
function drainOf(socket: Socket, callback: () => void): void {
  if (socket.writableNeedDrain) return void socket.once("drain", callback);
  const check = () => {
    if (socket.writableLength === 0 || socket.destroyed) return callback();
    setTimeout(check, DRAIN_POLL_MS).unref();
  };
  check();
}

const WEB_HIGH_WATER_BYTES = 64 * 1024;

/** A Web ReadableStream as a stream's sink: Next's route handlers (API_ENTRY=next). */
export function webSink(signal: AbortSignal): { sink: StreamSink; body: ReadableStream<Uint8Array> } {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let done = false;
  const drains: (() => void)[] = [];
  const closes: (() => void)[] = [];
  const closed = () => {
    if (done) return;
    done = true;
    for (const callback of closes.splice(0)) callback();
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start: (c) => void (controller = c),
      pull: () => {
        for (const callback of drains.splice(0)) callback();
      },
      cancel: closed,
    },
    new ByteLengthQueuingStrategy({ highWaterMark: WEB_HIGH_WATER_BYTES }),
  );
  signal.addEventListener("abort", closed, { once: true });
  const sink: StreamSink = {
    write: (chunk) => {
      if (!done) controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    },
    get pending() {
      return done ? 0 : WEB_HIGH_WATER_BYTES - (controller.desiredSize ?? 0);
    },
    onDrain: (callback) => void drains.push(callback),
    onClose: (callback) => (done ? callback() : void closes.push(callback)),
    end: () => {
      if (done) return;
      controller.close();
      closed();
    },
    destroy: () => {
      if (done) return;
      controller.error(new Error("The client stopped reading its stream."));
      closed();
    },
  };
  return { sink, body };
}
