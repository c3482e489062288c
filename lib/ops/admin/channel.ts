import { chmodSync, rmSync, statSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import path from "node:path";
import { z } from "zod";

// The operator CLI's way into a running instance on the embedded database, which PGlite lets only
// that one process open: a Unix socket in DATA_DIR that only the user running the server may
// connect to (mode 0600, made so before anyone could connect), never a network port. The CLI
// sends its command line as one JSON line; the instance runs it as the CLI would and sends back
// what it printed, line by line, then the exit code and its pid.

export const CHANNEL_FILE = "admin.sock";

/** One message from the instance: a printed text, on standard output or error, or the end. */
export type ChannelMessage = { out: string } | { err: string } | { exit: number; pid: number };

export type CommandRunner = (
  argv: string[],
  io: { print(text: string): void; printError(text: string): void },
) => Promise<number>;

export type ChannelLog = {
  info(fields: Record<string, unknown>, message: string): void;
  warn(message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
};

export type AdminChannel = { path: string; close(): Promise<void> };

const MAX_REQUEST_BYTES = 256 * 1024;
const request = z.object({ argv: z.array(z.string().max(64 * 1024)).max(200) });

/**
 * Why the folder may not hold the channel, or null: a folder others may write to lets them put a
 * socket of their own in its place.
 */
export function unsafeFolder(mode: number): string | null {
  return mode & 0o002 ? "anyone may write to it" : null;
}

/**
 * Listens on DATA_DIR/admin.sock; null, with a warning, when the folder is unsafe or the socket
 * cannot be made (the CLI then finds the database in use, as before).
 */
export function openAdminChannel(dataDir: string, run: CommandRunner, log: ChannelLog): Promise<AdminChannel | null> {
  const folder = path.resolve(dataDir);
  const socketPath = path.join(folder, CHANNEL_FILE);
  const unsafe = unsafeFolder(statSync(folder).mode);
  if (unsafe) {
    log.warn(`The operator CLI cannot reach this instance: ${folder} is unsafe for its socket (${unsafe}).`);
    return Promise.resolve(null);
  }
  const running = new Set<Promise<void>>();
  const server = createServer((socket) => {
    const served = serve(socket, run, log).finally(() => running.delete(served));
    running.add(served);
  });
  // This process holds the embedded database: a socket left here is a crashed predecessor's.
  rmSync(socketPath, { force: true });
  return new Promise((resolve) => {
    server.once("error", (error) => {
      log.warn(`The operator CLI cannot reach this instance: ${socketPath}: ${error.message}`);
      resolve(null);
    });
    // The socket is made with the umask's mode: owner-only from its first moment.
    const umask = process.umask(0o177);
    try {
      server.listen(socketPath, () => {
        chmodSync(socketPath, 0o600);
        resolve({ path: socketPath, close: () => closeChannel(server, running, socketPath) });
      });
    } finally {
      process.umask(umask);
    }
  });
}

async function closeChannel(server: Server, running: Set<Promise<void>>, socketPath: string): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  // A command already running finishes before the database it uses is closed.
  await Promise.allSettled([...running]);
  rmSync(socketPath, { force: true });
}

/** Reads the command line up to its newline. */
function readRequest(socket: Socket): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let received = "";
    const onData = (chunk: Buffer) => {
      received += chunk.toString("utf8");
      const end = received.indexOf("\n");
      if (end === -1 && received.length <= MAX_REQUEST_BYTES) return;
      socket.off("data", onData);
      if (end === -1) return reject(new Error("command line too long"));
      try {
        resolve(request.parse(JSON.parse(received.slice(0, end))).argv);
      } catch (error) {
        reject(error as Error);
      }
    };
    socket.on("data", onData);
    socket.once("end", () => reject(new Error("no command line")));
    socket.once("error", reject);
  });
}

async function serve(socket: Socket, run: CommandRunner, log: ChannelLog): Promise<void> {
  // A CLI that goes away mid-command: its output has nowhere to go, and the command still finishes.
  socket.on("error", () => {});
  const send = (message: ChannelMessage) => {
    if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
  };
  let argv: string[];
  try {
    argv = await readRequest(socket);
  } catch {
    socket.destroy();
    return;
  }
  // The command's words only: its options may be a customer's data, and its output a password.
  const command = argv
    .filter((arg) => !arg.startsWith("-"))
    .slice(0, 2)
    .join(" ");
  let code: number;
  try {
    code = await run(argv, { print: (text) => send({ out: text }), printError: (text) => send({ err: text }) });
  } catch (error) {
    log.error({ err: error, command }, "Operator CLI: the command failed");
    send({ err: "The running instance failed to run the command: its log says why." });
    code = 1;
  }
  log.info({ command, exit: code }, "Operator CLI: ran a command sent by the CLI");
  send({ exit: code, pid: process.pid });
  socket.end();
}
