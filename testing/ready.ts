import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

// The line a server prints once it accepts connections, as server.ts does: what startProcess
// (processes.ts) waits for, and what the benchmarks' own small servers print.

/** Matches the ready line; its group is the server's address. */
export const READY_LINE = /Ready on (http:\/\/\S+)/;

/** Listens on a free port of 127.0.0.1, prints the ready line, and closes on SIGTERM. */
export function serveUntilTerminated(server: Server): void {
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo;
    console.log(`Ready on http://127.0.0.1:${port}`);
  });
  // Keep-alive connections (a load generator's, a subscriber's) would hold close() open.
  process.on("SIGTERM", () => {
    server.closeAllConnections();
    server.close();
  });
}
