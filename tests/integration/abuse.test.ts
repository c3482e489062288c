import { describe, expect, it } from "vitest";
import { formatReport, runAbuseSuite } from "../../proof/suite.ts";
import { BACKENDS, POSTGRES } from "../../testing/databases.ts";

// The abuse suite's short run (proof/suite.ts; `npm run proof:abuse` is the full one): a few
// hundred fuzz cases over every operation of the OpenAPI document, then every abuse check with
// smaller volumes. Any finding fails the test, with the report.

const CASES = Number(process.env.FUZZ_CASES_SHORT ?? 300);
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);

// One backend, to stay within a minute: PostgreSQL when there is one (it can also prune the
// history under a resuming stream), else PGlite.
describe.each([POSTGRES ?? BACKENDS[0]!])("the abuse suite on $name", (backend) => {
  it(`comes through ${CASES} fuzz cases and every abuse check`, { timeout: 180_000 }, async () => {
    const report = await runAbuseSuite({
      backend,
      cases: CASES,
      seed: SEED,
      short: true,
      fuzzSeconds: 60,
      log: () => {},
    });
    const text = formatReport(report);
    expect(report.cases, text).toBe(CASES);
    expect(report.invalidCases, text).toBeGreaterThan(CASES / 4);
    expect(report.findings, text).toEqual([]);
  });
});
