import { describe, expect, it } from "vitest";
import {
  asOfParam,
  chartFrom,
  clockTime,
  EDGE_SECONDS,
  historyFrom,
  historySpan,
  momentOf,
  rangeValue,
  timelineWindow,
} from "./past-moment.ts";

const now = Date.parse("2026-11-25T15:00:00.400Z");
const seconds = (iso: string) => Date.parse(iso) / 1_000;
const HISTORY = 900;

describe("timelineWindow", () => {
  it("begins at kickoff when the history kept reaches back further", () => {
    const window = timelineWindow({
      kickoff: "2026-11-25T14:50:00.000Z",
      now,
      historySeconds: 86_400,
      delaySeconds: 0,
      earliest: null,
    });
    expect(window).toEqual({
      start: seconds("2026-11-25T14:50:00Z"),
      end: seconds("2026-11-25T15:00:00Z"),
      limited: false,
    });
  });

  it("begins where the history kept does, a little inside it, and says the history is what limits it", () => {
    const window = timelineWindow({
      kickoff: "2026-11-25T14:00:00.000Z",
      now,
      historySeconds: HISTORY,
      delaySeconds: 0,
      earliest: null,
    });
    expect(window.start).toBe(seconds("2026-11-25T14:45:01Z") + EDGE_SECONDS);
    expect(window.limited).toBe(true);
  });

  it("begins no earlier than the event's first state the history has, rounded up to a whole second", () => {
    const window = timelineWindow({
      kickoff: "2026-11-25T14:00:00.000Z",
      now,
      historySeconds: HISTORY,
      delaySeconds: 0,
      earliest: Date.parse("2026-11-25T14:58:12.250Z"),
    });
    expect(window.start).toBe(seconds("2026-11-25T14:58:13Z"));
    expect(window.limited).toBe(false);
  });

  it("ends its delay behind now for a sandbox view", () => {
    const window = timelineWindow({
      kickoff: "2026-11-25T14:50:00.000Z",
      now,
      historySeconds: HISTORY,
      delaySeconds: 60,
      earliest: null,
    });
    expect(window.end).toBe(seconds("2026-11-25T14:59:00Z"));
  });

  it("before kickoff covers the history kept before it, and never begins after its end", () => {
    const upcoming = timelineWindow({
      kickoff: "2026-11-25T16:00:00.000Z",
      now,
      historySeconds: HISTORY,
      delaySeconds: 0,
      earliest: null,
    });
    expect(upcoming.end - upcoming.start).toBe(HISTORY - EDGE_SECONDS - 1);
    const fresh = timelineWindow({
      kickoff: "2026-11-25T14:00:00.000Z",
      now,
      historySeconds: HISTORY,
      delaySeconds: 0,
      earliest: now,
    });
    expect(fresh.start).toBe(fresh.end);
  });
});

describe("chartFrom", () => {
  const windowFrom = (earliest: number | null) =>
    timelineWindow({ kickoff: "2026-11-25T14:00:00.000Z", now, historySeconds: HISTORY, delaySeconds: 0, earliest });

  it("begins on a ten-second tick before the event's first state, in the second before a tick too", () => {
    for (const first of ["2026-11-25T14:58:19.700Z", "2026-11-25T14:58:13.250Z", "2026-11-25T14:58:20.000Z"]) {
      const earliest = Date.parse(first);
      const from = chartFrom(windowFrom(earliest), earliest);
      expect(from % 10).toBe(0);
      expect(from * 1_000).toBeLessThanOrEqual(earliest);
      expect(earliest - from * 1_000).toBeLessThan(10_000);
    }
  });

  it("begins on the tick before the window's start when the history kept or kickoff limits it", () => {
    expect(chartFrom(windowFrom(null), null)).toBe(seconds("2026-11-25T14:45:10Z"));
    const long = Date.parse("2026-11-25T13:00:00.500Z");
    expect(chartFrom(windowFrom(long), long)).toBe(seconds("2026-11-25T14:45:10Z"));
  });
});

describe("historyFrom", () => {
  it("asks for the history from kickoff, or from just inside the history kept", () => {
    expect(historyFrom("2026-11-25T14:50:00.000Z", now, HISTORY)).toBe(Date.parse("2026-11-25T14:50:00.000Z"));
    expect(historyFrom("2026-11-25T14:00:00.000Z", now, HISTORY)).toBe(now - (HISTORY - EDGE_SECONDS) * 1_000);
    expect(historyFrom("2026-11-25T16:00:00.000Z", now, HISTORY)).toBe(now - (HISTORY - EDGE_SECONDS) * 1_000);
  });
});

describe("the moment chosen and as_of", () => {
  const window = { start: 1_000, end: 1_900, limited: false };

  it("is live at the end of the range and the past anywhere before it", () => {
    expect(momentOf(1_900, window)).toBeNull();
    expect(momentOf(1_899, window)).toBe(1_899);
    expect(momentOf(1_000, window)).toBe(1_000);
    expect(momentOf(400, window)).toBe(1_000);
    expect(momentOf(Number.NaN, window)).toBeNull();
  });

  it("puts a moment back on the range, and live at its end", () => {
    expect(rangeValue(null, window)).toBe(1_900);
    expect(rangeValue(1_234, window)).toBe(1_234);
    // The window moved on while the viewer looked at the past: the moment stays in it.
    expect(rangeValue(900, window)).toBe(1_000);
    for (const value of [1_000, 1_500, 1_899]) expect(rangeValue(momentOf(value, window), window)).toBe(value);
  });

  it("is sent as an ISO 8601 UTC time to the second", () => {
    expect(asOfParam(seconds("2026-11-25T14:58:13Z"))).toBe("2026-11-25T14:58:13.000Z");
  });

  it("is shown as HH:MM:SS on the viewer's clock", () => {
    const moment = seconds("2026-11-25T14:58:03Z");
    const local = new Date(moment * 1_000);
    expect(clockTime(moment)).toMatch(/^\d\d:\d\d:03$/);
    expect(clockTime(moment).slice(0, 2)).toBe(String(local.getHours()).padStart(2, "0"));
  });
});

describe("historySpan", () => {
  it("says how far back the history reaches", () => {
    expect(historySpan(900)).toBe("15 minutes");
    expect(historySpan(60)).toBe("1 minute");
    expect(historySpan(86_400)).toBe("1 day");
    expect(historySpan(7 * 86_400)).toBe("7 days");
    expect(historySpan(7_200)).toBe("2 hours");
  });
});
