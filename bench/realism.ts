// How real the simulated sports look: every sport's model played offline (no server, no clock),
// BENCH_GAMES games a sport (2000), and each figure printed against what the leagues show, named
// by its source, with PASS or FAIL against the tolerance stated beside it. Market figures are
// measured against the opening (kickoff) prices: the share of favourites and overs against what
// was priced, the return of backing each side against minus the margin, and every result outcome's
// priced chance against how often it won, by decile (printed, not judged).
//
// Settlement is checked over BENCH_EVENTS events a sport (100) played through the simulator from
// their announcement, each with the fate its seed gives it, and 10 more that are abandoned.
//
//   npm run bench:realism                    BENCH_GAMES=500 BENCH_SEED=b npm run bench:realism
//   BENCH_SPORTS=american-football,ice-hockey npm run bench:realism
//
// It exits non-zero when a figure fails, so that a run can be told apart at a glance.
import { SPORTS, type Sport } from "../lib/db/schema/index.ts";
import { BEST_OF_FIVE, calibrationByDecile, figuresOf, GRAND_SLAM, passes, playGames } from "../lib/sim/realism.ts";
import { auditSettlement, settlementFigures } from "../lib/sim/settlement-audit.ts";

const GAMES = Number(process.env.BENCH_GAMES ?? 2000);
// Settlement is audited through the simulator itself (pre-match to the end), slower than the models alone.
const EVENTS = Number(process.env.BENCH_EVENTS ?? 100);
const ABANDONED = 10;
const SEED = process.env.BENCH_SEED ?? "realism";
const sports = (process.env.BENCH_SPORTS?.split(",") ?? SPORTS) as Sport[];

const fixed = (x: number) => (Math.abs(x) >= 20 ? x.toFixed(1) : x.toFixed(2));
let failed = 0;
console.log(
  `${GAMES} games a sport, seed "${SEED}"; settlement over ${EVENTS} + ${ABANDONED} abandoned events a sport\n`,
);
// Tennis twice: best of three on the tours, best of five in the men's Grand Slam.
type Run = { sport: Sport; label: string; competition?: string; ref?: typeof BEST_OF_FIVE };
const runs = sports.flatMap((sport): Run[] =>
  sport === "tennis"
    ? [
        { sport, label: "tennis" },
        { sport, label: "tennis, best of five", competition: GRAND_SLAM, ref: BEST_OF_FIVE },
      ]
    : [{ sport, label: sport }],
);
for (const { sport, label, competition, ref } of runs) {
  const started = performance.now();
  const records = playGames(sport, GAMES, SEED, competition);
  const figures = figuresOf(sport, records, ref);
  if (!competition) figures.push(...settlementFigures(auditSettlement(sport, EVENTS, ABANDONED, SEED)));
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`${label} (${seconds} s)`);
  for (const f of figures) {
    const ok = passes(f);
    if (!ok) failed++;
    console.log(
      `  ${f.name.padEnd(42)} ${fixed(f.measured).padStart(7)}  ref ${fixed(f.reference).padStart(7)} ± ${fixed(f.tolerance).padEnd(5)} ${ok ? "PASS" : "FAIL"}  ${f.source}`,
    );
  }
  // Priced against observed for every outcome of the opening result markets, by decile (those with 30 or more).
  const deciles = calibrationByDecile(records)
    .filter((d) => d.n >= 30)
    .map((d) => `${d.priced.toFixed(0)}→${d.won.toFixed(0)}`);
  console.log(`  result outcomes by decile, priced → won %: ${deciles.join("  ")}`);
  console.log("");
}
console.log(failed === 0 ? "every figure within tolerance" : `${failed} figure(s) out of tolerance`);
process.exitCode = failed === 0 ? 0 : 1;
