// How the live board holds up in a real browser: Chromium (Playwright, headless, Debian's
// /usr/bin/chromium) on /board with 200 live events and a busy feed.
//
//   npm run bench:board        (serves the production build: `npm run build` first)
//
// The server is server.ts as `npm start` runs it (production build, PGlite in a fresh DATA_DIR),
// with the simulator on at BENCH_SIM_SPEED (600: its live events change every few hundred ms) and
// 200 live soccer events of bench/data.ts posted through the provider ingest. On top of the
// simulator, this script moves BENCH_BOARD_RATE (100) of those 200 events' prices a second, in
// batches every 100 ms, alternating up and down. The browser signs in as the demo organisation's
// admin (real time, every sport) and opens the board; the server runs on CPU 0, the browser on
// CPU 1 where taskset exists.
//
// Measured in the page, over every minute of BENCH_BOARD_MINUTES (10):
// - long tasks over 50 ms (PerformanceObserver `longtask`), per minute;
// - message to paint: for each frame that applied stream messages, from each message's arrival
//   (the fetch reader handing it over) to the start of the next frame, by which the change is
//   painted (an upper bound by up to one frame); p50 and p95;
// - frames per second (requestAnimationFrame callbacks);
// - the JS heap after a garbage collection (CDP HeapProfiler.collectGarbage, Runtime.getHeapUsage),
//   after the first minute and after the last: flat means the last is within 10 % (or 2 MB) of the first.
// Targets: no long task over 50 ms, message-to-paint p95 under 100 ms, heap flat. The script prints
// PASS or FAIL for each; it asserts no timing. It exits non-zero only when something broke.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "@playwright/test";
import type { FeedUpdate } from "../lib/feed/schemas.ts";
import { demoSignIn } from "../testing/console.ts";
import { CAN_PIN, pin } from "../testing/cpu.ts";
import { FEED_TOKEN, ingest } from "../testing/feed.ts";
import { startServer } from "../testing/processes.ts";
import { liveSoccer } from "./data.ts";

const MINUTES = Number(process.env.BENCH_BOARD_MINUTES ?? 10);
const RATE = Number(process.env.BENCH_BOARD_RATE ?? 100);
const SIM_SPEED = process.env.BENCH_SIM_SPEED ?? "600";
const LIVE_EVENTS = 200;

type Minute = { longTasks: number; longestTask: number; frames: number; delays: number[]; heapMB?: number };

const quantile = (values: number[], q: number) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "bench-board-"));
  const server = await startServer({ DATA_DIR: dataDir, FEED_TOKEN, SIM: "on", SIM_SPEED }, { checkLogs: false });
  pin(server.process.pid!, 0);
  const demo = demoSignIn(server.output());
  const events = liveSoccer(LIVE_EVENTS, Date.now());
  await ingest(server.url, events);

  // The feed: RATE price moves a second over the 200 events, in batches every 100 ms.
  const sequences = new Map(events.map((event) => [event.event_id, 1]));
  let tick = 0;
  const driver = setInterval(() => {
    const batch: FeedUpdate[] = [];
    for (let i = 0; i < RATE / 10; i++) {
      const event = events[(tick * 7 + i * 13) % events.length]!;
      const sequence = sequences.get(event.event_id)! + 1;
      sequences.set(event.event_id, sequence);
      const up = (tick + i) % 2 === 0;
      const markets = event.markets!.map((market) => ({
        ...market,
        outcomes: market.outcomes.map((outcome) => ({
          ...outcome,
          price: Math.round(outcome.price * (up ? 1.04 : 1 / 1.04) * 100) / 100,
        })),
      }));
      event.markets = markets;
      batch.push({ event_id: event.event_id, sequence, markets: [markets[0]!] });
    }
    tick++;
    ingest(server.url, batch).catch((error: unknown) => console.error(`bench: ingest failed: ${String(error)}`));
  }, 100);

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"],
  });
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  if (CAN_PIN) {
    for (const line of spawnSync("pgrep", ["-f", "chromium"]).stdout.toString().split("\n").filter(Boolean)) {
      pin(Number(line), 1);
    }
  }
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
      ` posted plus the simulator at SIM_SPEED=${SIM_SPEED}; ${MINUTES} minute(s)${CAN_PIN ? "; server on CPU 0, browser on CPU 1" : ""}`,
  );

  const minutes: Minute[] = [];
  for (let m = 0; m < MINUTES; m++) {
    await page.evaluate(() => {
      const state = (globalThis as unknown as { __bench: { longTasks: number[]; frames: number; delays: number[] } })
        .__bench;
      state.longTasks = [];
      state.frames = 0;
      state.delays = [];
    });
    if (m === 0)
      await page.evaluate(() => ((globalThis as unknown as { __bench: { where: object } }).__bench.where = {}));
    await new Promise((resolve) => setTimeout(resolve, 60_000));
    const sample = await page.evaluate(
      () => (globalThis as unknown as { __bench: { longTasks: number[]; frames: number; delays: number[] } }).__bench,
    );
    const minute: Minute = {
      longTasks: sample.longTasks.length,
      longestTask: Math.max(0, ...sample.longTasks),
      frames: sample.frames,
      delays: sample.delays,
    };
    if (m === 0 || m === MINUTES - 1) minute.heapMB = await heapMB();
    minutes.push(minute);
    console.log(
      `  minute ${m + 1}: long tasks ${minute.longTasks} (longest ${minute.longestTask.toFixed(0)} ms), ` +
        `${(minute.frames / 60).toFixed(1)} fps, message to paint p50 ${quantile(minute.delays, 0.5).toFixed(1)} ms ` +
        `p95 ${quantile(minute.delays, 0.95).toFixed(1)} ms over ${minute.delays.length} messages` +
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
  const p50 = quantile(delays, 0.5);
  const p95 = quantile(delays, 0.95);
  const fps = minutes.reduce((sum, minute) => sum + minute.frames, 0) / (60 * minutes.length);
  const first = minutes[0]!.heapMB!;
  const last = minutes.at(-1)!.heapMB!;
  const flat = last <= Math.max(first * 1.1, first + 2);
  console.log(`\nboard, ${MINUTES} minute(s), ${delays.length} messages painted:`);
  console.log(
    `  long tasks over 50 ms: ${(longTasks / minutes.length).toFixed(1)} per minute (${longTasks} in all)  ${longTasks === 0 ? "PASS" : "FAIL"}`,
  );
  console.log(
    `  message to paint: p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms  ${p95 < 100 ? "PASS" : "FAIL"} (p95 under 100 ms)`,
  );
  console.log(`  frames per second: ${fps.toFixed(1)}`);
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
