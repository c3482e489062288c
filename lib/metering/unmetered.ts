import type { InstanceMeter } from "./meter.ts";

/** Admits every request, counts nothing, sends no rate-limit headers: an instance without metering. */
export const unmetered: InstanceMeter = {
  admit: (key) => ({
    admitted: true,
    used: 0,
    quota: key.monthlyQuota,
    counts: { key: { used: 0, quota: key.monthlyQuota }, organisation: null },
    headers: {},
  }),
  openStream: () => ({ release() {} }),
  rewatch() {},
  stats: () => ({ flushLagSeconds: 0, journalBytes: 0, unflushedBytes: 0, flushFailures: 0 }),
  close: async () => {},
};
