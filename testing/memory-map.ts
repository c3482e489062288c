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

/** Bytes as megabytes (2^20), with so many decimals: how every memory figure of the benchmarks and proofs is printed. */
export const mb = (bytes: number, decimals = 1) => (bytes / 2 ** 20).toFixed(decimals);

/** One mapping of /proc/<pid>/smaps: its addresses, permissions, inode ("0": no file behind it), name and resident bytes. */
export type Mapping = { start: number; end: number; perms: string; inode: string; name: string; rss: number };

/** The mappings of an smaps text, in its order. */
export function mappingsOf(smaps: string): Mapping[] {
  const mappings: Mapping[] = [];
  let current: Mapping | null = null;
  for (const line of smaps.split("\n")) {
    // A mapping's header: "start-end perms offset dev inode [path]"; its fields follow, one a line.
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) [0-9a-f]+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (header) {
      const [, start, end, perms, inode, name] = header;
      current = {
        start: parseInt(start!, 16),
        end: parseInt(end!, 16),
        perms: perms!,
        inode: inode!,
        name: name!,
        rss: 0,
      };
      mappings.push(current);
      continue;
    }
    if (current && line.startsWith("Rss:")) current.rss = Number(/(\d+) kB/.exec(line)?.[1] ?? 0) * 1024;
  }
  return mappings;
}

/** Bytes resident in each kind of mapping, from the text of /proc/<pid>/smaps. */
export function residentByMapping(smaps: string, executable: string): ResidentByMapping {
  const total: ResidentByMapping = { executable: 0, files: 0, brk: 0, anonymous: 0 };
  for (const { inode, name, rss } of mappingsOf(smaps)) {
    if (name === executable) total.executable += rss;
    else if (inode !== "0") total.files += rss;
    else if (name === "[heap]") total.brk += rss;
    else total.anonymous += rss;
  }
  return total;
}

/** A running process's smaps and the path of its executable, read once; null where /proc does not have them (not Linux, or it ended). */
export type ProcessMaps = { smaps: string; executable: string };

export function readProcessMaps(pid: number): ProcessMaps | null {
  try {
    return { smaps: readFileSync(`/proc/${pid}/smaps`, "utf8"), executable: readlinkSync(`/proc/${pid}/exe`) };
  } catch {
    return null;
  }
}

/** residentByMapping for a running process, or null where /proc does not have it. */
export function residentMemory(pid: number): ResidentByMapping | null {
  const maps = readProcessMaps(pid);
  return maps && residentByMapping(maps.smaps, maps.executable);
}

/** One anonymous mapping (no file behind it). */
export type AnonymousMapping = Omit<Mapping, "inode">;

/** The anonymous mappings (the brk heap, V8's pages, the allocator's arenas and large blocks, stacks) of an smaps text. */
export function anonymousMappings(smaps: string): AnonymousMapping[] {
  return mappingsOf(smaps)
    .filter((m) => m.inode === "0")
    .map(({ start, end, perms, name, rss }) => ({ start, end, perms, name, rss }));
}

/** Anonymous memory that changed between two snapshots, per stretch of address space. */
export type AnonymousChange = {
  start: number;
  end: number;
  before: number;
  after: number;
  /** How many mappings the stretch was cut into in each snapshot (permissions change inside a reservation). */
  mappings: [number, number];
  perms: string[];
  name: string;
};

/**
 * Anonymous resident memory of two snapshots of one process, by stretch of address space: mappings
 * of either snapshot that overlap are one stretch, so a reservation whose pages were committed (one
 * mapping cut into several) or a mapping grown in place is compared with itself, and a mapping that
 * is only in one snapshot stands alone. Sorted by growth, largest first.
 */
export function anonymousGrowth(before: AnonymousMapping[], after: AnonymousMapping[]): AnonymousChange[] {
  const all = [
    ...before.map((m) => ({ ...m, side: 0 as const })),
    ...after.map((m) => ({ ...m, side: 1 as const })),
  ].sort((a, b) => a.start - b.start);
  const changes: AnonymousChange[] = [];
  let open: AnonymousChange | null = null;
  for (const m of all) {
    if (!open || m.start >= open.end) {
      open = { start: m.start, end: m.end, before: 0, after: 0, mappings: [0, 0], perms: [], name: m.name };
      changes.push(open);
    }
    open.end = Math.max(open.end, m.end);
    if (m.side === 0) open.before += m.rss;
    else open.after += m.rss;
    open.mappings[m.side]++;
    if (!open.perms.includes(m.perms)) open.perms.push(m.perms);
    if (!open.name) open.name = m.name;
  }
  return changes.sort((a, b) => b.after - b.before - (a.after - a.before));
}

const KB256 = 256 * 1024;
const MB64 = 64 * 1024 * 1024;

/**
 * What a stretch of anonymous memory most likely is, from its name, permissions, size and
 * alignment: the brk heap; V8's code space (the one writable and executable reservation); a
 * WebAssembly memory (PGlite's database: one mapping larger than anything else, with gigabytes of
 * guard beside it); V8's heap pages, each a mapping of its own aligned to 256 KB (regular pages
 * 256 KB, a large object's page its object's size, rounded to 4 KB); the C allocator's thread
 * arenas (heaps of up to 64 MB, each aligned to 64 MB); and the rest (the allocator's large
 * blocks, thread stacks, other libraries' own mappings). A V8 page that falls on a 64 MB boundary
 * is told from an arena by its size.
 */
export function kindOfStretch(stretch: { start: number; end: number; perms: string[]; name: string }): string {
  const size = stretch.end - stretch.start;
  if (stretch.name === "[heap]") return "brk heap";
  if (stretch.perms.some((p) => p.startsWith("rwx"))) return "V8's code space";
  if (size > MB64) return "over 64 MB (a WebAssembly memory)";
  if (stretch.start % KB256 === 0 && size === KB256) return "V8's pages of 256 KB";
  if (stretch.start % MB64 === 0) return "allocator's thread arenas";
  if (stretch.start % KB256 === 0) return "V8's large objects (256 KB-aligned)";
  return "other";
}

/** The changes summed by kind (kindOfStretch), largest growth first. */
export function anonymousGrowthByKind(
  changes: AnonymousChange[],
): { kind: string; before: number; after: number; stretches: [number, number] }[] {
  const kinds = new Map<string, { kind: string; before: number; after: number; stretches: [number, number] }>();
  for (const change of changes) {
    const kind = kindOfStretch(change);
    const total = kinds.get(kind) ?? { kind, before: 0, after: 0, stretches: [0, 0] };
    total.before += change.before;
    total.after += change.after;
    if (change.mappings[0] > 0) total.stretches[0]++;
    if (change.mappings[1] > 0) total.stretches[1]++;
    kinds.set(kind, total);
  }
  return [...kinds.values()].sort((a, b) => b.after - b.before - (a.after - a.before));
}

/** One snapshot's anonymous resident memory by kind (kindOfStretch), largest first. */
export function residentByKind(mappings: AnonymousMapping[]): { kind: string; resident: number }[] {
  return anonymousGrowthByKind(anonymousGrowth([], mappings))
    .map(({ kind, after }) => ({ kind, resident: after }))
    .sort((a, b) => b.resident - a.resident);
}

/** Bytes resident in V8's regular pages (kindOfStretch's "V8's pages of 256 KB") of a running process. */
export function v8PagesResident(pid: number): number {
  const maps = readProcessMaps(pid);
  if (!maps) throw new Error(`process ${pid} has no /proc entry`);
  return anonymousMappings(maps.smaps)
    .filter((m) => kindOfStretch({ ...m, perms: [m.perms] }) === "V8's pages of 256 KB")
    .reduce((n, m) => n + m.rss, 0);
}

/**
 * Lines of a script (run with --expose-gc) that fill V8's heap with a few hundred megabytes, drop
 * them and take a plain full collection: V8's pool of pages then holds what they took.
 */
export const FILL_POOL_SCRIPT = `
let garbage = [];
for (let i = 0; i < 1_500_000; i++) garbage.push({ i, s: "x" + i, pair: [i, i] });
garbage = null;
gc();
`;
