import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fade, fadeStep } from "./flash-fade";

// A cell as the fade sees it: its data attributes, and whether it is still in the page.
const cell = () => ({ dataset: {} as DOMStringMap, isConnected: true }) as unknown as HTMLElement;

describe("a price flash's fade", () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it("steps from the full colour to none in four steps of 275 ms", () => {
    expect([0, 274, 275, 550, 825, 1_100, 5_000].map((ms) => fadeStep(0, ms))).toEqual([0, 0, 1, 2, 3, 4, 4]);
  });

  it("moves every flashing cell on with one timer, which stops when none is left", () => {
    const first = cell();
    const second = cell();
    fade(first, Date.now());
    vi.advanceTimersByTime(300);
    fade(second, Date.now());
    expect([first.dataset.step, second.dataset.step]).toEqual(["1", "0"]);
    expect(vi.getTimerCount()).toBe(1);
    // The steps move on at the shared timer's ticks (every 275 ms from the first flash): the second
    // cell, 800 ms into its fade at the fourth tick, is drawn at step 2.
    vi.advanceTimersByTime(825);
    expect([first.dataset.step, second.dataset.step]).toEqual(["4", "2"]);
    vi.advanceTimersByTime(550);
    expect(second.dataset.step).toBe("4");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("draws a flash that began long ago as gone, and forgets a cell that left the page", () => {
    const old = cell();
    fade(old, Date.now() - 2_000);
    expect(old.dataset.step).toBe("4");
    expect(vi.getTimerCount()).toBe(0);
    const removed = cell();
    fade(removed, Date.now());
    (removed as unknown as { isConnected: boolean }).isConnected = false;
    vi.advanceTimersByTime(275);
    expect(vi.getTimerCount()).toBe(0);
  });
});
