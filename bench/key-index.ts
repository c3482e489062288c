// What keeping every key's hash on every instance costs (lib/keys/hash-index.ts): memory and lookup
// time for BENCH_KEYS keys (1,000,000), against a baseline in the same run, a `Set` of the same
// hashes' first 16 hex digits (what plain JavaScript would hold).
//
//   npm run bench:key-index      (no build, no database; BENCH_KEYS, BENCH_ROUNDS (5))
//
// Each round builds both from the same hashes, then looks up 100,000 guesses and 100,000 known
// hashes (every key, when there are fewer) in each, alternating which goes first. Memory is the
// heap's growth after a full collection (node --expose-gc), so the baseline's string objects are
// counted as the index's arrays are. It asserts no timing; it fails only when a lookup gives a wrong answer.
import { createHash, randomBytes } from "node:crypto";
import { KeyHashIndex } from "../lib/keys/hash-index.ts";
import { median } from "./stats.ts";

const KEYS = Number(process.env.BENCH_KEYS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const LOOKUPS = 100_000;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc (npm run bench:key-index does)");

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");
const hashes = Array.from({ length: KEYS }, (_, i) => sha256(`key-${i}`));
const known = hashes.slice(0, LOOKUPS);

type Side = { name: string; build: () => { has: (hash: string) => boolean } };
const sides: Side[] = [
  {
    name: "index",
    build: () => {
      const index = new KeyHashIndex(KEYS);
      for (const hash of hashes) index.add(hash);
      return index;
    },
  },
  {
    name: "Set (baseline)",
    build: () => {
      const set = new Set<string>();
      for (const hash of hashes) set.add(hash.slice(0, 16));
      return { has: (hash: string) => set.has(hash.slice(0, 16)) };
    },
  },
];

function heapUsed(): number {
  gc!();
  return process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
}

function measure(side: Side): { bytesPerKey: number; nsPerLookup: number } {
  const before = heapUsed();
  const table = side.build();
  const bytesPerKey = (heapUsed() - before) / KEYS;
  const guesses = Array.from({ length: LOOKUPS }, (_, i) => sha256(`guess-${i}-${randomBytes(4).toString("hex")}`));
  const started = process.hrtime.bigint();
  let found = 0;
  for (const hash of guesses) if (table.has(hash)) found++;
  for (const hash of known) if (table.has(hash)) found++;
  const nsPerLookup = Number(process.hrtime.bigint() - started) / (guesses.length + known.length);
  if (found !== known.length) throw new Error(`${side.name} found ${found} of ${known.length}`);
  return { bytesPerKey, nsPerLookup };
}

console.log(`${KEYS} keys, ${ROUNDS} rounds, ${LOOKUPS + known.length} lookups a round (${LOOKUPS} unknown)`);
const results = new Map<string, { bytesPerKey: number; nsPerLookup: number }[]>(sides.map((s) => [s.name, []]));
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? sides : [...sides].reverse();
  for (const side of order) results.get(side.name)!.push(measure(side));
}
const spread = (values: number[]) => `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}`;
for (const [name, rounds] of results) {
  const bytes = rounds.map((r) => r.bytesPerKey);
  const ns = rounds.map((r) => r.nsPerLookup);
  console.log(
    `${name.padEnd(15)} ${median(bytes).toFixed(1)} B a key (${spread(bytes)}), ${median(ns).toFixed(0)} ns a lookup (${spread(ns)})`,
  );
}
const index = results.get("index")!;
const baseline = results.get("Set (baseline)")!;
console.log(
  `index ÷ baseline: memory ${(median(index.map((r) => r.bytesPerKey)) / median(baseline.map((r) => r.bytesPerKey))).toFixed(2)}, lookup ${(median(index.map((r) => r.nsPerLookup)) / median(baseline.map((r) => r.nsPerLookup))).toFixed(2)}`,
);
