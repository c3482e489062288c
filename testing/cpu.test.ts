import { describe, expect, it } from "vitest";
import { threadCpuSeconds, threadCpuSince, threadsPerRequest } from "./cpu.ts";

describe("a process's CPU by thread", () => {
  it("reads this process's threads from /proc, the main thread as main", () => {
    const started = Date.now();
    while (Date.now() - started < 50); // 50 ms of the main thread's CPU, 5 clock ticks
    const threads = threadCpuSeconds(process.pid)!;
    expect(threads.main!.user + threads.main!.kernel).toBeGreaterThan(0);
    expect(Object.keys(threads).length).toBeGreaterThan(1); // V8's and libuv's threads besides
  });

  it("is null for a process that is not there", () => {
    expect(threadCpuSeconds(2 ** 30)).toBeNull();
  });

  it("gives what each thread name used between two readings, per request, busiest first", () => {
    const before = { main: { user: 1, kernel: 0.5 }, V8Worker: { user: 0.2, kernel: 0 } };
    const after = {
      main: { user: 1.3, kernel: 0.6 },
      V8Worker: { user: 0.5, kernel: 0.01 },
      "libuv-worker": { user: 0, kernel: 0 },
    };
    const used = threadCpuSince(before, after);
    expect(used.main!.user).toBeCloseTo(0.3);
    expect(used.V8Worker!.kernel).toBeCloseTo(0.01);
    // 10,000 requests: main 40 µs a request, V8Worker 31; an idle thread is left out.
    expect(threadsPerRequest(used, 10_000)).toBe("main 40.0 (30.0 + 10.0), V8Worker 31.0 (30.0 + 1.0)");
    expect(threadsPerRequest(null, 10_000)).toBe("n/a");
  });
});
