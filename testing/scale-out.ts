import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, waitForPort } from "./ports.ts";
import { startServer, type RunningServer } from "./processes.ts";

// N instances of the built service on one PostgreSQL, behind nginx (testing/nginx.conf): what
// `npm run scale-out` starts, and what the fault suite and bench/scale-out.ts stand on. Every
// instance has a DATA_DIR of its own (its metering journal) and a fixed port, so that one that
// is killed or restarted comes back where nginx expects it, with its journal.

export type Instance = {
  readonly name: string;
  readonly url: string;
  readonly port: number;
  /** Where its inspector opens on SIGUSR1 (testing/inspector.ts), if it was started inspectable. */
  readonly inspectPort: number | null;
  /** The running process, or null while it is down. */
  readonly server: RunningServer | null;
  /** Starts it again (same port, same DATA_DIR) and waits until it is ready. */
  start(): Promise<void>;
  /** Signals it and waits until it has ended (SIGTERM: a graceful stop; SIGKILL: a crash). */
  stop(signal?: NodeJS.Signals): Promise<void>;
};

export type ScaleOut = {
  /** nginx's address: what clients use. */
  url: string;
  instances: Instance[];
  nginxPid: number;
  /** Stops nginx and every instance (SIGTERM) and deletes the temporary files. */
  stop(): Promise<void>;
};

export type ScaleOutOptions = {
  instances: number;
  /** The PostgreSQL every instance shares. */
  databaseUrl: string;
  /** nginx's port (0: any free port). */
  port?: number;
  /** More environment for every instance (FEED_TOKEN, METRICS_TOKEN, ...). */
  env?: Record<string, string>;
  /** Each instance may be inspected later (testing/inspector.ts); nothing is opened until then. */
  inspectable?: boolean;
};

/** Why nginx cannot be started here, or null. */
export function nginxUnavailable(): string | null {
  return spawnSync("nginx", ["-v"]).error ? "nginx is not installed (Debian: apt-get install nginx)" : null;
}

export type Nginx = { url: string; pid: number; stop(): Promise<void> };

/** nginx (testing/nginx.conf) on `port` in front of the instances on `ports`, its files in `prefix`. */
export async function startNginx(ports: number[], port: number, prefix: string): Promise<Nginx> {
  mkdirSync(prefix, { recursive: true });
  chmodSync(prefix, 0o755);
  const config = readFileSync(path.join(import.meta.dirname, "nginx.conf"), "utf8")
    .replaceAll("{{PREFIX}}", prefix)
    .replaceAll("{{LISTEN}}", `127.0.0.1:${port}`)
    .replaceAll("{{SERVERS}}", ports.map((p) => `server 127.0.0.1:${p} max_fails=0;`).join("\n    "));
  writeFileSync(path.join(prefix, "nginx.conf"), config);
  const nginx: ChildProcess = spawn(
    "nginx",
    ["-p", prefix, "-c", path.join(prefix, "nginx.conf"), "-e", path.join(prefix, "error.log")],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let errors = "";
  nginx.stderr!.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  const exited = new Promise((resolve) => nginx.on("exit", resolve));
  try {
    await waitForPort(port, 10_000);
  } catch (error) {
    nginx.kill("SIGKILL");
    throw new Error(`nginx did not start: ${errors || (error as Error).message}`);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    pid: nginx.pid!,
    async stop() {
      nginx.kill("SIGQUIT");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      if (nginx.exitCode === null) nginx.kill("SIGKILL");
    },
  };
}

export async function startScaleOut(options: ScaleOutOptions): Promise<ScaleOut> {
  const unavailable = nginxUnavailable();
  if (unavailable) throw new Error(unavailable);
  const root = mkdtempSync(path.join(os.tmpdir(), "scale-out-"));
  // nginx's workers run as another user when it is started as root: they must reach its temporary
  // folders (a request body larger than its buffer is written there).
  chmodSync(root, 0o755);
  const nginxPort = options.port || (await freePort());
  // Instances that share a database share the secret that signs console sessions, and behind
  // nginx they are told the address clients use.
  const shared = {
    DATABASE_URL: options.databaseUrl,
    AUTH_SECRET: randomBytes(32).toString("base64url"),
    TRUST_PROXY_HOPS: "1",
    NEXTAUTH_URL: `http://127.0.0.1:${nginxPort}`,
    HOST: "127.0.0.1",
    ...options.env,
  };
  const instances: Instance[] = [];
  for (let i = 0; i < options.instances; i++) {
    const port = await freePort();
    const inspectPort = options.inspectable ? await freePort() : null;
    const dataDir = path.join(root, `instance-${i + 1}`);
    mkdirSync(dataDir);
    let server: RunningServer | null = null;
    const instance: Instance = {
      name: `instance ${i + 1}`,
      url: `http://127.0.0.1:${port}`,
      port,
      inspectPort,
      get server() {
        return server;
      },
      async start() {
        server = await startServer(
          { ...shared, PORT: String(port), DATA_DIR: dataDir },
          { address: "from-config", inspectPort: inspectPort ?? undefined },
        );
      },
      async stop(signal = "SIGTERM") {
        const running = server;
        server = null;
        if (running) await running.stop(signal);
      },
    };
    instances.push(instance);
  }
  // One after the other: the first migrates the database, the others find it migrated.
  for (const instance of instances) await instance.start();

  let nginx: Nginx;
  try {
    nginx = await startNginx(
      instances.map((i) => i.port),
      nginxPort,
      path.join(root, "nginx"),
    );
  } catch (error) {
    await Promise.all(instances.map((i) => i.stop()));
    throw error;
  }
  return {
    url: nginx.url,
    instances,
    nginxPid: nginx.pid,
    async stop() {
      await nginx.stop();
      await Promise.all(instances.map((i) => i.stop()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
