import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { signInsFile } from "./console.ts";
import { INSPECTOR_ATTACHED, inspectorOptions } from "./inspector.ts";
import { recordSecret, recordServerOutput } from "./logs.ts";
import { READY_LINE } from "./ready.ts";

// Children get a clean environment: none of the developer's database or address settings leak into
// a test (next-auth reads NEXTAUTH_URL itself, where empty is not unset).
function childEnv(env: Record<string, string>, cwd?: string): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const name of ["DATABASE_URL", "DATA_DIR", "PORT", "HOST", "TEST_DATABASE_URL", "FEED_TOKEN", "NEXTAUTH_URL"])
    delete base[name];
  // The simulator is on only where a test asks for it, so other tests see only their own data.
  // In the project's folder, empty (which the configuration reads as unset) keeps a developer's
  // .env database from filling in; a test that runs elsewhere brings its own .env.
  const noEnvFileDatabase = cwd === undefined ? { DATABASE_URL: "", DATA_DIR: "" } : {};
  // Node's compile cache, shared by every child of the run: a server start compiles less.
  const compileCache = { NODE_COMPILE_CACHE: path.join(tmpdir(), "svc-test-compile-cache") };
  // Mail is kept in the outbox unless a test gives its own mail server.
  const mail = { MAIL_URL: "none" };
  return { ...base, NODE_ENV: "production", SIM: "off", ...mail, ...compileCache, ...noEnvFileDatabase, ...env };
}

// A child must never outlive its test run, whatever the test did.
const children = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

function track<T extends ChildProcess>(child: T): T {
  children.add(child);
  child.on("exit", () => children.delete(child));
  return child;
}

/** A child process started by the harness, with what it writes (stdout and stderr) kept, up to OUTPUT_KEPT. */
export type StartedProcess = {
  process: ChildProcess;
  output(): string;
  /** Resolves with what the ready line matched, once the process printed it. */
  ready: Promise<RegExpExecArray>;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  /** Signals it (SIGTERM by default) and waits until it has ended; SIGKILL after `killAfterMs`, if given. */
  stop(signal?: NodeJS.Signals, killAfterMs?: number): Promise<number | null>;
};

// What is kept of a process's output: a server under a benchmark's load logs every request, and a
// run of minutes wrote more than a string can hold (the harness died of it).
const OUTPUT_KEPT = 64 * 1024 * 1024;

// Node's own flags before the entry of every process started here: the flags NODE_OPTIONS refuses
// (`--single-threaded-gc`), so that a benchmark can measure a server started with them.
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter(Boolean);

/**
 * Starts `entry` (a TypeScript file) with this Node in a clean environment plus `env`, and reads its
 * output for `ready`. `ready` rejects when the process ends first or takes over `readyWithinMs`
 * (then it is killed), with what it printed. With `outputFile`, the output goes to that file, whole,
 * and is read back from it: a trace of minutes outgrows what this process keeps.
 */
export function startProcess(
  entry: string,
  options: {
    env: Record<string, string>;
    args?: string[];
    cwd?: string;
    ready: RegExp;
    readyWithinMs?: number;
    /** What the errors call it. */
    name?: string;
    outputFile?: string;
  },
): StartedProcess {
  const name = options.name ?? path.basename(entry);
  const file = options.outputFile === undefined ? undefined : openSync(options.outputFile, "w");
  const child = track(
    spawn(process.execPath, [...NODE_FLAGS, options.cwd ? path.resolve(entry) : entry, ...(options.args ?? [])], {
      env: childEnv(options.env, options.cwd),
      cwd: options.cwd,
      stdio: file === undefined ? "pipe" : ["ignore", file, file],
    }),
  );
  if (file !== undefined) closeSync(file); // the child has its own descriptor
  let kept = "";
  let dropped = 0;
  const output = options.outputFile
    ? () => readFileSync(options.outputFile!, "utf8")
    : () => (dropped > 0 ? `${kept}\n[${dropped} more bytes of output not kept]` : kept);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const readyWithinMs = options.readyWithinMs ?? 60_000;
  const ready = new Promise<RegExpExecArray>((resolve, reject) => {
    let matched: RegExpExecArray | null = null;
    let poll: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      clearInterval(poll);
      child.kill("SIGKILL");
      reject(new Error(`${name} not ready within ${readyWithinMs / 1000} s:\n${output()}`));
    }, readyWithinMs);
    const look = () => {
      // Once ready, the output only grows: searching it again on every chunk flattened a string of
      // megabytes each time, and under load this process then took a core from the server it measured.
      if (matched) return;
      matched = options.ready.exec(output());
      if (matched) {
        clearTimeout(timer);
        clearInterval(poll);
        resolve(matched);
      }
    };
    if (child.stdout && child.stderr) {
      const onData = (chunk: Buffer) => {
        if (kept.length >= OUTPUT_KEPT) {
          dropped += chunk.length;
          return;
        }
        kept += chunk.toString();
        look();
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", onData);
    } else {
      poll = setInterval(look, 100);
    }
    void exited.then((code) => {
      clearTimeout(timer);
      clearInterval(poll);
      if (!matched) look();
      reject(new Error(`${name} exited with ${code} before it was ready:\n${output()}`));
    });
  });
  // A caller that never awaits `ready` (it failed elsewhere first) leaves no unhandled rejection.
  ready.catch(() => undefined);
  return {
    process: child,
    output,
    ready,
    exited,
    async stop(signal = "SIGTERM", killAfterMs) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill(signal);
      const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), killAfterMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

export type RunningServer = StartedProcess & { url: string };

/**
 * Starts `server.ts` (the production server, on the built app) and waits until it is ready. By
 * default on a free port of 127.0.0.1; `entry` and `cwd` start it another way (`npm start`'s entry,
 * in another folder), and `address: "from-config"` leaves PORT and HOST to what that folder says.
 * Its output joins the log check (logs.ts), and the secrets in its settings are recorded. With
 * `inspectPort`, its inspector can be opened later (testing/inspector.ts).
 */
export async function startServer(
  env: Record<string, string>,
  options: {
    entry?: string;
    cwd?: string;
    address?: "free-port" | "from-config";
    /** How long it may take to be ready (a start that builds first takes minutes). */
    readyWithinMs?: number;
    /** A start that builds first prints the build's own output, which is not the server's log. */
    checkLogs?: boolean;
    /** Where its inspector opens on SIGUSR1; nothing is opened until then. */
    inspectPort?: number;
  } = {},
): Promise<RunningServer> {
  for (const [name, value] of Object.entries(env)) if (/TOKEN|SECRET|PASSWORD/.test(name)) recordSecret(value);
  const address: Record<string, string> = options.address === "from-config" ? {} : { PORT: "0", HOST: "127.0.0.1" };
  const inspect: Record<string, string> =
    options.inspectPort === undefined
      ? {}
      : { NODE_OPTIONS: [process.env.NODE_OPTIONS, inspectorOptions(options.inspectPort)].filter(Boolean).join(" ") };
  const server = startProcess(options.entry ?? "server.ts", {
    env: { ...address, ...inspect, ...env },
    cwd: options.cwd,
    ready: READY_LINE,
    readyWithinMs: options.readyWithinMs,
    name: "server",
  });
  // Node's own line when a session attaches to the inspector is not the server's log.
  if (options.checkLogs !== false) recordServerOutput(() => server.output().replaceAll(INSPECTOR_ATTACHED, ""));
  const ready = await server.ready;
  // A first start's one-time passwords: the log check then proves that no line of the log holds one.
  const signIns = signInsFile(server.output());
  if (signIns) for (const shown of readFileSync(signIns, "utf8").matchAll(/ \/ (\S+)$/gm)) recordSecret(shown[1]);
  return { ...server, url: ready[1]!.replace("localhost", "127.0.0.1") };
}

/** A server started in a process group of its own; `stop` ends the whole group. */
export type GroupServer = { url: string; output(): string; stop(): Promise<void> };

/**
 * Starts `command` (the server, or `script` running it) in a process group of its own, in a clean
 * environment plus `env` on a free port, with standard output to `stdout`: a pipe it reads, or a
 * file's descriptor that `read` reads back. Resolves once the output shows the ready line.
 */
export async function startInOwnGroup(
  command: string,
  args: string[],
  env: Record<string, string>,
  options: { readyWithinMs: number; stdout?: "pipe" | number; read?: () => string },
): Promise<GroupServer> {
  const child = track(
    spawn(command, args, {
      env: childEnv({ PORT: "0", HOST: "127.0.0.1", ...env }),
      stdio: ["ignore", options.stdout ?? "pipe", "pipe"],
      // `script` and the server under it stop together.
      detached: true,
    }),
  );
  let piped = "";
  child.stdout?.on("data", (chunk: Buffer) => (piped += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (piped += chunk.toString()));
  const output = options.read ?? (() => piped);
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGTERM");
    await exited;
  };
  const deadline = Date.now() + options.readyWithinMs;
  let ready: RegExpExecArray | null;
  while (!(ready = READY_LINE.exec(output()))) {
    const ended = child.exitCode !== null || child.signalCode !== null;
    if (ended || Date.now() > deadline) {
      await stop();
      throw new Error(`${command} ${ended ? "ended" : "was not ready in time"}:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { url: ready[1]!.replace("localhost", "127.0.0.1"), output, stop };
}

/**
 * The server on a terminal of its own, as a shell's `npm start` gives it: `script` (util-linux)
 * runs it on a pseudo-terminal and copies what it writes to its own standard output, here a pipe.
 */
export function startOnTerminal(env: Record<string, string>, readyWithinMs: number): Promise<GroupServer> {
  const args = ["--quiet", "--return", "--command", `${process.execPath} server.ts`, "/dev/null"];
  return startInOwnGroup("script", args, env, { readyWithinMs });
}

export type ProcessResult = { code: number | null; stdout: string; stderr: string };

/**
 * Runs a TypeScript entry point with this Node and waits for it to end. One that is still running
 * after `timeoutMs` is killed and reported, so a process that should have exited fails its test
 * with its output instead of hanging it.
 */
export function runNode(
  script: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 30_000,
  cwd?: string,
): Promise<ProcessResult> {
  const child = track(
    spawn(process.execPath, [cwd ? path.resolve(script) : script, ...args], { env: childEnv(env, cwd), cwd }),
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => {
    stderr += `\n[killed: still running after ${timeoutMs} ms]`;
    child.kill("SIGKILL");
  }, timeoutMs);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

// A CLI process opens, migrates and closes the database: on a busy machine, beyond 30 s.
const ADMIN_WITHIN_MS = 120_000;

export function runAdmin(
  args: string[],
  env: Record<string, string>,
  timeoutMs = ADMIN_WITHIN_MS,
): Promise<ProcessResult> {
  return runNode("scripts/admin.ts", args, env, timeoutMs);
}

/** Runs the CLI with --json and returns the parsed document, failing loudly on a non-zero exit. */
export async function admin<T = Record<string, unknown>>(args: string[], env: Record<string, string>): Promise<T> {
  return adminDocument<T>(args, await runAdmin([...args, "--json"], env));
}

/** The --json document of a CLI run (in a process or not), its secrets recorded for the log check. */
export function adminDocument<T>(args: string[], result: ProcessResult): T {
  if (result.code !== 0)
    throw new Error(`admin ${args.join(" ")} exited ${result.code}: ${result.stdout}${result.stderr}`);
  const document = JSON.parse(result.stdout) as T;
  // What the CLI shows once (a new key, a reset password) must never reach a server's log.
  for (const name of ["key", "password"]) recordSecret((document as Record<string, unknown>)?.[name] as string);
  return document;
}
