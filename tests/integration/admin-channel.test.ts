import { spawnSync } from "node:child_process";
import { chmodSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migratedDataDir } from "../../testing/data-dirs.ts";
import { admin, runAdmin, startServer, type RunningServer } from "../../testing/processes.ts";

// `npm run admin` while a server holds the embedded database: the command goes to the server over
// DATA_DIR/admin.sock, and the CLI prints what it would have printed itself, text or --json, with
// its exit code. The socket is the owner's alone; no port is opened for it.

type Licence = { orgId: string; reference: string; verification: string; version: number };

const SENT = /^\(sent to the running instance, pid (\d+), which holds the embedded database\)$/m;

describe("the operator CLI against a running embedded instance", () => {
  let dataDir: string;
  let env: Record<string, string>;
  let server: RunningServer;

  beforeAll(async () => {
    dataDir = migratedDataDir();
    // As a DATA_DIR made by a shell usually is: others may enter it, not write to it.
    chmodSync(dataDir, 0o755);
    env = { DATA_DIR: dataDir };
    server = await startServer(env);
  });
  afterAll(() => server?.stop());

  const record = (reference: string) =>
    runAdmin(
      [
        "licence",
        "set",
        "--org",
        "channel-odds",
        "--reference",
        reference,
        "--authority",
        "Malta Gaming Authority",
        "--holder",
        "Channel Odds Ltd",
        "--valid-until",
        "2099-12-31",
      ],
      env,
    );

  it("lists pending licences, verifies the one it names and refuses one changed since, as the server's own commands", async () => {
    const created = await runAdmin(["org", "create", "--name", "Channel Odds"], env);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^Created organisation org_\w+ "Channel Odds" \(slug channel-odds\)\.$/m);
    expect(Number(SENT.exec(created.stderr)?.[1])).toBe(server.process.pid);
    expect((await record("MGA/CH/1")).code).toBe(0);

    const pending = await runAdmin(["licence", "list", "--status", "pending", "--json"], env);
    expect(pending.code).toBe(0);
    expect(pending.stderr).toMatch(SENT);
    const listed = (JSON.parse(pending.stdout) as Licence[]).find((l) => l.reference === "MGA/CH/1")!;
    expect(listed).toMatchObject({ verification: "pending", version: 1 });

    // Changed after the look: refused, with the exit code and --json error the CLI always gives.
    expect((await record("MGA/CH/2")).code).toBe(0);
    const stale = await runAdmin(
      ["licence", "verify", "--org", "channel-odds", "--version", String(listed.version), "--json"],
      env,
    );
    expect(stale.code).toBe(1);
    expect(JSON.parse(stale.stdout)).toMatchObject({
      error: { code: "record_changed", message: expect.stringMatching(/^The record changed: look again/) },
    });

    expect(
      await admin<Licence>(["licence", "verify", "--org", "channel-odds", "--reference", "MGA/CH/2"], env),
    ).toMatchObject({ reference: "MGA/CH/2", verification: "verified", version: 2 });
    const verified = await runAdmin(["licence", "list", "--status", "verified"], env);
    expect(verified.stdout).toMatch(/MGA\/CH\/2 {2}v2 {2}verified/);
  });

  it("opens an incident that the running server's status page shows at once", async () => {
    const opened = await admin<{ id: string }>(
      [
        "incident",
        "open",
        "--title",
        "Delayed tennis feed",
        "--components",
        "feed:tennis",
        "--text",
        "Looking into it",
      ],
      env,
    );
    const status = (await (await fetch(`${server.url}/status.json`)).json()) as { incidents: { id: string }[] };
    expect(status.incidents.map((i) => i.id)).toContain(opened.id);
  });

  it("passes usage errors and their exit code through", async () => {
    const usage = await runAdmin(["fly", "away"], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Unknown command "fly away"');
    expect(usage.stderr).toContain("Usage: npm run admin");
    const help = await runAdmin(["--help"], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("the command is sent to that server");
  });

  it("listens on a socket only the owner may use, in a folder no one else may write to", () => {
    const socket = statSync(path.join(dataDir, "admin.sock"));
    expect(socket.isSocket()).toBe(true);
    expect(socket.uid).toBe(process.getuid!());
    expect(socket.mode & 0o777).toBe(0o600);
    expect(statSync(dataDir).mode & 0o002).toBe(0);
  });

  // Only root may act as another user here: that user is refused by the system, not by our client.
  it.runIf(process.getuid?.() === 0)("refuses another user of the machine", () => {
    const attempt = spawnSync(
      "python3",
      [
        "-c",
        "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])",
        path.join(dataDir, "admin.sock"),
      ],
      { uid: 65534, gid: 65534, encoding: "utf8" },
    );
    expect(attempt.status).not.toBe(0);
    expect(attempt.stderr).toContain("PermissionError");
  });

  it("prints the same text and JSON as when it opens the database itself", async () => {
    const commands = [
      ["org", "list"],
      ["licence", "list", "--json"],
      ["plan", "list"],
    ];
    const sent = [];
    for (const command of commands) sent.push((await runAdmin(command, env)).stdout);
    expect(await server.stop()).toBe(0);
    for (const [i, command] of commands.entries()) {
      const local = await runAdmin(command, env);
      expect(local.stderr).not.toMatch(SENT);
      expect(local.stdout).toBe(sent[i]);
    }
  });
});
