import { secondsUntil, type Policy } from "./policies.ts";

/** A count this month against its quota: a key's (or member's), or its organisation's. */
export type CountOf = { used: number; quota: number };

/** The key's own count and, for one that shares its organisation's limits, the organisation's. */
export type Counts = { key: CountOf; organisation: CountOf | null };

export type Admission =
  | {
      admitted: true;
      /** The count nearer its quota of the two (the key's, or the organisation's), this request included. */
      used: number;
      quota: number;
      counts: Counts;
      headers: Record<string, string>;
      /**
       * Settles once the request's count is journaled: answer it only then. Rejects when the
       * journal could not be written; the request is then not counted, and must not be answered
       * as served. Absent when the count needs no write.
       */
      journaled?: Promise<void>;
    }
  | {
      admitted: false;
      code: "rate_limited" | "quota_exceeded";
      violated: Policy;
      retryAfter: number;
      used: number;
      quota: number;
      counts: Counts;
      /** Whose limit refused it: the key's (or member's) own, or the organisation's shared one. */
      over: "key" | "organisation";
      headers: Record<string, string>;
    };

/** What a key has used and may use, as this instance knows it when a request arrives. */
export type AdmissionCounts = {
  /** Requests counted this month, by every instance this one has heard of. */
  used: number;
  /** The key's admissions in the current UTC second, here and as heard from the others. */
  inSecond: number;
  monthlyQuota: number;
  requestsPerSecond: number;
  /** When the request arrived and when its month ends (epoch ms). */
  time: number;
  monthEnd: number;
};

export type AdmissionDecision =
  { admit: true } | { admit: false; code: "rate_limited" | "quota_exceeded"; violated: Policy; retryAfter: number };

// One object for every admission: the decision is made per request, and an admission says nothing else.
const ADMIT: AdmissionDecision = { admit: true };

/**
 * Admits a request or names the limit it is over: the month's quota first (its `Retry-After` is the
 * month's end), then the second's rate (one second).
 */
export function decideAdmission(counts: AdmissionCounts): AdmissionDecision {
  if (counts.used >= counts.monthlyQuota) {
    return {
      admit: false,
      code: "quota_exceeded",
      violated: "month",
      retryAfter: secondsUntil(counts.time, counts.monthEnd),
    };
  }
  if (counts.inSecond >= counts.requestsPerSecond) {
    return { admit: false, code: "rate_limited", violated: "second", retryAfter: 1 };
  }
  return ADMIT;
}

/**
 * Whether an admission, counted in `used` and `inSecond` as they were before it, leaves the key
 * within one second's rate of its quota, or at its rate: the other instances must then hear of it
 * at once, since what they have not heard is what they can admit beyond the limit.
 */
export function nearLimit(counts: Omit<AdmissionCounts, "time" | "monthEnd">): boolean {
  return (
    counts.monthlyQuota - counts.used - 1 <= counts.requestsPerSecond || counts.inSecond + 1 >= counts.requestsPerSecond
  );
}
