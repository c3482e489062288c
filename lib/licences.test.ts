import { describe, expect, it } from "vitest";
import { licenceStatus, type Licence } from "./licences.ts";

const licence = { validFrom: "2026-01-01", validUntil: "2026-12-31" } as Licence;

describe("licence validity", () => {
  it.each([
    ["2025-12-31T23:59:59Z", "not_yet_valid"],
    ["2026-01-01T00:00:00Z", "valid"],
    ["2026-12-31T23:59:59Z", "valid"],
    ["2027-01-01T00:00:00Z", "lapsed"],
  ])("at %s is %s", (at, status) => {
    expect(licenceStatus(licence, new Date(at))).toBe(status);
  });

  it("is missing when there is no record", () => {
    expect(licenceStatus(undefined, new Date())).toBe("missing");
  });
});
