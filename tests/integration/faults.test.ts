import { describe, expect, it } from "vitest";
import { formatFaultReport, runFaultSuite } from "../../proof/faults.ts";
import { postgresClusterUnavailable } from "../../testing/postgres-cluster.ts";
import { nginxUnavailable } from "../../testing/scale-out.ts";

// The fault suite's short run (proof/faults.ts; `npm run proof:faults` is the full one): two
// instances behind nginx on a PostgreSQL cluster of its own, one fault of each kind. It needs
// Debian's postgresql (initdb, pg_ctl) and nginx; without them it is skipped, saying why.

const missing = postgresClusterUnavailable() ?? nginxUnavailable();

describe.skipIf(missing !== null)(`the fault suite${missing ? ` (skipped: ${missing})` : ""}`, () => {
  it(
    "comes through PostgreSQL stopped and hung, an instance killed, a rolling restart and a revocation",
    { timeout: 240_000 },
    async () => {
      const report = await runFaultSuite({ short: true, log: () => {} });
      const text = formatFaultReport(report);
      expect(
        report.faults.map((f) => f.fault),
        text,
      ).toHaveLength(5);
      expect(report.totals.requests, text).toBeGreaterThan(500);
      expect(report.totals.reconnects, text).toBeGreaterThan(0);
      expect(report.totals.missed, text).toBe(0);
      expect(report.totals.lost, text).toBe(0);
      expect(report.findings, text).toEqual([]);
    },
  );
});
