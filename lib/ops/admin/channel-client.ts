import { lstatSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import path from "node:path";
import { CHANNEL_FILE, type ChannelMessage } from "./channel.ts";

// The CLI's side of the channel (channel.ts): when a live process holds the embedded database and
// answers on DATA_DIR/admin.sock, the command line goes to it and what it prints comes back.

export type Sent = { code: number; pid: number };

type Io = { print(text: string): void; printError(text: string): void };

/** Refused on our side: the socket is there but is not one to trust or to reach. */
export class ChannelRefused extends Error {
  override name = "ChannelRefused";
}

/** Whether the embedded database's lock names a process that runs (data-dir-lock.ts). */
function heldByLiveProcess(folder: string): boolean {
  try {
    const pid = Number.parseInt(readFileSync(path.join(folder, "pglite.lock"), "utf8").trim(), 10);
    if (!Number.isInteger(pid) || pid <= 0) return false;
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Sends `argv` to the instance holding the embedded database in `dataDir`, printing its output
 * through `io` as it comes; null when no live instance answers there (the CLI then opens the
 * database itself, and is told if it is in use).
 */
export async function sendToRunningInstance(dataDir: string, argv: string[], io: Io): Promise<Sent | null> {
  const folder = path.resolve(dataDir);
  const socketPath = path.join(folder, CHANNEL_FILE);
  if (!heldByLiveProcess(folder)) return null;
  let socket;
  try {
    socket = lstatSync(socketPath);
  } catch {
    return null;
  }
  // Only a socket of this user's own: another user's could be anyone's, put there to listen.
  if (!socket.isSocket() || socket.uid !== process.getuid?.()) {
    throw new ChannelRefused(
      `${socketPath} is not a socket of this user's own: the command was not sent to it. ` +
        "Run the CLI as the user that runs the server.",
    );
  }
  return new Promise<Sent | null>((resolve, reject) => {
    const connection = connect(socketPath);
    let received = "";
    let answered = false;
    connection.on("connect", () => connection.write(`${JSON.stringify({ argv })}\n`));
    connection.on("data", (chunk: Buffer) => {
      answered = true;
      received += chunk.toString("utf8");
      let end;
      while ((end = received.indexOf("\n")) !== -1) {
        const message = JSON.parse(received.slice(0, end)) as ChannelMessage;
        received = received.slice(end + 1);
        if ("out" in message) io.print(message.out);
        else if ("err" in message) io.printError(message.err);
        else resolve({ code: message.exit, pid: message.pid });
      }
    });
    connection.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EACCES") {
        reject(
          new ChannelRefused(
            `${socketPath} refused this user (${error.code}): run the CLI as the user that runs the server.`,
          ),
        );
      } else if (!answered && (error.code === "ECONNREFUSED" || error.code === "ENOENT")) {
        // A socket left by a process that is gone; or the server is still starting.
        resolve(null);
      } else reject(error);
    });
    connection.on("close", () => {
      if (!answered) resolve(null);
      else
        reject(
          new ChannelRefused("The running instance closed the connection before the command ended: its log says why."),
        );
    });
  });
}
