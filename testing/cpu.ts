import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";

// What the benchmarks and the proof measure of a process (Linux: /proc) and where they run it:
// with two cores or more and taskset (util-linux), a measured server on one core and its load on
// another, so that the scheduler does not now and then put both on the same core.

/** Whether processes can be pinned to a core here. */
export const CAN_PIN = os.availableParallelism() >= 2 && spawnSync("taskset", ["-V"]).error === undefined;

/**
 * Moves a process and all its threads onto `core`; a no-op where nothing can be pinned. Where
 * taskset refuses, why is added to `refusals` (a benchmark's list of what broke).
 */
export function pin(pid: number, core: number, refusals?: string[]): void {
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
