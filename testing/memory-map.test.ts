import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { residentByMapping, residentMemory } from "./memory-map.ts";

const header = (range: string, inode: string, name = "") =>
  `${range} rw-p 00000000 ${inode === "0" ? "00:00" : "fe:00"} ${inode}${name ? `                     ${name}` : ""}`;

describe("a process's resident memory by kind of mapping", () => {
  it("adds each mapping's Rss to its kind: the executable, other files, the brk heap, anonymous", () => {
    const smaps = [
      header("00400000-00500000", "1234", "/opt/node/bin/node"),
      "Size:               1024 kB",
      "Rss:                 300 kB",
      "Anonymous:             0 kB",
      header("00500000-00600000", "1234", "/opt/node/bin/node"),
      "Rss:                  20 kB",
      header("01000000-02000000", "0", "[heap]"),
      "Rss:                4096 kB",
      header("7f0000000000-7f0004000000", "0"),
      "Rss:               65536 kB",
      header("7f1000000000-7f1000100000", "99", "/usr/lib/x86_64-linux-gnu/libc.so.6"),
      "Rss:                 512 kB",
      header("7ffd00000000-7ffd00021000", "0", "[stack]"),
      "Rss:                 132 kB",
    ].join("\n");
    expect(residentByMapping(smaps, "/opt/node/bin/node")).toEqual({
      executable: 320 * 1024,
      files: 512 * 1024,
      brk: 4096 * 1024,
      anonymous: (65536 + 132) * 1024,
    });
  });

  it("reads a live process's, adding up to its RSS", async () => {
    if (process.platform !== "linux") return expect(residentMemory(process.pid)).toBeNull();
    // An idle child, whose memory stands still while it is read (this worker's does not: other
    // test files may run in the same process).
    const child = spawn(process.execPath, ["-e", "console.log('idle'); setInterval(() => {}, 1000)"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      await once(child.stdout, "data");
      const memory = residentMemory(child.pid!)!;
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
      const rss = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)![1]) * 1024;
      const sum = memory.executable + memory.files + memory.brk + memory.anonymous;
      expect(memory.executable).toBeGreaterThan(0);
      expect(memory.anonymous).toBeGreaterThan(0);
      expect(Math.abs(sum - rss) / rss).toBeLessThan(0.02);
    } finally {
      child.kill();
    }
    expect(residentMemory(2 ** 22 + 1)).toBeNull(); // no such process
  });
});
