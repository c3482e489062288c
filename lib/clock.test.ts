import { describe, expect, it } from "vitest";
import { keepPlatformClock, now, setClockOffset, utcDay, wallClockMs } from "./clock.ts";

describe("utcDay", () => {
  it("is the UTC date of toISOString, at each day's edges and across years", () => {
    const edges = [
      "2026-01-01T00:00:00.000Z",
      "2026-12-31T23:59:59.999Z",
      "2028-02-29T12:00:00Z",
      "1999-09-09T09:09:09Z",
    ];
    for (const at of edges) expect(utcDay(new Date(at))).toBe(at.slice(0, 10));
    // Every day from 1970 to 2100, at a moment that moves through the day.
    for (let day = 0; day < 47_847; day++) {
      const date = new Date(day * 86_400_000 + ((day * 7_919_000) % 86_400_000));
      expect(utcDay(date)).toBe(date.toISOString().slice(0, 10));
    }
  });

  it("is the UTC day, not the machine's local one", () => {
    // 23:30 UTC is the next day east of Greenwich and the same day west of it.
    expect(utcDay(new Date("2026-11-27T23:30:00Z"))).toBe("2026-11-27");
    expect(utcDay(new Date("2026-11-28T00:30:00+02:00"))).toBe("2026-11-27");
  });
});

describe("now and wallClockMs", () => {
  /** Replaces the global Date with one that counts its reads, as Next's and fake timers' do; undone after `work`. */
  function withCountedDate(work: (reads: () => number) => void): void {
    const platform = globalThis.Date;
    let reads = 0;
    const counted = function (...args: []) {
      reads++;
      return new platform(...args);
    } as unknown as DateConstructor;
    counted.now = () => {
      reads++;
      return platform.now();
    };
    globalThis.Date = counted;
    try {
      work(() => reads);
    } finally {
      globalThis.Date = platform;
    }
  }

  it("read the Date kept before the global one was replaced, as server.ts keeps it before loading Next", () => {
    keepPlatformClock(Date);
    try {
      withCountedDate((reads) => {
        const before = wallClockMs();
        const date = now();
        expect(reads()).toBe(0);
        expect(date.getTime()).toBeGreaterThanOrEqual(before);
        expect(date.getTime()).toBeLessThan(before + 1_000);
      });
    } finally {
      keepPlatformClock(null);
    }
  });

  it("read the global Date at each call when none is kept, so fake timers move them", () => {
    withCountedDate((reads) => {
      wallClockMs();
      expect(reads()).toBe(1);
      now();
      expect(reads()).toBeGreaterThan(1);
    });
  });

  it("moves now with the tests' offset, and never the wall clock", () => {
    setClockOffset(86_400_000);
    try {
      const wall = wallClockMs();
      expect(now().getTime() - wall).toBeGreaterThanOrEqual(86_400_000);
      expect(Math.abs(wall - Date.now())).toBeLessThan(1_000);
    } finally {
      setClockOffset(0);
    }
  });
});
