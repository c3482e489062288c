// Summaries of a V8 sampling heap profile taken with every sampled object kept, garbage included
// (the DevTools protocol's HeapProfiler.startSampling with includeObjectsCollectedByMajorGC and
// ...MinorGC): where the bytes a request allocates come from, by function, in bytes per request.
// V8's worker threads do the collector's work and the optimising compiler's, neither of which a CPU
// profile of the main thread shows: the bytes allocated rule the collector in or out (the compiler,
// docs/benchmarks.md found, was most of those threads' time).
import { origin } from "./cpu-profile.ts";

export type HeapNode = {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
};

export type HeapProfile = { head: HeapNode };

/**
 * The sampling settings, an object sampled about every 8 KiB: every allocated object, collected or
 * not; with BENCH_HEAP_LIVE=1 only those alive at the end; with BENCH_HEAP_LIVE=promoted those that
 * outlived a scavenge into the old space (what each scavenge copies, and what major collections
 * then find), dead since or not.
 */
const KEPT = process.env.BENCH_HEAP_LIVE;
export const HEAP_SAMPLING = {
  samplingInterval: 8_192,
  includeObjectsCollectedByMajorGC: KEPT !== "1",
  includeObjectsCollectedByMinorGC: KEPT !== "1" && KEPT !== "promoted",
};

/** What a summary's bytes are, by the settings above. */
export const HEAP_KEPT =
  KEPT === "1" ? "alive at the end" : KEPT === "promoted" ? "outliving a scavenge" : "garbage included";

/** The functions that allocated the most themselves, and the project's files, in bytes per request. */
export function summariseHeap(profile: HeapProfile, options: { requests: number; root: string; top?: number }): string {
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  const stack = [profile.head];
  while (stack.length) {
    const node = stack.pop()!;
    stack.push(...node.children);
    if (node.selfSize === 0) continue;
    total += node.selfSize;
    const { functionName, url, lineNumber } = node.callFrame;
    const { where, own } = origin(url, options.root);
    const name = `${functionName || "(anonymous)"} ${url ? `${where}:${lineNumber + 1}` : where}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize);
    const file = own ? where : `(${where})`;
    byFile.set(file, (byFile.get(file) ?? 0) + node.selfSize);
  }
  const perRequest = (bytes: number) => `${Math.round(bytes / Math.max(1, options.requests)).toLocaleString("en")} B`;
  const top = (table: Map<string, number>) =>
    [...table]
      .sort((a, b) => b[1] - a[1])
      .slice(0, options.top ?? 15)
      .map(
        ([name, bytes]) =>
          `    ${perRequest(bytes).padStart(9)}  ${((bytes / total) * 100).toFixed(1).padStart(5)} %  ${name}`,
      );
  return [
    `  allocated: ${perRequest(total)} a request`,
    `  by function (self):`,
    ...top(byFunction),
    `  by file (packages and Node in parentheses):`,
    ...top(byFile),
  ].join("\n");
}

type Call = <T>(method: string, params?: Record<string, unknown>) => Promise<T>;

// Evaluated in the profiled server through its inspector: a PerformanceObserver of its garbage
// collections, and the heap's spaces, read through process.getBuiltinModule (no import there).
const WATCH = `(() => {
  const { PerformanceObserver, constants } = process.getBuiltinModule("node:perf_hooks");
  const kinds = { [constants.NODE_PERFORMANCE_GC_MINOR]: "minor", [constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental", [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weak" };
  const seen = {};
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = kinds[entry.detail.kind] ?? String(entry.detail.kind);
      const s = (seen[kind] ??= { count: 0, ms: 0 });
      s.count++; s.ms += entry.duration;
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  globalThis.__gcWatch = { observer, seen };
})()`;

const READ = `(() => {
  const watch = globalThis.__gcWatch;
  watch.observer.disconnect();
  delete globalThis.__gcWatch;
  const spaces = process.getBuiltinModule("node:v8").getHeapSpaceStatistics()
    .map((s) => [s.space_name, Math.round(s.space_used_size / 1024)]);
  return JSON.stringify({ seen: watch.seen, spaces: Object.fromEntries(spaces) });
})()`;

/**
 * Watches the profiled process's garbage collections until the returned function is called, which
 * gives them as a line: each kind's count and main-thread pause, and the heap's spaces after.
 */
export async function watchCollections(call: Call): Promise<(requests: number) => Promise<string>> {
  await call("Runtime.evaluate", { expression: WATCH });
  return async (requests) => {
    const { result } = await call<{ result: { value: string } }>("Runtime.evaluate", {
      expression: READ,
      returnByValue: true,
    });
    const { seen, spaces } = JSON.parse(result.value) as {
      seen: Record<string, { count: number; ms: number }>;
      spaces: Record<string, number>;
    };
    const kinds = Object.entries(seen)
      .map(
        ([kind, { count, ms }]) =>
          `${kind} ${count} (${ms.toFixed(0)} ms, ${((ms * 1e3) / Math.max(1, requests)).toFixed(2)} µs a request)`,
      )
      .join(", ");
    const used = Object.entries(spaces)
      .filter(([, kb]) => kb >= 1_024)
      .map(([space, kb]) => `${space} ${(kb / 1_024).toFixed(1)} MB`)
      .join(", ");
    return `  collections: ${kinds || "none"}\n  heap used after: ${used}`;
  };
}
