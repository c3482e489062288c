import { describe, expect, it } from "vitest";
import { readTheme, readTimeMode, readZone, shownMoment, zoneName } from "./time-display.ts";

const at = "2026-11-28T17:29:05Z";

describe("a moment as every page shows it", () => {
  it("is the viewer's local time with its zone named, and UTC in its tooltip", () => {
    expect(shownMoment(at, { mode: "local", zone: "Europe/Berlin" }, "datetime")).toEqual({
      text: "28 Nov 2026, 18:29 CET",
      title: "28 Nov 2026, 17:29 UTC",
    });
    expect(shownMoment(at, { mode: "local", zone: "Europe/Berlin" }, "clock")).toEqual({
      text: "18:29:05 CET",
      title: "17:29:05 UTC",
    });
  });

  it("is UTC when the viewer chose it, with their local time in the tooltip", () => {
    expect(shownMoment(at, { mode: "utc", zone: "America/New_York" }, "datetime")).toEqual({
      text: "28 Nov 2026, 17:29 UTC",
      title: "28 Nov 2026, 12:29 GMT-5",
    });
  });

  it("gives a day alone without a zone, and the whole moment in its tooltip", () => {
    expect(shownMoment("2026-11-28T23:30:00Z", { mode: "local", zone: "Europe/Berlin" }, "day")).toEqual({
      text: "29 Nov 2026",
      title: "29 Nov 2026, 00:30 CET",
    });
  });

  it("names zones as people know them, and reads settings defensively", () => {
    expect(zoneName("Europe/London", Date.parse("2026-07-01T12:00:00Z"))).toBe("BST");
    expect(zoneName("UTC")).toBe("UTC");
    expect(readZone("Not/AZone")).toBe("UTC");
    expect(readZone("Europe/Paris")).toBe("Europe/Paris");
    expect(readTheme("dark")).toBe("dark");
    expect(readTheme("neon")).toBe("system");
    expect(readTimeMode("utc")).toBe("utc");
    expect(readTimeMode(undefined)).toBe("local");
  });
});
