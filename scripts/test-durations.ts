// `npm run test:durations`: records how long each test file took in the last `npm test` (its
// test-results/vitest.json) in testing/durations.json, which the test sequencer reads to start the
// longest files first. Run it after a full run on a quiet machine when files were added or grew.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DURATIONS_FILE, type Durations } from "../testing/sequencer.ts";

const report = process.argv[2] ?? "test-results/vitest.json";
// The project the report was written in (a fresh clone's, say): its test-results/ folder's parent.
const root = path.resolve(path.dirname(report), "..");
const { testResults } = JSON.parse(readFileSync(report, "utf8")) as {
  testResults: { name: string; startTime: number; endTime: number }[];
};
const durations: Durations = Object.fromEntries(
  testResults
    .map((file) => [path.relative(root, file.name), Math.round((file.endTime - file.startTime) / 100) / 10] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(DURATIONS_FILE, `${JSON.stringify(durations, null, 2)}\n`);
console.log(
  `${Object.keys(durations).length} files' durations written to ${path.relative(process.cwd(), DURATIONS_FILE)}`,
);
