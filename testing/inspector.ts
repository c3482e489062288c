// One DevTools protocol command sent to a running Node process of the harness: what reaches into a
// server that has no endpoint for it (a memory-reducing collection at the end of a soak). The
// process is started with `inspectorOptions(port)`, which opens nothing: SIGUSR1 opens its inspector
// on that loopback port when it is wanted, and the ws address is published over HTTP only, so that
// the server's standard error stays free of lines that are not its log's, but for the one line
// Node writes when a session attaches.

/** What Node writes to standard error when a session attaches to its inspector. */
export const INSPECTOR_ATTACHED = "Debugger attached.\n";

/** NODE_OPTIONS for a process that may be inspected later on `port` of 127.0.0.1. */
export function inspectorOptions(port: number): string {
  return `--inspect-port=127.0.0.1:${port} --inspect-publish-uid=http`;
}

/** Opens the inspector of `pid` (started with inspectorOptions(port)) and runs `method`; its result. */
export async function inspectorCommand(
  pid: number,
  port: number,
  method: string,
  params: Record<string, unknown> = {},
  withinMs = 30_000,
): Promise<unknown> {
  const deadline = Date.now() + withinMs;
  process.kill(pid, "SIGUSR1");
  let address: string | undefined;
  while (!address) {
    try {
      const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
        webSocketDebuggerUrl?: string;
      }[];
      address = targets[0]?.webSocketDebuggerUrl;
    } catch {
      // Not listening yet: the signal is handled on the process's next turn.
    }
    if (!address) {
      if (Date.now() > deadline) throw new Error(`process ${pid}: no inspector on port ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const socket = new WebSocket(address);
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`process ${pid}: ${method} not answered`)),
        deadline - Date.now(),
      );
      socket.addEventListener("open", () => socket.send(JSON.stringify({ id: 1, method, params })));
      socket.addEventListener("error", () => reject(new Error(`process ${pid}: the inspector's socket failed`)));
      socket.addEventListener("message", (message) => {
        const answer = JSON.parse(String(message.data)) as {
          id?: number;
          result?: unknown;
          error?: { message: string };
        };
        if (answer.id !== 1) return;
        clearTimeout(timer);
        if (answer.error) reject(new Error(`process ${pid}: ${method}: ${answer.error.message}`));
        else resolve(answer.result);
      });
    });
  } finally {
    socket.close();
  }
}

/** What a process holds after a memory-reducing collection: V8's live heap, the memory its objects own outside it (Buffers), and its RSS. */
export type Held = { heapUsed: number; external: number; rss: number };

/** One memory-reducing collection in `pid` (started with inspectorOptions(port)), then its process.memoryUsage(). */
export async function heldAfterCollection(pid: number, port: number): Promise<Held> {
  await inspectorCommand(pid, port, "HeapProfiler.collectGarbage");
  const answer = (await inspectorCommand(pid, port, "Runtime.evaluate", {
    expression: "JSON.stringify(process.memoryUsage())",
    returnByValue: true,
  })) as { result: { value: string } };
  const { heapUsed, external, rss } = JSON.parse(answer.result.value) as NodeJS.MemoryUsage;
  return { heapUsed, external, rss };
}
