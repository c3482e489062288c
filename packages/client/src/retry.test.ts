import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY, reopenDecision, retryDecision, retryPolicy } from "./retry.ts";

const policy = DEFAULT_RETRY;
const low = () => 0;
const high = () => 1; // the top of Math.random's range, which it never quite reaches

describe("retrying a REST call", () => {
  it("waits Retry-After on 429 and 503, with at most 250 ms of jitter, up to maxRetries times", () => {
    expect(retryDecision({ status: 429, retryAfter: 1 }, 0, policy, low)).toEqual({ retry: true, delayMs: 1000 });
    expect(retryDecision({ status: 503, retryAfter: 5 }, 1, policy, high)).toEqual({
      retry: true,
      delayMs: 5250,
    });
    expect(retryDecision({ status: 429, retryAfter: 1 }, 2, policy, low)).toEqual({ retry: false });
    expect(retryDecision({ status: 429, retryAfter: 1 }, 4, retryPolicy({ maxRetries: 5 }), low).retry).toBe(true);
  });

  it("throws at once when the wait is longer than maxDelayMs: quota_exceeded waits until next month", () => {
    expect(retryDecision({ status: 429, retryAfter: 1_200_000 }, 0, policy, low)).toEqual({ retry: false });
    expect(retryDecision({ status: 503, retryAfter: 31 }, 0, policy, low)).toEqual({ retry: false });
    expect(retryDecision({ status: 503, retryAfter: 3 }, 0, retryPolicy({ maxDelayMs: 2_000 }), low)).toEqual({
      retry: false,
    });
  });

  it("backs off from half a second, doubling, when no answer came or none said how long", () => {
    const delays = [0, 1].map((attempt) => retryDecision({ network: true }, attempt, policy, low));
    expect(delays).toEqual([
      { retry: true, delayMs: 500 },
      { retry: true, delayMs: 1000 },
    ]);
    expect(retryDecision({ status: 502 }, 0, policy, high)).toEqual({ retry: true, delayMs: 750 });
    expect(retryDecision({ network: true }, 2, policy, low)).toEqual({ retry: false });
  });

  it("never retries other answers", () => {
    for (const status of [400, 401, 403, 404, 410, 500]) expect(retryDecision({ status }, 0, policy).retry).toBe(false);
  });
});

describe("reopening a stream", () => {
  const fresh = { retryMs: 2000, failures: 0, refusals: 0 };

  it("waits the service's retry after a stream that carried messages, up to half as long again", () => {
    expect(reopenDecision({ type: "closed", received: true }, fresh, policy, low)).toEqual({
      retry: true,
      delayMs: 2000,
    });
    const state = { ...fresh, retryMs: 250, failures: 3 }; // failures before it do not count
    expect(reopenDecision({ type: "closed", received: true }, state, policy, high)).toEqual({
      retry: true,
      delayMs: 375,
    });
  });

  it("doubles the wait for each failure in a row, up to maxDelayMs, and never gives up", () => {
    const delays = [1, 2, 3, 4, 5, 6, 40].map(
      (failures) =>
        (reopenDecision({ type: "network" }, { ...fresh, failures }, policy, low) as { delayMs: number }).delayMs,
    );
    expect(delays).toEqual([4000, 8000, 16000, 30000, 30000, 30000, 30000]);
    expect(reopenDecision({ type: "refused", status: 503 }, { ...fresh, failures: 1 }, policy, high)).toEqual({
      retry: true,
      delayMs: 6000,
    });
    expect(reopenDecision({ type: "closed", received: false }, { ...fresh, failures: 2 }, policy, low)).toEqual({
      retry: true,
      delayMs: 8000,
    });
  });

  it("waits a 429's Retry-After at most maxRetries times in a row, and ends on other refusals", () => {
    const refused = { type: "refused", status: 429, retryAfter: 5 } as const;
    expect(reopenDecision(refused, { ...fresh, refusals: 2 }, policy, low)).toEqual({ retry: true, delayMs: 5000 });
    expect(reopenDecision(refused, { ...fresh, refusals: 3 }, policy, low)).toEqual({ retry: false });
    expect(reopenDecision({ ...refused, retryAfter: 40 }, { ...fresh, refusals: 1 }, policy, low)).toEqual({
      retry: false,
    });
    for (const status of [400, 401, 403, 404]) {
      expect(reopenDecision({ type: "refused", status }, fresh, policy).retry).toBe(false);
    }
  });
});
