import { readFileSync, readlinkSync } from "node:fs";

// Where a process's resident memory is, by kind of mapping (Linux: /proc/<pid>/smaps): what tells
// a leak from pages of code being touched for the first time, which RSS alone cannot.

export type ResidentByMapping = {
  /** Pages of the executable's own file (Node's code and data): grow as more of it runs, up to its size. */
  executable: number;
  /** Pages of other files: shared libraries, caches read through mmap. */
  files: number;
  /** The brk heap ([heap]): the C allocator's main arena. */
  brk: number;
  /** Anonymous mappings: V8's heap, the allocator's other arenas, thread stacks. */
  anonymous: number;
};

/** Bytes resident in each kind of mapping, from the text of /proc/<pid>/smaps. */
export function residentByMapping(smaps: string, executable: string): ResidentByMapping {
  const total: ResidentByMapping = { executable: 0, files: 0, brk: 0, anonymous: 0 };
  let kind: keyof ResidentByMapping = "anonymous";
  for (const line of smaps.split("\n")) {
    // A mapping's header: "start-end perms offset dev inode [path]"; its fields follow, one a line.
    const header = /^[0-9a-f]+-[0-9a-f]+ \S{4} [0-9a-f]+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (header) {
      const [, inode, name] = header;
      if (name === executable) kind = "executable";
      else if (inode !== "0") kind = "files";
      else if (name === "[heap]") kind = "brk";
      else kind = "anonymous";
      continue;
    }
    if (line.startsWith("Rss:")) total[kind] += Number(/(\d+) kB/.exec(line)?.[1] ?? 0) * 1024;
  }
  return total;
}

/** The same for a running process, or null where /proc does not have it (not Linux, or it ended). */
export function residentMemory(pid: number): ResidentByMapping | null {
  try {
    return residentByMapping(readFileSync(`/proc/${pid}/smaps`, "utf8"), readlinkSync(`/proc/${pid}/exe`));
  } catch {
    return null;
  }
}
