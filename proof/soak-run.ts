import { formatSoakReport, runSoak, SAMPLE_HEADER } from "./soak.ts";

// npm run proof:soak: the soak, against the built app (`npm run build` first). SOAK_MINUTES (60),
// SOAK_FOLLOWERS (2,000), SOAK_CHANGES (a second, 100) and SOAK_API (requests a second, 40) set its
// size; SOAK_MAPS_DIR, a folder that exists, keeps each instance's smaps at each sixth of the run. Prints each instance's figures as it samples them, then the whole table and PASS or FAIL;
// exits 1 on any finding.

const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const minutes = number("SOAK_MINUTES", 60);
process.stdout.write(`${SAMPLE_HEADER}\n`);
const report = await runSoak({
  minutes,
  sampleSeconds: minutes >= 10 ? 60 : 10,
  followers: number("SOAK_FOLLOWERS", 2_000),
  changesPerSecond: number("SOAK_CHANGES", 100),
  apiPerSecond: number("SOAK_API", 40),
  mapsDir: process.env.SOAK_MAPS_DIR,
  log: (line) => process.stdout.write(`${line}\n`),
});
process.stdout.write(`${formatSoakReport(report)}\n`, () => process.exit(report.findings.length === 0 ? 0 : 1));
