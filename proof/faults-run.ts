import { formatFaultReport, runFaultSuite } from "./faults.ts";

// npm run proof:faults: the fault suite in full, against the built app (`npm run build` first):
// a PostgreSQL cluster of its own (initdb and pg_ctl), two instances and nginx. Exits 1 on any
// finding. FAULTS_SHORT=1 runs the short version (one fault of each kind, as `npm test` does).

const started = performance.now();
const report = await runFaultSuite({
  short: process.env.FAULTS_SHORT === "1",
  log: (line) => process.stdout.write(`${line}\n`),
});
const total = `total time: ${((performance.now() - started) / 1000).toFixed(1)} s`;
process.stdout.write(`${formatFaultReport(report)}\n${total}\n`, () =>
  process.exit(report.findings.length === 0 ? 0 : 1),
);
