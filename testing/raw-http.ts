import { connect, type Socket } from "node:net";

// HTTP/1.1 spoken by hand, for what fetch will not send: headers by the thousand or by the
// megabyte, a request trickled byte by byte, a body that never ends, a client that stops reading.

export type RawAnswer = {
  /** The status of the answer; null when the connection closed (or the time ran out) without one. */
  status: number | null;
  head: string;
  body: Buffer;
  /** Milliseconds from connecting to the connection's close (or to giving up). */
  closedAfterMs: number;
  timedOut: boolean;
};

export function rawConnect(baseUrl: string): Socket {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect(Number(port), hostname);
  socket.on("error", () => {}); // a reset is an answer too: the caller looks at what arrived
  return socket;
}

/**
 * Connects, lets `send` write (all at once, or slowly), and collects what comes back until the
 * server closes the connection or `timeoutMs` passes. Requests should say `Connection: close`.
 */
export function rawExchange(
  baseUrl: string,
  send: (socket: Socket) => void | Promise<void>,
  timeoutMs: number,
): Promise<RawAnswer> {
  const socket = rawConnect(baseUrl);
  const started = Date.now();
  const chunks: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      socket.destroy();
    }, timeoutMs);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ ...parse(Buffer.concat(chunks)), closedAfterMs: Date.now() - started, timedOut });
    });
    socket.once("connect", () => {
      void Promise.resolve(send(socket)).catch(() => socket.destroy());
    });
  });
}

export function parse(bytes: Buffer): { status: number | null; head: string; body: Buffer } {
  const end = bytes.indexOf("\r\n\r\n");
  const head = (end === -1 ? bytes : bytes.subarray(0, end)).toString("latin1");
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(head);
  return {
    status: status ? Number(status[1]) : null,
    head,
    body: end === -1 ? Buffer.alloc(0) : bytes.subarray(end + 4),
  };
}

/** A request's head, CRLF and all. */
export function requestHead(method: string, target: string, headers: [string, string][]): string {
  return `${method} ${target} HTTP/1.1\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join("")}\r\n`;
}

/** Writes `bytes` and waits until the socket has taken them (or has closed). */
export function writeDrained(socket: Socket, bytes: Buffer | string): Promise<boolean> {
  if (socket.destroyed) return Promise.resolve(false);
  if (socket.write(bytes)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      socket.off("drain", onDrain);
      socket.off("close", onClose);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    socket.once("drain", onDrain);
    socket.once("close", onClose);
  });
}

/**
 * Writes `head`, then `body` in chunks (Transfer-Encoding: chunked) until the server answers:
 * writing on after the answer is what a client that reads it does not do.
 */
export async function sendChunkedUntilAnswered(socket: Socket, head: string, body: string): Promise<void> {
  let answered = false;
  socket.once("data", () => (answered = true));
  await writeDrained(socket, head);
  for (let at = 0; at < body.length && !answered; at += 16_384) {
    const part = body.slice(at, at + 16_384);
    if (!(await writeDrained(socket, `${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`))) return;
  }
  if (!answered) await writeDrained(socket, "0\r\n\r\n");
}
