import { describe, expect, it } from "vitest";
import { feedFreshness, inBreak } from "./feed-cadence.ts";

const now = Date.parse("2026-11-28T17:44:00Z");
const ago = (seconds: number) => now - seconds * 1_000;

describe("a feed's freshness, judged by its sport's own pace", () => {
  it("does not call baseball stale between plate appearances, as a minute's silence would", () => {
    const events = [{ sport: "baseball", status: "live", period: "Top 7th" }];
    expect(feedFreshness(events, new Map([["baseball", ago(130)]]), now)).toEqual(new Map([["baseball", true]]));
    expect(feedFreshness(events, new Map([["baseball", ago(240)]]), now)).toEqual(new Map([["baseball", false]]));
  });

  it("still calls a clock sport stale after a minute without a change", () => {
    const events = [{ sport: "soccer", status: "live", period: "2nd half" }];
    expect(feedFreshness(events, new Map([["soccer", ago(30)]]), now).get("soccer")).toBe(true);
    expect(feedFreshness(events, new Map([["soccer", ago(75)]]), now).get("soccer")).toBe(false);
  });

  it("does not judge a sport whose live events are all in a break, nor one with none live", () => {
    const events = [
      { sport: "soccer", status: "live", period: "Half time" },
      { sport: "basketball", status: "live", period: "Halftime" },
      { sport: "baseball", status: "live", period: "Middle 5th" },
      { sport: "tennis", status: "upcoming", period: "" },
    ];
    expect(feedFreshness(events, new Map(), now)).toEqual(new Map());
    // One in play is enough to judge the sport.
    const judged = feedFreshness([...events, { sport: "soccer", status: "live", period: "1st half" }], new Map(), now);
    expect(judged).toEqual(new Map([["soccer", false]]));
  });

  it("knows the breaks by their names", () => {
    for (const period of [
      "Half time",
      "Halftime",
      "Intermission 2",
      "End of Q3",
      "End of regulation",
      "End 6th",
      "Middle 2nd",
    ]) {
      expect(inBreak(period), period).toBe(true);
    }
    for (const period of ["2nd half", "Q3", "P2", "Top 7th", "Bottom 9th", "Set 2", "Map 2", "OT", "Final"]) {
      expect(inBreak(period), period).toBe(false);
    }
  });
});
