import { describe, expect, it } from "vitest";
import { judgeSoak, soakWindows, type SoakSample } from "./soak-judge.ts";

// The soak's verdict against scripted hours: flat, a leak, rising handles, a rising p99.

const MB = 2 ** 20;

function hour(shape: (minute: number) => Partial<SoakSample>): SoakSample[] {
  return Array.from({ length: 60 }, (_, i) => i + 1).flatMap((minute) =>
    ["instance 1", "instance 2"].map((instance) => ({
      minute,
      instance,
      rssBytes: 200 * MB + ((minute * 7) % 5) * MB,
      heapBytes: 60 * MB + ((minute * 3) % 7) * MB,
      heapCommittedBytes: 80 * MB,
      externalBytes: 20 * MB,
      lagP99Ms: 12,
      handles: 1_010,
      resident: null,
      ...(instance === "instance 2" ? shape(minute) : {}),
    })),
  );
}

const steady = Array.from({ length: 60 * 40 }, (_, i) => ({ minute: i / 40, ms: 4 + (i % 10) }));

describe("the soak's verdict", () => {
  it("passes an hour that holds flat after warming up", () => {
    const warmUp = hour((minute) => (minute < 8 ? { heapBytes: (30 + minute * 4) * MB } : {}));
    expect(judgeSoak(60, warmUp, steady)).toEqual({ judged: true, findings: [] });
  });

  it("finds a heap that grows a little every minute on one instance, naming it", () => {
    const leak = hour((minute) => ({ heapBytes: (60 + minute * 0.5) * MB }));
    const { findings } = judgeSoak(60, leak, steady);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      check: "instance 2",
      problem: expect.stringMatching(/^heap's floor grew 30\.5 % from the baseline to the end$/),
    });
  });

  it("judges the heap by its floor: samples caught higher in the collector's sawtooth are not a leak", () => {
    // Between collections the heap climbs from 80 to 180 MB; the end's samples happen to fall higher.
    const sawtooth = (minute: number) => (80 + (minute > 50 ? [0, 100, 90] : [0, 60, 30])[minute % 3]!) * MB;
    const { findings } = judgeSoak(
      60,
      hour((minute) => ({ heapBytes: sawtooth(minute) })),
      steady,
    );
    expect(findings).toEqual([]);
    const mean = (from: number, to: number) => {
      const values = Array.from({ length: to - from }, (_, i) => sawtooth(from + i + 1));
      return values.reduce((a, b) => a + b, 0) / values.length;
    };
    expect(mean(50, 60) / mean(10, 20)).toBeGreaterThan(1.1);
  });

  it("finds handles that pile up (streams never closed)", () => {
    const piling = hour((minute) => ({ handles: 1_000 + minute * 20 }));
    expect(judgeSoak(60, piling, steady).findings.map((f) => f.problem)).toEqual([
      expect.stringMatching(/^open handles grew/),
    ]);
  });

  it("finds a p99 that rises toward the end, and lets a millisecond's wobble be", () => {
    const rising = steady.map((l) => (l.minute > 50 && l.ms === 13 ? { ...l, ms: 40 } : l));
    expect(
      judgeSoak(
        60,
        hour(() => ({})),
        rising,
      ).findings,
    ).toEqual([{ check: "API clients", problem: "p99 rose from 13 ms to 40 ms" }]);
    const wobble = steady.map((l) => (l.minute > 50 && l.ms === 13 ? { ...l, ms: 15 } : l));
    expect(
      judgeSoak(
        60,
        hour(() => ({})),
        wobble,
      ).findings,
    ).toEqual([]);
  });

  it("does not judge a short run, and scales its windows with the run", () => {
    const leak = hour((minute) => ({ heapBytes: (60 + minute * 5) * MB }));
    expect(judgeSoak(20, leak, steady)).toEqual({ judged: false, findings: [] });
    expect(soakWindows(60)).toEqual({ baseline: [10, 20], end: [50, 60] });
    expect(soakWindows(30)).toEqual({ baseline: [5, 10], end: [25, 30] });
  });
});
