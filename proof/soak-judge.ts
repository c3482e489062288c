import type { Finding } from "./report.ts";
import { percentile } from "../bench/stats.ts";
import type { ResidentByMapping } from "../testing/memory-map.ts";

// The soak's verdict on its samples, apart from the run so that a unit test can reach it: memory
// and handles flat, the clients' p99 not rising. Windows scale with the run: for an hour, the
// baseline is minutes 10 to 20 (warmed up) and the end is the last ten minutes.

/** One instance's figures at the end of one sampling interval. */
export type SoakSample = {
  minute: number;
  instance: string;
  rssBytes: number;
  heapBytes: number;
  /** V8's heap as committed: RSS less this and the external memory is the native rest (allocator, code). */
  heapCommittedBytes: number;
  /** Memory V8 knows of outside its heap (Buffers, mostly). */
  externalBytes: number;
  lagP99Ms: number;
  handles: number;
  /** Where RSS is, by kind of mapping, read from /proc beside the metrics; null off Linux. */
  resident: ResidentByMapping | null;
};

/** Below this a run is too short to tell growth from warm-up: its samples are printed, not judged. */
export const JUDGED_FROM_MINUTES = 30;
const GROWTH = 0.1;
const P99_GROWTH = 0.25;
// A p99 of a few milliseconds moves by one or two on a shared machine with nothing wrong.
const P99_SLACK_MS = 2;

export type SoakWindows = { baseline: [number, number]; end: [number, number] };

export function soakWindows(minutes: number): SoakWindows {
  return { baseline: [minutes / 6, minutes / 3], end: [minutes - minutes / 6, minutes] };
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const within = (minute: number, [from, to]: [number, number]) => minute > from && minute <= to;

/**
 * Findings for a run of `minutes`: for each instance, the end's mean RSS and open handles and its
 * heap's floor (the lowest heap used sampled) within 10 % of the baseline's; the clients' p99 over
 * the end within 25 % (plus 2 ms) of the baseline's. `latencies` are the clients' answers as (minute, ms). Empty when not judged.
 */
export function judgeSoak(
  minutes: number,
  samples: SoakSample[],
  latencies: { minute: number; ms: number }[],
): { judged: boolean; findings: Finding[] } {
  if (minutes < JUDGED_FROM_MINUTES) return { judged: false, findings: [] };
  const windows = soakWindows(minutes);
  const findings: Finding[] = [];
  for (const instance of [...new Set(samples.map((s) => s.instance))]) {
    const mine = samples.filter((s) => s.instance === instance);
    const baseline = mine.filter((s) => within(s.minute, windows.baseline));
    const end = mine.filter((s) => within(s.minute, windows.end));
    if (baseline.length === 0 || end.length === 0) {
      findings.push({ check: instance, problem: "no samples in the baseline or the end window" });
      continue;
    }
    // The heap used is sampled anywhere in the collector's sawtooth, so its mean over ten samples
    // moves by 10 % with nothing kept; what a leak raises is the floor, the lowest sample.
    const figures: [string, (s: SoakSample) => number, (values: number[]) => number][] = [
      ["RSS", (s) => s.rssBytes, mean],
      ["heap's floor", (s) => s.heapBytes, (values) => Math.min(...values)],
      ["open handles", (s) => s.handles, mean],
    ];
    for (const [name, of, summarise] of figures) {
      const before = summarise(baseline.map(of));
      const after = summarise(end.map(of));
      if (after > before * (1 + GROWTH))
        findings.push({
          check: instance,
          problem: `${name} grew ${(((after - before) / before) * 100).toFixed(1)} % from the baseline to the end`,
          detail: `${before.toFixed(0)} then ${after.toFixed(0)}`,
        });
    }
  }
  const p99Of = (window: [number, number]) =>
    percentile(
      latencies.filter((l) => within(l.minute, window)).map((l) => l.ms),
      99,
    );
  const before = p99Of(windows.baseline);
  const after = p99Of(windows.end);
  if (after > before * (1 + P99_GROWTH) + P99_SLACK_MS)
    findings.push({ check: "API clients", problem: `p99 rose from ${before} ms to ${after} ms` });
  return { judged: true, findings };
}
