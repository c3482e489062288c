import { BACKENDS, POSTGRES } from "../testing/databases.ts";
import { formatReport, runAbuseSuite } from "./suite.ts";

// npm run proof:abuse: the abuse suite in full, against the built server (`npm run build` first).
// FUZZ_CASES (10,000), FUZZ_SEED (printed; the same seed gives the same cases), FUZZ_SECONDS (the
// fuzzer's time limit, 600), and PostgreSQL when TEST_DATABASE_URL names a server, else PGlite.
// Exits 1 on any finding.

const cases = Number(process.env.FUZZ_CASES ?? 10_000);
const seed = Number(process.env.FUZZ_SEED ?? 20_261_123);
const fuzzSeconds = Number(process.env.FUZZ_SECONDS ?? 600);
if (!Number.isInteger(cases) || cases < 1 || !Number.isInteger(seed) || !(fuzzSeconds > 0)) {
  process.stderr.write("FUZZ_CASES and FUZZ_SEED must be integers, FUZZ_CASES at least 1, FUZZ_SECONDS positive\n");
  process.exit(2);
}

const started = performance.now();
const report = await runAbuseSuite({
  backend: POSTGRES ?? BACKENDS[0]!,
  cases,
  seed,
  short: false,
  fuzzSeconds,
  log: (line) => process.stdout.write(`${line}\n`),
});
const total = `total time: ${((performance.now() - started) / 1000).toFixed(1)} s`;
// Exits once the report is written: keep-alive connections to the stopped server hold nothing.
process.stdout.write(`${formatReport(report)}\n${total}\n`, () => process.exit(report.findings.length === 0 ? 0 : 1));
