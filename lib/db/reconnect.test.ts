import { describe, expect, it } from "vitest";
import { reconnectDelaySeconds } from "./index.ts";

describe("reconnectDelaySeconds", () => {
  it("starts within 50 ms, doubles, and never waits more than a second however long PostgreSQL was away", () => {
    expect(reconnectDelaySeconds(0)).toBeLessThanOrEqual(0.05);
    expect(reconnectDelaySeconds(0)).toBeGreaterThan(0.03);
    for (let retries = 0; retries < 60; retries++) {
      const delay = reconnectDelaySeconds(retries);
      expect(delay).toBeGreaterThan(0);
      expect(delay).toBeLessThanOrEqual(1);
    }
    expect(reconnectDelaySeconds(10)).toBeGreaterThanOrEqual(0.75);
  });
});
