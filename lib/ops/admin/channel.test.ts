import { chmodSync, chownSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ChannelRefused, sendToRunningInstance } from "./channel-client.ts";
import { CHANNEL_FILE, openAdminChannel, type AdminChannel } from "./channel.ts";

// The channel's two ends in one process: a runner that echoes what it was sent stands for the
// instance's commands; the lock file names this process, as the server's would name the server.

const log = { info: () => {}, warn: (message: string) => warnings.push(message), error: () => {} };
let warnings: string[] = [];
let channel: AdminChannel | null = null;

function folder(mode = 0o755): string {
  const dir = mkdtempSync(path.join(tmpdir(), "channel-"));
  chmodSync(dir, mode);
  writeFileSync(path.join(dir, "pglite.lock"), String(process.pid));
  return dir;
}

function collect() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { print: (t: string) => out.push(t), printError: (t: string) => err.push(t) } };
}

afterEach(async () => {
  await channel?.close();
  channel = null;
  warnings = [];
});

describe("the operator CLI's channel to a running instance", () => {
  it("is a socket only its owner may use, and carries the command line there and the output back", async () => {
    const dir = folder();
    channel = await openAdminChannel(
      dir,
      async (argv, io) => {
        io.print(`ran ${argv.join(" ")}`);
        io.printError("a warning");
        io.print("done");
        return argv.includes("--fail") ? 1 : 0;
      },
      log,
    );
    const socket = statSync(path.join(dir, CHANNEL_FILE));
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o002).toBe(0);

    const { out, err, io } = collect();
    expect(await sendToRunningInstance(dir, ["licence", "list", "--json"], io)).toEqual({ code: 0, pid: process.pid });
    expect(out).toEqual(["ran licence list --json", "done"]);
    expect(err).toEqual(["a warning"]);
    expect((await sendToRunningInstance(dir, ["x", "--fail"], collect().io))?.code).toBe(1);
  });

  it("is not opened in a folder anyone may write to", async () => {
    const dir = folder(0o777);
    channel = await openAdminChannel(dir, async () => 0, log);
    expect(channel).toBeNull();
    expect(warnings.join()).toMatch(/anyone may write to it/);
    expect(await sendToRunningInstance(dir, ["org", "list"], collect().io)).toBeNull();
  });

  it("is not used without a live process holding the database, nor when no socket is there", async () => {
    const stale = folder();
    writeFileSync(path.join(stale, "pglite.lock"), "999999999");
    expect(await sendToRunningInstance(stale, ["org", "list"], collect().io)).toBeNull();
    const dir = folder();
    expect(await sendToRunningInstance(dir, ["org", "list"], collect().io)).toBeNull();
    channel = await openAdminChannel(dir, async () => 0, log);
    await channel!.close();
    channel = null;
    expect(await sendToRunningInstance(dir, ["org", "list"], collect().io)).toBeNull();
  });

  // Only root may give a file away to another user.
  it.runIf(process.getuid?.() === 0)("refuses a socket that is not its user's own", async () => {
    const dir = folder();
    channel = await openAdminChannel(dir, async () => 0, log);
    chownSync(channel!.path, 65534, 65534);
    await expect(sendToRunningInstance(dir, ["org", "list"], collect().io)).rejects.toThrow(ChannelRefused);
    chownSync(channel!.path, 0, 0);
  });

  it("refuses a command line it cannot read, and keeps serving", async () => {
    const dir = folder();
    channel = await openAdminChannel(dir, async () => 0, log);
    await new Promise<void>((resolve) => {
      const bad = connect(channel!.path);
      bad.on("connect", () => bad.write("not json\n"));
      bad.on("close", () => resolve());
      bad.on("error", () => {});
    });
    expect(await sendToRunningInstance(dir, ["org", "list"], collect().io)).toEqual({ code: 0, pid: process.pid });
  });
});
