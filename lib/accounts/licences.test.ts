import { describe, expect, it } from "vitest";
import { changedSinceShown, inactiveLicenceDetail, keyLicenceRefusal, licenceStatus } from "./licences.ts";
import type { LicenceState } from "../db/schema/index.ts";

const licence: LicenceState = {
  reference: "MGA/B2B/123",
  verification: "verified",
  validFrom: "2026-01-01",
  validUntil: "2026-12-31",
  reviewedAt: new Date("2026-01-05T10:00:00Z"),
  updatedAt: new Date("2026-01-02T09:00:00Z"),
};

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

  it.each(["pending", "rejected", "revoked"] as const)("counts for nothing while %s, whatever its dates", (state) => {
    expect(licenceStatus({ ...licence, verification: state }, new Date("2026-06-01T00:00:00Z"))).toBe(state);
  });
});

describe("why a production key is refused", () => {
  const midYear = new Date("2026-06-01T12:00:00Z");

  it("names the licence and the date", () => {
    expect(inactiveLicenceDetail(licence, new Date("2027-01-01T00:00:00Z"))).toMatch(
      /^The organisation's licence MGA\/B2B\/123 lapsed after 2026-12-31: production keys are served only while/,
    );
    expect(
      inactiveLicenceDetail(
        { ...licence, verification: "revoked", reviewedAt: new Date("2026-05-20T08:00:00Z") },
        midYear,
      ),
    ).toContain("MGA/B2B/123 was revoked on 2026-05-20");
    expect(inactiveLicenceDetail({ ...licence, verification: "pending", reviewedAt: null }, midYear)).toContain(
      "MGA/B2B/123 awaits an operator's verification (recorded 2026-01-02)",
    );
    expect(inactiveLicenceDetail(null, midYear)).toMatch(/has no licence record/);
    expect(inactiveLicenceDetail(licence, midYear)).toBeNull();
  });

  it("applies to production keys only", () => {
    const revoked = { ...licence, verification: "revoked" as const };
    expect(keyLicenceRefusal({ environment: "production", licence: revoked }, midYear)).toContain("revoked");
    expect(keyLicenceRefusal({ environment: "production", licence: null }, midYear)).toMatch(/no licence record/);
    expect(keyLicenceRefusal({ environment: "sandbox", licence: revoked }, midYear)).toBeNull();
    // A console member's session is shaped like a key but carries no licence: its entitlement is decided elsewhere.
    expect(keyLicenceRefusal({ environment: "production" }, midYear)).toBeNull();
  });
});

describe("a decision on the record shown", () => {
  const current = { reference: "MADE/UP/9", version: 3 };

  it("is taken when the version or the reference shown is the record's", () => {
    expect(changedSinceShown(current, { version: 3 })).toBeNull();
    expect(changedSinceShown(current, { reference: "MADE/UP/9" })).toBeNull();
    expect(changedSinceShown(current, { version: 3, reference: "MADE/UP/9" })).toBeNull();
    expect(changedSinceShown(current, {})).toBeNull();
  });

  it("is refused, naming the record now, when either differs", () => {
    expect(changedSinceShown(current, { version: 2 })).toBe(
      "The record changed: look again. The licence is now MADE/UP/9 (version 3), not the version 2 that was shown.",
    );
    expect(changedSinceShown(current, { reference: "MGA/REAL/1" })).toMatch(/not the MGA\/REAL\/1 that was shown/);
    expect(changedSinceShown(current, { version: 3, reference: "MGA/REAL/1" })).not.toBeNull();
  });
});
