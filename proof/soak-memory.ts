import {
  anonymousGrowth,
  anonymousGrowthByKind,
  anonymousMappings,
  kindOfStretch,
  mb,
  readProcessMaps,
  type AnonymousChange,
  type AnonymousMapping,
} from "../testing/memory-map.ts";
import { inspectorCommand } from "../testing/inspector.ts";
import type { Instance } from "../testing/scale-out.ts";
import { soakWindows } from "./soak-judge.ts";

// The soak's reading of each instance's anonymous memory (testing/memory-map.ts): where it went
// between the baseline's end and the run's, and what a memory-reducing collection at the end gives
// back. V8 keeps the pages a collection empties in a pool, mapped and resident, beyond what it
// counts as committed, until a collection that reduces memory or the isolate's end: a stretch of
// V8's pages that goes at the end was that pool, and one that stays is live heap.

/** Each instance's anonymous memory by stretch of address space, from one snapshot to another. */
export type AnonymousReport = { instance: string; from: string; to: string; changes: AnonymousChange[] };

export type Snapshots = Map<string, { minute: number; mappings: AnonymousMapping[] }[]>;

/** For each instance, its anonymous memory's changes from the snapshot at the baseline window's end to the last. */
export function anonymousFromBaseline(maps: Snapshots, minutes: number): AnonymousReport[] {
  const baselineEnd = soakWindows(minutes).baseline[1];
  return [...maps].flatMap(([instance, snapshots]) => {
    const from = snapshots.find((s) => s.minute >= baselineEnd) ?? snapshots[0];
    const to = snapshots.at(-1);
    if (!from || !to || from === to) return [];
    const minute = (m: number) => `minute ${+m.toFixed(2)}`;
    return [
      {
        instance,
        from: minute(from.minute),
        to: minute(to.minute),
        changes: anonymousGrowth(from.mappings, to.mappings),
      },
    ];
  });
}

/**
 * Each instance's anonymous memory before and after a memory-reducing collection (the inspector's
 * HeapProfiler.collectGarbage), taken once the load has stopped; instances started without an
 * inspector port are left out.
 */
export async function collectedAtEnd(instances: readonly Instance[]): Promise<AnonymousReport[]> {
  const reports: AnonymousReport[] = [];
  for (const instance of instances) {
    const pid = instance.server?.process.pid;
    if (pid === undefined || instance.inspectPort === null) continue;
    const before = readProcessMaps(pid);
    if (!before) continue;
    await inspectorCommand(pid, instance.inspectPort, "HeapProfiler.collectGarbage");
    const after = readProcessMaps(pid);
    if (!after) continue;
    reports.push({
      instance: instance.name,
      from: "the end of the load",
      to: "a memory-reducing collection",
      changes: anonymousGrowth(anonymousMappings(before.smaps), anonymousMappings(after.smaps)),
    });
  }
  return reports;
}

const hex = (address: number) => address.toString(16);
const signed = (bytes: number) => `${bytes >= 0 ? "+" : ""}${mb(bytes)}`;

/** By kind of stretch, then the stretches outside V8's pages that changed most: where the anonymous memory went. */
export function formatAnonymous({ instance, from, to, changes }: AnonymousReport): string[] {
  const delta = (c: { before: number; after: number }) => c.after - c.before;
  const total = changes.reduce((n, c) => n + delta(c), 0);
  const kinds = anonymousGrowthByKind(changes).map(
    (k) =>
      `    ${k.kind.padEnd(44)} ${mb(k.before).padStart(7)} → ${mb(k.after).padStart(7)} MB (${signed(delta(k))}), ${k.stretches[0]} → ${k.stretches[1]} stretches`,
  );
  const notPages = changes
    .filter((c) => !kindOfStretch(c).startsWith("V8's pages") && Math.abs(delta(c)) >= 256 * 1024)
    .sort((a, b) => Math.abs(delta(b)) - Math.abs(delta(a)))
    .slice(0, 8)
    .map(
      (c) =>
        `    ${`${hex(c.start)}-${hex(c.end)}`.padEnd(27)} ${mb(c.end - c.start).padStart(8)} MB mapped, ${mb(c.before).padStart(7)} → ${mb(c.after).padStart(7)} MB (${signed(delta(c))}), ${c.perms.join(" ")}${c.name ? ` ${c.name}` : ""} (${kindOfStretch(c)})`,
    );
  return [
    `  ${instance}, anonymous memory from ${from} to ${to}: ${signed(total)} MB, by kind:`,
    ...kinds,
    ...(notPages.length ? ["  the stretches outside V8's pages that changed most:", ...notPages] : []),
  ];
}
