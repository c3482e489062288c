// Sign-up's answer time for a registered address against a new one, in the same run on the same
// server: the form must not tell by its speed which addresses have an account (docs/mail.md).
//
//   npm run bench:sign-up     (after `npm run build`; BENCH_SIGN_UPS per kind, default 40;
//                              BENCH_DATABASE_URL: on a scratch PostgreSQL database next to it,
//                              else the embedded database)
//
// Starts `server.ts` through the tests' harness (mail kept in the outbox: MAIL_URL=none), with
// BENCH_SIGN_UPS organisations made beforehand whose admins' addresses are the taken ones. Then
// posts the sign-up form's server action as the browser does, alternately for a taken address
// and a new one (after a few of each to warm up), one at a time, each from a loopback address of
// its own so that the per-network throttle never answers; every organisation name is new, so both
// kinds reach the address lookup. Prints each kind's median and p95 and their differences, and
// PASS or FAIL against the 50 ms; exits 1 only when an answer was not the form's one.
import { performance } from "node:perf_hooks";
import { SIGN_UP_LIMITS } from "../lib/accounts/sign-up-limits.ts";
import { SIGN_UP_ANSWER } from "../lib/accounts/mail/sign-up.ts";
import { newPasswordHash } from "../lib/accounts/users.ts";
import { createOrganisationWithAdmin } from "../lib/console/members.ts";
import { seedReferenceData } from "../seeds/index.ts";
import { postAction, serverActionId } from "../testing/console.ts";
import { migratedDataDir } from "../testing/data-dirs.ts";
import { withDatabase } from "../testing/organisations.ts";
import { freshPostgres } from "../testing/postgres.ts";
import { startServer } from "../testing/processes.ts";
import { percentile } from "./stats.ts";

const COUNT = Number(process.env.BENCH_SIGN_UPS ?? 40);
const WARMUP = 5;
const TARGET_MS = 50;
const PASSWORD = "correct horse battery staple";

const ms = (n: number) => `${n.toFixed(1)} ms`;

async function main() {
  // Every sign-up of the run counts toward the overall ceiling, beyond which each is slowed down.
  const total = 2 * (COUNT + WARMUP);
  if (total > SIGN_UP_LIMITS.overall)
    throw new Error(
      `BENCH_SIGN_UPS=${COUNT} makes ${total} sign-ups, over the ${SIGN_UP_LIMITS.overall} a window admits unslowed`,
    );
  const postgresUrl = process.env.BENCH_DATABASE_URL;
  const scratch = postgresUrl ? await freshPostgres(postgresUrl, "bench_sign_up") : null;
  const env: Record<string, string> = scratch
    ? { ...scratch.env, SEED_DEMO: "0" }
    : { DATA_DIR: migratedDataDir(), SEED_DEMO: "0" };
  const run = Date.now().toString(36);
  const taken = Array.from({ length: COUNT + WARMUP }, (_, i) => `taken-${i}-${run}@bench.test`);
  await withDatabase(env, async (db) => {
    await seedReferenceData(db);
    const passwordHash = await newPasswordHash(PASSWORD);
    for (const [i, email] of taken.entries())
      await createOrganisationWithAdmin(db, { organisation: `Held ${i} ${run}`, name: "Holder", email, passwordHash });
  });
  const server = await startServer({ ...env, MAIL_URL: "none" }, { checkLogs: false });
  const action = serverActionId("signUpAction");
  let requests = 0;
  const signUp = async (email: string) => {
    const n = requests++;
    // 127.0.1.0 onwards: a client of its own for each request (the throttle counts per address).
    const from = `127.0.${1 + Math.floor(n / 250)}.${1 + (n % 250)}`;
    const started = performance.now();
    const answer = await postAction(
      server.url,
      "/console/sign-up",
      action,
      { organisation: `Bench ${n} ${run}`, name: "Bench", email, password: PASSWORD },
      from,
    );
    const elapsed = performance.now() - started;
    if (answer.status !== 200 || !answer.body.includes(SIGN_UP_ANSWER))
      throw new Error(`sign-up for ${email} answered ${answer.status}: ${answer.body.slice(0, 300)}`);
    return elapsed;
  };
  const times = { taken: [] as number[], new: [] as number[] };
  // taken − new within each adjacent pair: a shared machine's load moves both of a pair alike.
  const pairs: number[] = [];
  try {
    for (let i = 0; i < WARMUP; i++) {
      await signUp(taken[COUNT + i]!);
      await signUp(`warm-${i}-${run}@bench.test`);
    }
    for (let i = 0; i < COUNT; i++) {
      // Alternating, each pair in a different order, so neither kind always follows the other.
      const pair = [
        async () => times.taken.push(await signUp(taken[i]!)),
        async () => times.new.push(await signUp(`new-${i}-${run}@bench.test`)),
      ];
      if (i % 2 === 1) pair.reverse();
      for (const one of pair) await one();
      pairs.push(times.taken.at(-1)! - times.new.at(-1)!);
    }
  } finally {
    await server.stop();
    await scratch?.drop();
  }

  const row = (label: string, values: number[]) =>
    `  ${label.padEnd(18)} median ${ms(percentile(values, 50)).padStart(10)}   p95 ${ms(percentile(values, 95)).padStart(10)}   min ${ms(Math.min(...values)).padStart(10)}   max ${ms(Math.max(...values)).padStart(10)}`;
  const median = { taken: percentile(times.taken, 50), new: percentile(times.new, 50) };
  const p95 = { taken: percentile(times.taken, 95), new: percentile(times.new, 95) };
  const medianDifference = median.taken - median.new;
  console.log(
    `Sign-up answer time, ${COUNT} of each kind alternately, one at a time (${scratch ? "PostgreSQL" : "embedded database"}):`,
  );
  console.log(row("taken address", times.taken));
  console.log(row("new address", times.new));
  console.log(`  difference (taken − new): median ${ms(medianDifference)}, p95 ${ms(p95.taken - p95.new)}`);
  console.log(
    `  taken − new within each pair: median ${ms(percentile(pairs, 50))}, quartiles ${ms(percentile(pairs, 25))} to ${ms(percentile(pairs, 75))}`,
  );
  console.log(
    `${Math.abs(medianDifference) <= TARGET_MS ? "PASS" : "FAIL"}: the medians within ${TARGET_MS} ms of each other`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
