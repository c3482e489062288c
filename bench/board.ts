// How the live board holds up in a real browser: Chromium (Playwright, headless, Debian's
// /usr/bin/chromium) on /board with 200 live events and a busy feed.
//
//   npm run bench:board        (serves the production build: `npm run build` first)
//
// The server is server.ts as `npm start` runs it (production build, PGlite in a fresh DATA_DIR),
// with the simulator on at BENCH_SIM_SPEED (600: its live events change every few hundred ms) and
// 200 live soccer events of bench/data.ts posted through the provider ingest. On top of the
// simulator, this script moves BENCH_BOARD_RATE (100) of those 200 events' prices a second, in
// batches every 100 ms, each event's match winner alternating up and down. The browser signs in as
// the demo organisation's admin (real time, every sport) and opens the board; the server and this
// script run on CPU 0, this run's browser on CPU 1 where taskset exists. BENCH_BOARD_PIN=off leaves
// the browser on every core (beside the server): its compositor, raster and GPU threads then need
// not take turns with the page's main thread, as on a viewer's machine of several cores.
//
// Measured in the page, over every minute of BENCH_BOARD_MINUTES (10):
// - long tasks over 50 ms (PerformanceObserver `longtask`), per minute;
// - message to paint: for each batch of stream messages the page applied, from each message's
//   arrival (the fetch reader handing it over) to the start of the frame after React committed the
//   batch, by which the change is painted (an upper bound by up to one frame); p50 and p95;
// - frames per second (requestAnimationFrame callbacks);
// - the JS heap after a garbage collection (CDP HeapProfiler.collectGarbage, Runtime.getHeapUsage),
//   after the first minute and after the last: flat means the last is within 10 % (or 2 MB) of the first.
// - the main thread's time in tasks, script, style and layout (CDP Performance.getMetrics), and the
//   CPU seconds all the browser's processes used (/proc): on a shared machine, wall time includes
//   waiting for a core, CPU time does not; the load average is printed at the start and the end.
// Targets: no long task over 50 ms, message-to-paint p95 under 100 ms, heap flat. The script prints
// PASS or FAIL for each; it asserts no timing. It exits non-zero only when something broke.
//
// BENCH_BOARD_TRACE=<seconds> records a Chromium trace of that long in the first minute and prints
// what the main thread's tasks were made of, wall and CPU time (bench/board-trace.ts).
// BENCH_BOARD_PROFILE=<seconds> samples the page's JavaScript that long in the first minute (CDP
// Profiler) and prints the functions that used the most of it, by chunk and position, with the
// profile written to test-results/board.cpuprofile for DevTools; a build with BROWSER_SOURCE_MAPS=1
// lets DevTools name the sources.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "@playwright/test";
import type { FeedUpdate } from "../lib/feed/schemas.ts";
import { demoSignIn } from "../testing/console.ts";
import { CAN_PIN, childPids, cpuSeconds, pin } from "../testing/cpu.ts";
import { FEED_TOKEN, ingest } from "../testing/feed.ts";
import { startServer } from "../testing/processes.ts";
import { describeTrace, recordTrace } from "./board-trace.ts";
import { summarise, type CpuProfile } from "./cpu-profile.ts";
import { liveSoccer } from "./data.ts";
import { percentile } from "./stats.ts";

const MINUTES = Number(process.env.BENCH_BOARD_MINUTES ?? 10);
const RATE = Number(process.env.BENCH_BOARD_RATE ?? 100);
const SIM_SPEED = process.env.BENCH_SIM_SPEED ?? "600";
const TRACE_SECONDS = Number(process.env.BENCH_BOARD_TRACE ?? 0);
const PROFILE_SECONDS = Number(process.env.BENCH_BOARD_PROFILE ?? 0);
const LIVE_EVENTS = 200;
const PIN_BROWSER = CAN_PIN && process.env.BENCH_BOARD_PIN !== "off";

type Minute = {
  longTasks: number;
  longestTask: number;
  frames: number;
  delays: number[];
  heapMB?: number;
  /** The main thread's time in tasks, script, style and layout over the minute (ms, CDP Performance). */
  thread: Record<"task" | "script" | "style" | "layout", number>;
  /** CPU seconds of all the browser's processes over the minute (/proc): work, not time waiting for a core. */
  browserCpu: number;
};

/** The browser's processes: this process's children other than the server, and all theirs. */
function browserPids(serverPid: number): number[] {
  const all: number[] = [];
  const walk = (pid: number) => {
    all.push(pid);
    for (const child of childPids(pid)) walk(child);
  };
  for (const child of childPids(process.pid)) if (child !== serverPid) walk(child);
  return all;
}

const loadAverage = () =>
  os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(", ");

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "bench-board-"));
  const server = await startServer({ DATA_DIR: dataDir, FEED_TOKEN, SIM: "on", SIM_SPEED }, { checkLogs: false });
  pin(server.process.pid!, 0);
  // This process (the feed below and Playwright's client) runs beside the server: the browser's
  // core is the browser's alone, as a viewer's machine gives the board one.
  pin(process.pid, 0);
  const demo = demoSignIn(server.output());
  const events = liveSoccer(LIVE_EVENTS, Date.now());
  await ingest(server.url, events);

  // The feed: RATE price moves a second over the 200 events, in batches every 100 ms. Each move
  // takes an event's match winner between its first prices and those prices times 1.04, so every
  // move flashes and the prices stay where the ingest accepts them (a random walk drifted under 1.0).
  const sequences = new Map(events.map((event) => [event.event_id, 1]));
  const raised = new Map<string, boolean>();
  let tick = 0;
  const driver = setInterval(() => {
    const batch: FeedUpdate[] = [];
    for (let i = 0; i < RATE / 10; i++) {
      const event = events[(tick * 7 + i * 13) % events.length]!;
      const sequence = sequences.get(event.event_id)! + 1;
      sequences.set(event.event_id, sequence);
      const up = !raised.get(event.event_id);
      raised.set(event.event_id, up);
      const first = event.markets![0]!;
      const market = {
        ...first,
        outcomes: first.outcomes.map((outcome) => ({
          ...outcome,
          price: up ? Math.round(outcome.price * 104) / 100 : outcome.price,
        })),
      };
      batch.push({ event_id: event.event_id, sequence, markets: [market] });
    }
    tick++;
    ingest(server.url, batch).catch((error: unknown) => console.error(`bench: ingest failed: ${String(error)}`));
  }, 100);

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"],
  });
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  // This run's browser only (the children of this process other than the server, and theirs):
  // other browsers on a shared machine are not ours to move.
  // Its processes started on this process's core, as children do: moved to theirs.
  const browserCores = PIN_BROWSER ? 1 : `0-${os.availableParallelism() - 1}`;
  if (CAN_PIN) for (const pid of browserPids(server.process.pid!)) pin(pid, browserCores);
  const browserCpu = () => browserPids(server.process.pid!).reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0);
  await page.addInitScript(() => {
    const state = { longTasks: [] as number[], frames: 0, delays: [] as number[], where: {} as Record<string, number> };
    (globalThis as unknown as { __bench: typeof state }).__bench = state;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) state.longTasks.push(entry.duration);
    }).observe({ type: "longtask", buffered: true });
    // Where the long frames' time went (Long Animation Frames): each script by what invoked it,
    // and style and layout, added up over the frames of 50 ms and more.
    type Frame = PerformanceEntry & {
      renderStart: number;
      styleAndLayoutStart: number;
      scripts: { invoker: string; sourceFunctionName: string; duration: number }[];
    };
    new PerformanceObserver((list) => {
      for (const frame of list.getEntries() as Frame[]) {
        if (frame.duration < 50) continue;
        const add = (what: string, ms: number) => (state.where[what] = (state.where[what] ?? 0) + ms);
        for (const script of frame.scripts)
          add(`script ${script.invoker} ${script.sourceFunctionName}`.trim(), script.duration);
        if (frame.styleAndLayoutStart)
          add("style and layout", frame.startTime + frame.duration - frame.styleAndLayoutStart);
      }
    }).observe({ type: "long-animation-frame", buffered: true });
    const frame = () => {
      state.frames++;
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
    (globalThis as unknown as { __streamFrameObserver: (a: number[], p: number) => void }).__streamFrameObserver = (
      arrivals,
      paintedBy,
    ) => {
      for (const arrival of arrivals) state.delays.push(paintedBy - arrival);
    };
  });
  await page.goto(`${server.url}/console/sign-in?next=/board`);
  await page.getByLabel("E-mail").fill(demo.email);
  await page.getByLabel("Password").fill(demo.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${server.url}/board`);
  await page
    .locator('[data-testid="board-row"]')
    .nth(LIVE_EVENTS - 1)
    .waitFor({ timeout: 30_000 });
  const rows = await page.locator('[data-testid="board-row"]').count();
  const cdp = await page.context().newCDPSession(page);
  const heapMB = async () => {
    await cdp.send("HeapProfiler.collectGarbage");
    const { usedSize } = await cdp.send("Runtime.getHeapUsage");
    return usedSize / 2 ** 20;
  };
  console.log(
    `bench: board with ${rows} rows (${LIVE_EVENTS} posted, the rest the simulator's), ${RATE} price moves a second` +
      ` posted plus the simulator at SIM_SPEED=${SIM_SPEED}; ${MINUTES} minute(s)${CAN_PIN ? `; server and feed on CPU 0, browser on ${PIN_BROWSER ? "CPU 1" : "every CPU"}` : ""}`,
  );

  await cdp.send("Performance.enable");
  const threadTimes = async () => {
    const { metrics } = await cdp.send("Performance.getMetrics");
    const value = (name: string) => (metrics.find((metric) => metric.name === name)?.value ?? 0) * 1_000;
    return {
      task: value("TaskDuration"),
      script: value("ScriptDuration"),
      style: value("RecalcStyleDuration"),
      layout: value("LayoutDuration"),
    };
  };
  console.log(`bench: load average at the start ${loadAverage()} (${os.cpus().length} cores)`);

  const minutes: Minute[] = [];
  for (let m = 0; m < MINUTES; m++) {
    const before = await threadTimes();
    const cpuBefore = browserCpu();
    await page.evaluate(() => {
      const state = (globalThis as unknown as { __bench: { longTasks: number[]; frames: number; delays: number[] } })
        .__bench;
      state.longTasks = [];
      state.frames = 0;
      state.delays = [];
    });
    if (m === 0)
      await page.evaluate(() => ((globalThis as unknown as { __bench: { where: object } }).__bench.where = {}));
    if (m === 0 && TRACE_SECONDS > 0) {
      const started = Date.now();
      for (const line of describeTrace(await recordTrace(cdp, TRACE_SECONDS))) console.log(line);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 60_000 - (Date.now() - started))));
    } else if (m === 0 && PROFILE_SECONDS > 0) {
      const started = Date.now();
      await cdp.send("Profiler.enable");
      await cdp.send("Profiler.start");
      await new Promise((resolve) => setTimeout(resolve, PROFILE_SECONDS * 1_000));
      const { profile } = (await cdp.send("Profiler.stop")) as unknown as { profile: CpuProfile };
      mkdirSync("test-results", { recursive: true });
      writeFileSync("test-results/board.cpuprofile", JSON.stringify(profile));
      console.log(`  the page's JavaScript over ${PROFILE_SECONDS} s (test-results/board.cpuprofile):`);
      console.log(summarise(profile, { requests: 1, cpuSeconds: null, root: process.cwd(), top: 30 }));
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 60_000 - (Date.now() - started))));
    } else await new Promise((resolve) => setTimeout(resolve, 60_000));
    const after = await threadTimes();
    const cpuAfter = browserCpu();
    const sample = await page.evaluate(
      () => (globalThis as unknown as { __bench: { longTasks: number[]; frames: number; delays: number[] } }).__bench,
    );
    const minute: Minute = {
      longTasks: sample.longTasks.length,
      longestTask: Math.max(0, ...sample.longTasks),
      frames: sample.frames,
      delays: sample.delays,
      thread: {
        task: after.task - before.task,
        script: after.script - before.script,
        style: after.style - before.style,
        layout: after.layout - before.layout,
      },
      browserCpu: cpuAfter - cpuBefore,
    };
    if (m === 0 || m === MINUTES - 1) minute.heapMB = await heapMB();
    minutes.push(minute);
    console.log(
      `  minute ${m + 1}: long tasks ${minute.longTasks} (longest ${minute.longestTask.toFixed(0)} ms), ` +
        `${(minute.frames / 60).toFixed(1)} fps, message to paint p50 ${percentile(minute.delays, 50).toFixed(1)} ms ` +
        `p95 ${percentile(minute.delays, 95).toFixed(1)} ms over ${minute.delays.length} messages, ` +
        `main thread ${(minute.thread.task / 600).toFixed(1)} % busy (script ${minute.thread.script.toFixed(0)}, ` +
        `style ${minute.thread.style.toFixed(0)}, layout ${minute.thread.layout.toFixed(0)} ms), ` +
        `browser CPU ${minute.browserCpu.toFixed(1)} s` +
        (minute.heapMB !== undefined ? `, heap ${minute.heapMB.toFixed(1)} MB` : ""),
    );
  }
  const where = await page.evaluate(
    () => (globalThis as unknown as { __bench: { where: Record<string, number> } }).__bench.where,
  );
  clearInterval(driver);
  await browser.close();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });

  const delays = minutes.flatMap((minute) => minute.delays);
  const longTasks = minutes.reduce((sum, minute) => sum + minute.longTasks, 0);
  const p50 = percentile(delays, 50);
  const p95 = percentile(delays, 95);
  const fps = minutes.reduce((sum, minute) => sum + minute.frames, 0) / (60 * minutes.length);
  const first = minutes[0]!.heapMB!;
  const last = minutes.at(-1)!.heapMB!;
  const flat = last <= Math.max(first * 1.1, first + 2);
  const longest = Math.max(...minutes.map((minute) => minute.longestTask));
  const per = (key: keyof Minute["thread"]) =>
    minutes.reduce((sum, minute) => sum + minute.thread[key], 0) / minutes.length;
  console.log(
    `\nboard, ${MINUTES} minute(s), ${delays.length} messages painted; load average at the end ${loadAverage()}:`,
  );
  console.log(
    `  long tasks over 50 ms: ${(longTasks / minutes.length).toFixed(1)} per minute (${longTasks} in all, longest ${longest.toFixed(0)} ms)  ${longTasks === 0 ? "PASS" : "FAIL"}`,
  );
  console.log(
    `  message to paint: p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms  ${p95 < 100 ? "PASS" : "FAIL"} (p95 under 100 ms)`,
  );
  console.log(`  frames per second: ${fps.toFixed(1)}`);
  console.log(
    `  main thread per minute: ${(per("task") / 1_000).toFixed(1)} s in tasks (${(per("task") / 600).toFixed(1)} %), ` +
      `script ${(per("script") / 1_000).toFixed(1)} s, style ${(per("style") / 1_000).toFixed(1)} s, layout ${(per("layout") / 1_000).toFixed(1)} s; ` +
      `the browser's processes used ${(minutes.reduce((sum, minute) => sum + minute.browserCpu, 0) / minutes.length).toFixed(1)} CPU s a minute`,
  );
  console.log(
    `  JS heap after GC: ${first.toFixed(1)} MB after the first minute, ${last.toFixed(1)} MB after minute ${MINUTES}  ` +
      `${flat ? "PASS" : "FAIL"} (flat: within 10 % or 2 MB)`,
  );
  const spent = Object.entries(where).sort((a, b) => b[1] - a[1]);
  if (spent.length > 0) {
    console.log("  where the frames of 50 ms and more spent their time (long animation frames, ms in all):");
    for (const [what, ms] of spent.slice(0, 8)) console.log(`    ${ms.toFixed(0).padStart(7)}  ${what}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
