// The order vitest starts test files in: the longest first, from the seconds each file took in a
// recent full run (testing/durations.json, `npm run test:durations` writes it). Started last, one of
// the minute-long integration files kept a single worker busy while the others had nothing left, and
// a fresh clone has no cache of earlier runs for vitest's own longest-first order to read.
import { readFileSync } from "node:fs";
import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

export const DURATIONS_FILE = path.join(import.meta.dirname, "durations.json");

/** Seconds each test file took, by its path from the project's folder. */
export type Durations = Record<string, number>;

function readDurations(): Durations {
  try {
    return JSON.parse(readFileSync(DURATIONS_FILE, "utf8")) as Durations;
  } catch {
    return {};
  }
}

/**
 * `files` longest first within each run of the same project, which vitest's own order keeps together.
 * A file not in `durations` (new since the last full run) goes first: it may be long.
 */
export function longestFirst<T>(
  files: T[],
  projectOf: (file: T) => string,
  seconds: (file: T) => number | undefined,
): T[] {
  const key = (file: T) => seconds(file) ?? Number.POSITIVE_INFINITY;
  const sorted: T[] = [];
  for (let start = 0; start < files.length;) {
    let end = start + 1;
    while (end < files.length && projectOf(files[end]!) === projectOf(files[start]!)) end++;
    sorted.push(...files.slice(start, end).sort((a, b) => key(b) - key(a)));
    start = end;
  }
  return sorted;
}

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durations = readDurations();
    const root = this.ctx.config.root;
    return longestFirst(
      await super.sort(files),
      (spec) => spec.project.name,
      (spec) => durations[path.relative(root, spec.moduleId)],
    );
  }
}
