// Loaded into a server with `--import` by bench/event-loop.ts. Two figures of how long the event
// loop is held: its delay (perf_hooks.monitorEventLoopDelay, wall time, sampled each millisecond),
// and the main thread's CPU time between two turns of a 1-ms timer. The second is what the thread
// itself spent in one stretch, so a machine busy with other work, which delays every turn, does
// not inflate it. SIGUSR2 writes both since the last SIGUSR2 to EVENT_LOOP_PROBE_FILE and starts
// again, so the bench can leave the warm-up out.
import { renameSync, writeFileSync } from "node:fs";
import { createHistogram, monitorEventLoopDelay, type RecordableHistogram } from "node:perf_hooks";

const file = process.env.EVENT_LOOP_PROBE_FILE;
if (file) {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const held = createHistogram();
  const cpu = () => {
    const { user, system } = process.threadCpuUsage();
    return user + system;
  };
  let last = cpu();
  const turn = () => {
    const now = cpu();
    held.record(Math.max(1, now - last));
    last = now;
    setTimeout(turn, 1).unref();
  };
  setTimeout(turn, 1).unref();

  const figures = (histogram: RecordableHistogram | typeof delay, toMs: number) => ({
    p50: histogram.percentile(50) / toMs,
    p99: histogram.percentile(99) / toMs,
    p999: histogram.percentile(99.9) / toMs,
    max: histogram.max / toMs,
  });
  process.on("SIGUSR2", () => {
    // The delay is in nanoseconds, the CPU time in microseconds; both are written in milliseconds.
    // Written whole under another name and renamed, so the bench never reads half a file.
    writeFileSync(`${file}.part`, JSON.stringify({ delay: figures(delay, 1e6), held: figures(held, 1e3) }));
    renameSync(`${file}.part`, file);
    delay.reset();
    held.reset();
  });
}
