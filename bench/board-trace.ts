// The board benchmark's trace mode (BENCH_BOARD_TRACE=<seconds>): a Chromium trace of the page's
// main thread through CDP, and what each task of 50 ms and more spent its time on. Wall time (dur)
// against the thread's own CPU time (tdur) tells work from waiting for a core on a shared machine;
// style and layout run inside script are forced (a layout read after a write).
import type { CDPSession } from "@playwright/test";

type TraceEvent = {
  name: string;
  cat: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string; elementCount?: number; beginData?: { dirtyObjects?: number; totalObjects?: number } } & {
    data?: { type?: string; functionName?: string; url?: string; timerId?: number };
  };
};

const CATEGORIES = [
  "toplevel",
  "devtools.timeline",
  "disabled-by-default-devtools.timeline",
  "v8",
  "blink.user_timing",
  "__metadata",
].join(",");

const TASK = new Set(["RunTask", "ThreadControllerImpl::RunTask"]);
const STYLE = "UpdateLayoutTree";
const LAYOUT = "Layout";
const OTHER = new Set([
  "Paint",
  "PrePaint",
  "Layerize",
  "Commit",
  "MinorGC",
  "MajorGC",
  "ParseHTML",
  "HitTest",
  "IntersectionObserverController::computeIntersections",
]);
const SCRIPT = new Set(["FunctionCall", "TimerFire", "FireAnimationFrame", "EventDispatch", "RunMicrotasks"]);

/** Records `seconds` of trace and returns the events. */
export async function recordTrace(cdp: CDPSession, seconds: number): Promise<TraceEvent[]> {
  const events: TraceEvent[] = [];
  cdp.on("Tracing.dataCollected", (chunk: { value: object[] }) => events.push(...(chunk.value as TraceEvent[])));
  const complete = new Promise<void>((resolve) => cdp.once("Tracing.tracingComplete", () => resolve()));
  await cdp.send("Tracing.start", { categories: CATEGORIES, transferMode: "ReportEvents" });
  await new Promise((resolve) => setTimeout(resolve, seconds * 1_000));
  await cdp.send("Tracing.end");
  await complete;
  return events;
}

/** What the trace's long tasks on the renderer's main thread were made of, as lines to print. */
export function describeTrace(events: TraceEvent[], threshold = 50): string[] {
  const mains = events.filter((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain");
  // The page's renderer is the main thread with the most tasks (about:blank's does next to nothing).
  let best: { pid: number; tid: number; count: number } | undefined;
  for (const main of mains) {
    const count = events.filter((e) => e.pid === main.pid && e.tid === main.tid && TASK.has(e.name)).length;
    if (!best || count > best.count) best = { pid: main.pid, tid: main.tid, count };
  }
  if (!best) return ["  trace: no renderer main thread found"];
  const thread = events
    .filter((e) => e.pid === best.pid && e.tid === best.tid && e.ph === "X" && e.dur !== undefined)
    .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  // The outermost tasks, and each event's enclosing events.
  const tasks: TraceEvent[] = [];
  const parents = new Map<TraceEvent, TraceEvent[]>();
  const stack: TraceEvent[] = [];
  for (const event of thread) {
    while (stack.length > 0 && stack.at(-1)!.ts + stack.at(-1)!.dur! <= event.ts) stack.pop();
    parents.set(event, [...stack]);
    if (TASK.has(event.name) && !stack.some((p) => TASK.has(p.name))) tasks.push(event);
    stack.push(event);
  }
  const ms = (us: number) => (us / 1_000).toFixed(1);
  const label = (e: TraceEvent) => {
    const data = e.args?.data;
    if (e.name === "EventDispatch") return `EventDispatch ${data?.type ?? ""}`;
    if (e.name === "FunctionCall") return `FunctionCall ${data?.functionName || "(anonymous)"}`;
    return e.name;
  };
  const lines: string[] = [];
  const totals = new Map<string, { dur: number; tdur: number; count: number }>();
  const add = (key: string, e: TraceEvent) => {
    const total = totals.get(key) ?? { dur: 0, tdur: 0, count: 0 };
    total.dur += e.dur!;
    total.tdur += e.tdur ?? 0;
    total.count++;
    totals.set(key, total);
  };
  let busy = 0;
  let busyCpu = 0;
  for (const task of tasks) {
    busy += task.dur!;
    busyCpu += task.tdur ?? 0;
  }
  const span = thread.length > 0 ? thread.at(-1)!.ts - thread[0]!.ts : 0;
  for (const event of thread) {
    const chain = parents.get(event)!;
    const inScript = chain.some((p) => SCRIPT.has(p.name));
    if (event.name === STYLE || event.name === LAYOUT) {
      // Counted once: not inside another of its kind.
      if (chain.some((p) => p.name === event.name)) continue;
      add(`${event.name}${inScript ? " (forced, inside script)" : ""}`, event);
    } else if (SCRIPT.has(event.name) && !inScript) add(label(event), event);
    else if (OTHER.has(event.name)) {
      if (!chain.some((p) => OTHER.has(p.name))) add(event.name, event);
    }
  }
  lines.push(
    `  trace of ${ms(span)} ms: main thread busy ${ms(busy)} ms (CPU ${ms(busyCpu)} ms) in ${tasks.length} tasks; by kind (wall ms / CPU ms / count):`,
  );
  for (const [key, total] of [...totals].sort((a, b) => b[1].dur - a[1].dur).slice(0, 14)) {
    lines.push(
      `    ${ms(total.dur).padStart(8)} ${ms(total.tdur).padStart(8)} ${String(total.count).padStart(6)}  ${key}`,
    );
  }
  const long = tasks.filter((task) => task.dur! >= threshold * 1_000);
  const longCpu = long.filter((task) => (task.tdur ?? 0) >= threshold * 1_000).length;
  const cpu = long.map((task) => (task.tdur ?? 0) / 1_000).sort((a, b) => a - b);
  lines.push(
    `  tasks of ${threshold} ms and more: ${long.length}, of which ${longCpu} used ${threshold} ms of CPU or more ` +
      `(the rest waited for a core); their CPU time median ${(cpu[Math.floor(cpu.length / 2)] ?? 0).toFixed(1)} ms, ` +
      `max ${(cpu.at(-1) ?? 0).toFixed(1)} ms`,
  );
  for (const task of long.slice(0, 12)) {
    const inside = thread.filter((e) => e !== task && e.ts >= task.ts && e.ts < task.ts + task.dur!);
    const parts = new Map<string, number>();
    let elements = 0;
    let dirty = 0;
    let total = 0;
    for (const e of inside) {
      const chain = parents.get(e)!.filter((p) => p !== task && !TASK.has(p.name));
      if (e.name === STYLE) elements += e.args?.elementCount ?? 0;
      if (e.name === LAYOUT) {
        dirty += e.args?.beginData?.dirtyObjects ?? 0;
        total = Math.max(total, e.args?.beginData?.totalObjects ?? 0);
      }
      if (chain.length > 0) continue;
      parts.set(label(e), (parts.get(label(e)) ?? 0) + e.dur!);
    }
    const top = [...parts]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([name, dur]) => `${name} ${ms(dur)}`)
      .join(", ");
    lines.push(
      `    ${ms(task.dur!)} ms (CPU ${ms(task.tdur ?? 0)}): ${top}; style ${elements} elements, layout ${dirty} of ${total} objects dirty`,
    );
  }
  return lines;
}
