import { describe, expect, it } from "vitest";
import { BUCKET_BOUNDS, emptyHistogram, merge, observe, percentile, type MinuteRecord } from "./figures.ts";
import type { Incident } from "./incidents.ts";
import { statusReport } from "./report.ts";

const now = new Date("2026-11-26T12:00:00Z");
const minutesAgo = (n: number) => new Date(now.getTime() - n * 60_000);

function minute(n: number, instance: string, overrides: Partial<MinuteRecord> = {}): MinuteRecord {
  return {
    minute: minutesAgo(n),
    instance,
    ready: true,
    feeds: { soccer: true },
    rest: emptyHistogram(),
    streamLag: emptyHistogram(),
    ...overrides,
  };
}

/** Two instances, every minute of the last two days; then the scripted trouble. */
function history(): MinuteRecord[] {
  const records: MinuteRecord[] = [];
  for (let n = 1; n <= 2 * 1440; n++) records.push(minute(n, "a"), minute(n, "b"));
  return records;
}

const incident = (overrides: Partial<Incident> = {}): Incident => ({
  id: "inc_1",
  title: "Soccer prices late",
  components: ["feed:soccer"],
  state: "investigating",
  startedAt: minutesAgo(30),
  resolvedAt: null,
  updates: [{ at: minutesAgo(30).toISOString(), state: "investigating", text: "Looking into it" }],
  ...overrides,
});

const input = (minutes: MinuteRecord[], extra: Partial<Parameters<typeof statusReport>[0]> = {}) =>
  statusReport({
    now,
    minutes,
    recent: { rest: [], streamLag: [] },
    incidents: [],
    ready: true,
    feeds: new Map([["soccer", true]]),
    databaseReachable: true,
    ...extra,
  });

describe("the status page's figures", () => {
  it("counts a minute bad for every component when readiness failed on one instance", () => {
    const records = history();
    records[10] = minute(6, "a", { ready: false });
    const report = input(records);
    const api = report.components.find((c) => c.id === "api")!;
    // 1 bad minute of 1,440 in the day, of 2,880 in the week and month.
    expect(api.availability).toEqual({ "24h": 99.931, "7d": 99.965, "30d": 99.965 });
    expect(report.components.find((c) => c.id === "feed:soccer")!.availability["24h"]).toBe(99.931);
    expect(report.status).toBe("operational");
  });

  it("counts a sport's stale minute against its feed only, and shows it down while stale now", () => {
    const records = history();
    records[0] = minute(1, "a", { feeds: { soccer: false, tennis: true } });
    const report = input(records, { feeds: new Map([["soccer", false]]) });
    expect(report.components.find((c) => c.id === "api")!.availability["24h"]).toBe(100);
    expect(report.components.find((c) => c.id === "feed:soccer")).toMatchObject({
      state: "down",
      availability: { "24h": 99.931 },
    });
    // Tennis had live events for one minute only: that minute was good.
    expect(report.components.find((c) => c.id === "feed:tennis")!.availability).toEqual({
      "24h": 100,
      "7d": 100,
      "30d": 100,
    });
    expect(report.status).toBe("degraded");
  });

  it("marks what an open incident affects as degraded, lists it, and forgets nothing resolved this week", () => {
    const report = input(history(), {
      incidents: [incident(), incident({ id: "inc_0", state: "resolved", resolvedAt: minutesAgo(600) })],
    });
    expect(report.components.find((c) => c.id === "feed:soccer")!.state).toBe("degraded");
    expect(report.components.find((c) => c.id === "api")!.state).toBe("operational");
    expect(report.incidents.map((i) => [i.id, i.state])).toEqual([
      ["inc_1", "investigating"],
      ["inc_0", "resolved"],
    ]);
    expect(report.status).toBe("degraded");
  });

  it("is down when this instance is not ready, and says so when the database is away", () => {
    const report = input([], { ready: false, databaseReachable: false });
    expect(report.status).toBe("down");
    expect(report.database_reachable).toBe(false);
    expect(report.components.every((c) => c.state === "down" && c.availability["24h"] === null)).toBe(true);
  });

  it("says since when it observed, and names a sport's feed as people read it", () => {
    // Fifteen minutes after the first start.
    const records = Array.from({ length: 15 }, (_, i) => minute(i + 1, "a", { feeds: { baseball: true } }));
    const report = input(records, {
      feeds: new Map([
        ["baseball", true],
        ["ice-hockey", true],
      ]),
    });
    expect(report.observed_since).toBe(minutesAgo(15).toISOString());
    expect(report.components.find((c) => c.id === "feed:baseball")!.name).toBe("Feed: Baseball");
    expect(report.components.find((c) => c.id === "feed:ice-hockey")!.name).toBe("Feed: Ice hockey");
    expect(input([]).observed_since).toBeNull();
  });

  it("reads latencies from the minutes' buckets of every instance together", () => {
    const a = emptyHistogram();
    const b = emptyHistogram();
    for (let i = 0; i < 90; i++) observe(a, 2);
    for (let i = 0; i < 10; i++) observe(b, 400);
    const lag = emptyHistogram();
    observe(lag, 30);
    const report = input([], { recent: { rest: [a, b], streamLag: [lag] } });
    const bound = (ms: number) => BUCKET_BOUNDS.find((b) => b >= ms)!;
    expect(report.latency).toEqual({
      window_minutes: 60,
      rest_p50_ms: bound(2),
      rest_p95_ms: bound(400),
      stream_lag_p95_ms: bound(30),
    });
    // A bound is at most 12 % above what it counts.
    expect(bound(400) / 400).toBeLessThan(1.12);
    expect(percentile(merge([]), 50)).toBeNull();
  });
});
