import type { ApiKeyRecord } from "../lib/keys/lookup.ts";

/** An active production key for unit tests, with limits no test reaches unless it says so. */
export const activeKey = (overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  id: "key-1",
  orgId: "org-1",
  environment: "production",
  planCode: "pro",
  sports: ["soccer"],
  monthlyQuota: 1_000,
  requestsPerSecond: 10,
  concurrentStreams: 1,
  createdAt: new Date("2026-11-01T00:00:00Z"),
  expiresAt: null,
  revokedAt: null,
  ...overrides,
});
