import { afterEach, describe, expect, it, vi } from "vitest";
import { Poller } from "./poller.ts";

// A look the test ends by hand, so what runs while it is under way can be seen.
function handLooks() {
  const ends: (() => void)[] = [];
  let looks = 0;
  const look = () => {
    looks++;
    return new Promise<void>((resolve) => ends.push(resolve));
  };
  const endLook = async () => {
    ends.shift()!();
    // The poller's own turns after the look: its loop's check and the next look's start.
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { look, endLook, looks: () => looks };
}

describe("the poller", () => {
  afterEach(() => void vi.useRealTimers());

  it("looks once at a time, once more after the look under way when woken meanwhile, and settles after that one", async () => {
    const { look, endLook, looks } = handLooks();
    const poller = new Poller(look, () => 60_000);
    poller.wake();
    expect(looks()).toBe(1);
    poller.wake();
    poller.wake();
    expect(looks()).toBe(1);
    let settled = false;
    void poller.settled().then(() => (settled = true));
    await endLook();
    // The two wakes made one more look, and the first settles only after it.
    expect(looks()).toBe(2);
    expect(settled).toBe(false);
    await endLook();
    expect(settled).toBe(true);
    expect(looks()).toBe(2);
    await poller.stop();
  });

  it("looks again after its idle time when nothing wakes it", async () => {
    vi.useFakeTimers();
    const { look, endLook, looks } = handLooks();
    const poller = new Poller(look, () => 1_000);
    poller.wake();
    await endLook();
    await vi.advanceTimersByTimeAsync(999);
    expect(looks()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(looks()).toBe(2);
    await endLook();
    await poller.stop();
  });

  it("looks by the time `lookIn` asked, before its idle time, and once only for it", async () => {
    vi.useFakeTimers();
    const { look, endLook, looks } = handLooks();
    // The `n`th look comes `ms` from now, and not a millisecond sooner.
    const nthLookIn = async (n: number, ms: number) => {
      await vi.advanceTimersByTimeAsync(ms - 1);
      expect(looks()).toBe(n - 1);
      await vi.advanceTimersByTimeAsync(1);
      expect(looks()).toBe(n);
      await endLook();
    };
    const poller = new Poller(look, () => 10_000);
    poller.wake();
    // Asked while the first look is under way (a retry it scheduled): armed when that look ends.
    poller.lookIn(300);
    poller.lookIn(2_000);
    await endLook();
    await nthLookIn(2, 300);
    // The second time asked for is still ahead; after it, only the idle time.
    await nthLookIn(3, 1_700);
    await nthLookIn(4, 10_000);
    // Asked between looks: the timer is moved forward; a wake before the time does not cover it.
    poller.lookIn(500);
    await nthLookIn(5, 500);
    poller.lookIn(500);
    poller.wake();
    expect(looks()).toBe(6);
    await endLook();
    await nthLookIn(7, 500);
    await poller.stop();
  });

  it("stops once the look under way has ended, and looks no more", async () => {
    vi.useFakeTimers();
    const { look, endLook, looks } = handLooks();
    const poller = new Poller(look, () => 1_000);
    poller.wake();
    poller.wake(); // a repeat asked for: the stop drops it
    let stopped = false;
    void poller.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    await endLook();
    expect(stopped).toBe(true);
    poller.wake();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(looks()).toBe(1);
  });
});
