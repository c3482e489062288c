import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  anonymousGrowth,
  anonymousGrowthByKind,
  anonymousMappings,
  kindOfStretch,
  mb,
  residentByKind,
  residentByMapping,
  residentMemory,
} from "./memory-map.ts";

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

describe("anonymous memory that changed between two snapshots", () => {
  const anon = (range: string, rssKb: number, perms = "rw-p", name = "") =>
    [`${range} ${perms} 00000000 00:00 0${name ? `                     ${name}` : ""}`, `Rss: ${rssKb} kB`].join("\n");
  const kb = 1024;

  it("reads only the mappings without a file, with their addresses, permissions and resident bytes", () => {
    const smaps = [
      anon("1000-3000", 8, "rw-p", "[heap]"),
      "7f00-8000 r-xp 00000000 fe:00 99 /usr/lib/libc.so.6",
      "Rss: 4 kB",
      anon("a000-b000", 4, "---p"),
    ].join("\n");
    expect(anonymousMappings(smaps)).toEqual([
      { start: 0x1000, end: 0x3000, perms: "rw-p", name: "[heap]", rss: 8 * kb },
      { start: 0xa000, end: 0xb000, perms: "---p", name: "", rss: 4 * kb },
    ]);
  });

  it("compares a reservation cut into committed pieces with itself, and a new mapping alone", () => {
    const before = anonymousMappings(
      [anon("100000-500000", 0, "---p"), anon("600000-700000", 64), anon("900000-a00000", 32)].join("\n"),
    );
    const after = anonymousMappings(
      [
        anon("100000-200000", 1024),
        anon("200000-500000", 0, "---p"),
        anon("600000-700000", 60),
        anon("800000-900000", 256),
      ].join("\n"),
    );
    const changes = anonymousGrowth(before, after);
    expect(changes.map((c) => [c.start, c.end, c.before / kb, c.after / kb, c.mappings])).toEqual([
      [0x100000, 0x500000, 0, 1024, [1, 2]],
      [0x800000, 0x900000, 0, 256, [0, 1]],
      [0x600000, 0x700000, 64, 60, [1, 1]],
      [0x900000, 0xa00000, 32, 0, [1, 0]],
    ]);
    expect(changes[0]!.perms).toEqual(["---p", "rw-p"]);
    const total = (side: "before" | "after") => changes.reduce((n, c) => n + c[side], 0);
    expect(total("after") - total("before")).toBe((1024 + 60 + 256 - 64 - 32) * kb);
  });

  it("sums one snapshot's resident memory by kind, largest first", () => {
    const mappings = anonymousMappings(
      [
        anon("1000-3000", 8, "rw-p", "[heap]"),
        anon("4000-6000", 4, "rwxp"),
        anon("7000-8000", 2, "rw-p", "[heap]"),
        anon("40000-80000", 256),
        anon("c1000-c2000", 0, "---p"),
      ].join("\n"),
    );
    expect(residentByKind(mappings)).toEqual([
      { kind: "V8's pages of 256 KB", resident: 256 * kb },
      { kind: "brk heap", resident: 10 * kb },
      { kind: "V8's code space", resident: 4 * kb },
      { kind: "other", resident: 0 },
    ]);
    expect([mb(3 * 2 ** 20), mb(2 ** 19, 0), mb(5 * 2 ** 19, 2)]).toEqual(["3.0", "1", "2.50"]);
  });
});

describe("what a stretch of anonymous memory most likely is", () => {
  const stretch = (start: number, size: number, perms = ["rw-p"], name = "") => ({
    start,
    end: start + size,
    perms,
    name,
  });
  const KB = 1024;
  const MB = 1024 * KB;

  it("tells the brk heap, V8's code space, the allocator's arenas, a WebAssembly memory, V8's pages and the rest apart", () => {
    expect(kindOfStretch(stretch(0x31537000, 50 * MB, ["rw-p"], "[heap]"))).toBe("brk heap");
    expect(kindOfStretch(stretch(0x7f9a37000000, 509 * MB, ["rwxp"]))).toBe("V8's code space");
    expect(kindOfStretch(stretch(0x7f6964000000, 64 * MB, ["rw-p", "---p"]))).toBe("allocator's thread arenas");
    expect(kindOfStretch(stretch(0x7fe538000000, 188 * MB))).toBe("over 64 MB (a WebAssembly memory)");
    expect(kindOfStretch(stretch(0x107029c0000, 256 * KB))).toBe("V8's pages of 256 KB");
    expect(kindOfStretch(stretch(0x107029c0000, 1 * MB))).toBe("V8's large objects (256 KB-aligned)");
    expect(kindOfStretch(stretch(0x18181ec0000, 176 * KB))).toBe("V8's large objects (256 KB-aligned)");
    // A V8 page on a 64 MB boundary, by chance, and an arena's committed part there.
    expect(kindOfStretch(stretch(0x61e5c000000, 256 * KB))).toBe("V8's pages of 256 KB");
    expect(kindOfStretch(stretch(0x7f6964000000, 132 * KB))).toBe("allocator's thread arenas");
    // A block of the allocator's own: page-aligned, a page over its request.
    expect(kindOfStretch(stretch(0x7f69a0001000, 132 * KB))).toBe("other");
    expect(kindOfStretch(stretch(0x7f69a0021000, 8 * MB + 4 * KB))).toBe("other");
  });

  it("sums the changes by kind, largest growth first, counting the stretches of each snapshot", () => {
    const change = (start: number, size: number, before: number, after: number, mappings: [number, number]) => ({
      ...stretch(start, size),
      before,
      after,
      mappings,
    });
    const totals = anonymousGrowthByKind([
      change(0x40000, 256 * KB, 0, 256 * KB, [0, 1]),
      change(0x80000, 256 * KB, 256 * KB, 0, [1, 0]),
      change(0xc0000, 256 * KB, 100 * KB, 200 * KB, [1, 1]),
      change(0x7f0000001000, 132 * KB, 132 * KB, 132 * KB, [1, 1]),
    ]);
    expect(totals).toEqual([
      { kind: "V8's pages of 256 KB", before: 356 * KB, after: 456 * KB, stretches: [2, 2] },
      { kind: "other", before: 132 * KB, after: 132 * KB, stretches: [1, 1] },
    ]);
  });
});
