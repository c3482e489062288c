import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../lib/config.ts";
import { openDatabase } from "../lib/db/index.ts";

/** An empty DATA_DIR: what a first start on a new machine finds. */
export function freshDataDir(): string {
  return mkdtempSync(path.join(tmpdir(), "svc-test-"));
}

// Creating an embedded database and migrating it costs seconds of CPU; the run does it once
// (`makePgliteTemplate` in its global setup) and each test gets a copy.
const TEMPLATE = "TEST_PGLITE_TEMPLATE";

/** An embedded database created and migrated once, left for `migratedDataDir` to copy. */
export async function makePgliteTemplate(): Promise<() => void> {
  const dir = freshDataDir();
  const handle = await openDatabase(loadConfig({ DATA_DIR: dir }));
  await handle.close();
  process.env[TEMPLATE] = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}

/** A DATA_DIR holding a migrated embedded database with no data: a copy of the run's template. */
export function migratedDataDir(): string {
  const dir = freshDataDir();
  const template = process.env[TEMPLATE];
  if (template && existsSync(template)) cpSync(template, dir, { recursive: true });
  return dir;
}
