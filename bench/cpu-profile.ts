// Summaries of a V8 CPU profile (the DevTools protocol's Profiler.Profile, as `node --cpu-prof`
// writes it): the functions that used the most CPU themselves (self), and those of the project's
// own files whose calls took the most (total: themselves and what they called), each with its share
// of the samples and, given the requests served and the CPU used meanwhile, its µs per request.
import path from "node:path";

export type CpuProfile = {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber?: number };
    hitCount?: number;
    children?: number[];
  }[];
  startTime: number;
  endTime: number;
  samples?: number[];
};

type Entry = { name: string; where: string; own: boolean; self: number; total: number };

/** Where a frame's code lives: a project file relative to `root`, a package, a Node module, or V8. */
export function origin(url: string, root: string): { where: string; own: boolean } {
  if (url === "") return { where: "V8 / native", own: false };
  if (url.startsWith("node:")) return { where: url, own: false };
  // A page's script, as a browser profile names it: the served path.
  if (/^https?:\/\//.test(url)) return { where: new URL(url).pathname, own: false };
  const file = url.startsWith("file://") ? decodeURIComponent(new URL(url).pathname) : url;
  const packageAt = file.lastIndexOf("/node_modules/");
  if (packageAt !== -1) {
    const rest = file.slice(packageAt + "/node_modules/".length).split("/");
    return { where: rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!, own: false };
  }
  const relative = path.relative(root, file);
  if (relative.startsWith(".next")) return { where: "Next's build (.next)", own: false };
  return relative.startsWith("..") ? { where: file, own: false } : { where: relative, own: true };
}

/** Self and total samples per function (a function on the stack twice counts once in its total). */
export function entries(profile: CpuProfile, root: string): { entries: Entry[]; samples: number } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const hits = new Map<number, number>();
  if (profile.samples) for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  else for (const node of profile.nodes) hits.set(node.id, node.hitCount ?? 0);
  const table = new Map<string, Entry>();
  const entryOf = (id: number): Entry => {
    const { functionName, url, lineNumber, columnNumber = 0 } = byId.get(id)!.callFrame;
    const name = functionName || "(anonymous)";
    const { where, own } = origin(url, root);
    // The column too: a minified bundle is one line of many functions.
    const at = `${where}:${lineNumber + 1}:${columnNumber + 1}`;
    let entry = table.get(at + name);
    if (!entry) table.set(at + name, (entry = { name, where: url ? at : where, own, self: 0, total: 0 }));
    return entry;
  };
  const children = new Set(profile.nodes.flatMap((node) => node.children ?? []));
  const roots = profile.nodes.filter((node) => !children.has(node.id));
  // Depth first, with the entries on the current stack: a node's own hits count in the total of
  // each entry on its stack once, however often the entry appears on it (recursion).
  const stack: { id: number; entry: Entry; next: number }[] = [];
  const onStack = new Map<Entry, number>();
  let samples = 0;
  const enter = (id: number) => {
    const entry = entryOf(id);
    const own = hits.get(id) ?? 0;
    samples += own;
    entry.self += own;
    onStack.set(entry, (onStack.get(entry) ?? 0) + 1);
    for (const counted of onStack.keys()) counted.total += own;
    stack.push({ id, entry, next: 0 });
  };
  for (const root of roots) {
    enter(root.id);
    while (stack.length) {
      const top = stack.at(-1)!;
      const kids = byId.get(top.id)!.children ?? [];
      if (top.next < kids.length) enter(kids[top.next++]!);
      else {
        stack.pop();
        const left = onStack.get(top.entry)! - 1;
        if (left === 0) onStack.delete(top.entry);
        else onStack.set(top.entry, left);
      }
    }
  }
  return { entries: [...table.values()], samples };
}

/**
 * The top entries as text: by self time, by file or package (self), and the project's own
 * functions by total. `cpuSeconds` is the CPU the process used while profiled (all its threads);
 * the profile samples the main thread only, so µs per request are the share of that CPU.
 */
export function summarise(
  profile: CpuProfile,
  { requests, cpuSeconds, root, top = 20 }: { requests: number; cpuSeconds: number | null; root: string; top?: number },
): string {
  const { entries: all, samples } = entries(profile, root);
  const idle = all.filter((e) => e.name === "(idle)").reduce((sum, e) => sum + e.self, 0);
  const busy = Math.max(1, samples - idle);
  const perRequest = (count: number) =>
    cpuSeconds === null
      ? ""
      : `${(((count / busy) * cpuSeconds * 1e6) / Math.max(1, requests)).toFixed(1).padStart(7)} µs`;
  const share = (count: number) => `${((count / busy) * 100).toFixed(1).padStart(5)} %`;
  const lines = [`  ${busy} busy samples (${idle} idle); shares are of the busy ones`, "  self, by function:"];
  for (const e of [...all]
    .filter((e) => e.name !== "(idle)")
    .sort((a, b) => b.self - a.self)
    .slice(0, top))
    lines.push(`    ${share(e.self)}${perRequest(e.self)}  ${e.name}  ${e.where}`);
  const files = new Map<string, number>();
  const fileOf = (where: string) => where.replace(/(:\d+)+$/, "");
  for (const e of all) if (e.name !== "(idle)") files.set(fileOf(e.where), (files.get(fileOf(e.where)) ?? 0) + e.self);
  lines.push("  self, by file or package:");
  for (const [where, count] of [...files].sort((a, b) => b[1] - a[1]).slice(0, top))
    lines.push(`    ${share(count)}${perRequest(count)}  ${where}`);
  lines.push("  total (with what they call), the project's own functions:");
  for (const e of all
    .filter((e) => e.own)
    .sort((a, b) => b.total - a.total)
    .slice(0, top))
    lines.push(`    ${share(e.total)}${perRequest(e.total)}  ${e.name}  ${e.where}`);
  return lines.join("\n");
}
