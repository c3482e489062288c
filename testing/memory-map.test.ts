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

  it("reads a live process's, adding up to about its RSS", () => {
    const memory = residentMemory(process.pid);
    if (memory === null) return expect(process.platform).not.toBe("linux");
    const sum = memory.executable + memory.files + memory.brk + memory.anonymous;
    expect(memory.executable).toBeGreaterThan(0);
    expect(memory.anonymous).toBeGreaterThan(0);
    // Both read within a moment of each other; the process allocates between them.
    expect(Math.abs(sum - process.memoryUsage().rss) / sum).toBeLessThan(0.1);
    expect(residentMemory(2 ** 22 + 1)).toBeNull(); // no such process
  });
});
