import { describe, expect, it } from "vitest";
import { decideAdmission, nearLimit, type AdmissionCounts } from "./admission.ts";

const time = Date.parse("2026-11-30T23:59:58.250Z");
const monthEnd = Date.parse("2026-12-01T00:00:00.000Z");
const limits = { monthlyQuota: 100, requestsPerSecond: 10, time, monthEnd };

describe("the admission of a request", () => {
  const cases: [string, Pick<AdmissionCounts, "used" | "inSecond">, ReturnType<typeof decideAdmission>][] = [
    ["nothing used", { used: 0, inSecond: 0 }, { admit: true }],
    ["the last of the month and of the second", { used: 99, inSecond: 9 }, { admit: true }],
    [
      "the quota used",
      { used: 100, inSecond: 0 },
      { admit: false, code: "quota_exceeded", violated: "month", retryAfter: 2 },
    ],
    [
      "more than the quota counted (heard from another instance)",
      { used: 150, inSecond: 0 },
      { admit: false, code: "quota_exceeded", violated: "month", retryAfter: 2 },
    ],
    [
      "the second's rate used",
      { used: 10, inSecond: 10 },
      { admit: false, code: "rate_limited", violated: "second", retryAfter: 1 },
    ],
    [
      "both used: the month is named",
      { used: 100, inSecond: 10 },
      { admit: false, code: "quota_exceeded", violated: "month", retryAfter: 2 },
    ],
  ];
  it.each(cases)("with %s", (_, counts, decision) => {
    expect(decideAdmission({ ...limits, ...counts })).toEqual(decision);
  });

  it("refused for the month, retries when the next month starts", () => {
    const early = Date.parse("2026-11-01T00:00:00.000Z");
    expect(decideAdmission({ ...limits, used: 100, inSecond: 0, time: early })).toMatchObject({
      retryAfter: 30 * 86_400,
    });
  });
});

describe("an admission near a limit", () => {
  const cases: [string, { used: number; inSecond: number }, boolean][] = [
    ["far from both", { used: 0, inSecond: 0 }, false],
    ["leaving more than a second's rate of the quota", { used: 88, inSecond: 0 }, false],
    ["leaving a second's rate of the quota", { used: 89, inSecond: 0 }, true],
    ["taking the second's last", { used: 0, inSecond: 9 }, true],
    ["one before the second's last", { used: 0, inSecond: 8 }, false],
  ];
  it.each(cases)("%s", (_, counts, near) => {
    expect(nearLimit({ monthlyQuota: 100, requestsPerSecond: 10, ...counts })).toBe(near);
  });
});
