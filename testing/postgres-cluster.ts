import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { childPids } from "./cpu.ts";
import { freePort } from "./ports.ts";

// A PostgreSQL cluster of the proof's own, in a temporary folder on a spare port, so that the
// fault suite can stop it, hang it and start it again without touching anyone else's database.
// Debian's initdb and pg_ctl (on PATH, or in /usr/lib/postgresql/<version>/bin); as root they run
// as the postgres user, since PostgreSQL refuses to run as root.

export type PostgresCluster = {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  stop(): void;
  start(): void;
  /** Every process of the cluster stopped (SIGSTOP): connections neither fail nor answer. */
  hang(): void;
  resume(): void;
  /** Stops it for good and deletes its folder. */
  destroy(): void;
};

function binary(name: string): string | null {
  const onPath = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).stdout.trim();
  if (onPath) return onPath;
  try {
    const versions = spawnSync("ls", ["/usr/lib/postgresql"], { encoding: "utf8" }).stdout.split("\n").filter(Boolean);
    for (const version of versions.sort().reverse()) {
      const candidate = `/usr/lib/postgresql/${version}/bin/${name}`;
      if (spawnSync(candidate, ["--version"]).status === 0) return candidate;
    }
  } catch {
    // no Debian PostgreSQL
  }
  return null;
}

/** Why a cluster of our own cannot be started here, or null when it can. */
export function postgresClusterUnavailable(): string | null {
  if (!binary("initdb") || !binary("pg_ctl")) return "initdb and pg_ctl are not installed (Debian: postgresql)";
  if (process.getuid?.() === 0 && spawnSync("id", ["postgres"]).status !== 0)
    return "running as root without a postgres user";
  return null;
}

export async function startPostgresCluster(): Promise<PostgresCluster> {
  const unavailable = postgresClusterUnavailable();
  if (unavailable) throw new Error(`cannot start a PostgreSQL cluster: ${unavailable}`);
  const initdb = binary("initdb")!;
  const pgCtl = binary("pg_ctl")!;
  const asRoot = process.getuid?.() === 0;
  const run = (command: string, args: string[]) =>
    execFileSync(asRoot ? "runuser" : command, asRoot ? ["-u", "postgres", "--", command, ...args] : args, {
      stdio: ["ignore", "pipe", "pipe"],
      encoding: "utf8",
    });
  const root = mkdtempSync(path.join(os.tmpdir(), "proof-postgres-"));
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(root, uid, gid);
  }
  const data = path.join(root, "data");
  const port = await freePort();
  run(initdb, ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"]);
  // fsync off: the suite proves the service, not the disk; the folder is thrown away afterwards.
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = () => run(pgCtl, ["-D", data, "-l", path.join(root, "log"), "-o", options, "-w", "-t", "30", "start"]);
  const stop = () => run(pgCtl, ["-D", data, "-m", "fast", "-w", "-t", "30", "stop"]);
  const processes = () => {
    const postmaster = Number(readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    return [postmaster, ...childPids(postmaster)];
  };
  const signal = (name: NodeJS.Signals) => {
    for (const pid of processes()) {
      try {
        process.kill(pid, name);
      } catch {
        // ended meanwhile
      }
    }
  };
  start();
  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    hang: () => signal("SIGSTOP"),
    resume: () => signal("SIGCONT"),
    destroy() {
      if (stopped) return;
      stopped = true;
      try {
        signal("SIGCONT");
        stop();
      } catch {
        // already stopped
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}
