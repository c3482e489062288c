import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";

// What the benchmarks and the proof measure of a process (Linux: /proc) and where they run it:
// with two cores or more and taskset (util-linux), a measured server on one core and its load on
// another, so that the scheduler does not now and then put both on the same core.

/** Whether processes can be pinned to a core here. */
export const CAN_PIN = os.availableParallelism() >= 2 && spawnSync("taskset", ["-V"]).error === undefined;

/**
 * Moves a process and all its threads onto `core` (or a taskset list of cores, "0-1"); a no-op
 * where nothing can be pinned. Where taskset refuses, why is added to `refusals` (a benchmark's
 * list of what broke).
 */
export function pin(pid: number, core: number | string, refusals?: string[]): void {
  if (!CAN_PIN) return;
  const result = spawnSync("taskset", ["-a", "-p", "-c", String(core), String(pid)], { encoding: "utf8" });
  if (result.status !== 0) refusals?.push(`taskset could not pin ${pid} to core ${core}: ${result.stderr.trim()}`);
}

/** `command` with its arguments, run on `core` where processes can be pinned (taskset execs it in place). */
export function onCore(core: number, command: string, args: string[]): [string, string[]] {
  return CAN_PIN ? ["taskset", ["-c", String(core), command, ...args]] : [command, args];
}

// Clock ticks of /proc/<pid>/stat: USER_HZ, 100 on every Linux build that matters here.
const TICKS_PER_SECOND = 100;

/** CPU seconds a process (all its threads) has used so far, or null where /proc does not have it. */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may hold spaces: utime and
    // stime are the 14th and 15th fields, the 12th and 13th after it.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** A process's CPU seconds by thread name, user and kernel apart; the main thread is "main". */
export type ThreadCpu = Record<string, { user: number; kernel: number }>;

/**
 * CPU seconds each live thread of a process has used so far, summed by thread name (V8's
 * workers, libuv's pool, the main thread as "main"), or null where /proc does not have them.
 */
export function threadCpuSeconds(pid: number): ThreadCpu | null {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  const threads: ThreadCpu = {};
  for (const tid of tids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    } catch {
      continue; // the thread ended since the listing
    }
    const name = Number(tid) === pid ? "main" : stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const thread = (threads[name] ??= { user: 0, kernel: 0 });
    thread.user += Number(fields[11]) / TICKS_PER_SECOND;
    thread.kernel += Number(fields[12]) / TICKS_PER_SECOND;
  }
  return threads;
}

/** What each thread name used between two readings of threadCpuSeconds. */
export function threadCpuSince(before: ThreadCpu, after: ThreadCpu): ThreadCpu {
  const used: ThreadCpu = {};
  for (const [name, { user, kernel }] of Object.entries(after)) {
    used[name] = { user: user - (before[name]?.user ?? 0), kernel: kernel - (before[name]?.kernel ?? 0) };
  }
  return used;
}

/**
 * CPU per request by thread, busiest first, user and kernel apart: "main 30.0 (24.0 + 6.0), ...",
 * in µs; where a difference between two servers lies outside the main thread's JavaScript (V8's
 * workers compile and collect garbage, libuv's pool does file and DNS work).
 */
export function threadsPerRequest(threads: ThreadCpu | null, requests: number): string {
  if (threads === null) return "n/a";
  const us = (seconds: number) => (seconds * 1e6) / Math.max(1, requests);
  return Object.entries(threads)
    .map(([name, { user, kernel }]) => ({ name, user: us(user), kernel: us(kernel) }))
    .filter((t) => t.user + t.kernel >= 0.05)
    .sort((a, b) => b.user + b.kernel - (a.user + a.kernel))
    .map((t) => `${t.name} ${(t.user + t.kernel).toFixed(1)} (${t.user.toFixed(1)} + ${t.kernel.toFixed(1)})`)
    .join(", ");
}

/** Resident memory of a process, in bytes (/proc/<pid>/status). */
export function residentBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}

/** The direct children of a process (an nginx master's workers, a PostgreSQL postmaster's backends). */
export function childPids(pid: number): number[] {
  return spawnSync("pgrep", ["-P", String(pid)], { encoding: "utf8" })
    .stdout.split("\n")
    .filter(Boolean)
    .map(Number);
}
