import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe } from "vitest";
import { loadConfig } from "../lib/config.ts";
import type { Database } from "../lib/db/index.ts";
import { migratedDataDir } from "./data-dirs.ts";
import { TEST_PASSWORD_COST } from "./password-cost.ts";
import { freshPostgres, type ScratchDatabase } from "./postgres.ts";

/**
 * A database of its own for one test file: a fresh PGlite folder, or a fresh PostgreSQL database
 * created next to TEST_DATABASE_URL, so runs never collide. `env` is what a process needs to use it,
 * with SEED_DEMO=0 on both: the demo's two password hashes (seconds of CPU and 256 MiB on two
 * cores) at every server's start are for the suites that sign in as the demo, which ask for it.
 * Its servers hash passwords at a test's cost (TEST_FAST_PASSWORD_HASH=1), as this file's own
 * process does (testing/fast-passwords.ts).
 */
export type TestDatabase = ScratchDatabase;

export type Backend = { name: "pglite" | "postgres"; create(): Promise<TestDatabase> };

async function pglite(): Promise<TestDatabase> {
  const dir = migratedDataDir();
  const env = { DATA_DIR: dir, SEED_DEMO: "0", ...TEST_PASSWORD_COST };
  return { env, config: loadConfig(env), drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined;

const postgresBackend: Backend = {
  name: "postgres",
  create: async () => {
    if (!testDatabaseUrl) throw new Error(POSTGRES_MISSING);
    return freshPostgres(testDatabaseUrl, "svc_test", TEST_PASSWORD_COST);
  },
};
const POSTGRES_MISSING = "TEST_DATABASE_URL is not set";

/** PGlite always; PostgreSQL whenever TEST_DATABASE_URL is set (CI sets it). */
export const BACKENDS: Backend[] = [{ name: "pglite", create: pglite }, ...(testDatabaseUrl ? [postgresBackend] : [])];

/**
 * One suite per database, `$name` in the title standing for it. Without TEST_DATABASE_URL the
 * PostgreSQL suite is still there, skipped with the reason, so its cases count as skipped.
 */
export function describeEachBackend(
  title: string,
  ...args: [suite: (backend: Backend) => void] | [options: { timeout?: number }, suite: (backend: Backend) => void]
): void {
  const [options, suite] = args.length === 1 ? [{}, args[0]] : args;
  for (const backend of [{ name: "pglite", create: pglite } as Backend, postgresBackend]) {
    const named = title.replaceAll("$name", backend.name);
    if (backend.name === "postgres" && !testDatabaseUrl) {
      describe.skip(`${named} (skipped: ${POSTGRES_MISSING})`, options, () => suite(backend));
    } else {
      describe(named, options, () => suite(backend));
    }
  }
}

export const POSTGRES: Backend | undefined = BACKENDS.find((b) => b.name === "postgres");

/**
 * Creates a database of `backend` before the suite and drops it after. After-hooks run in reverse
 * order (vitest's default "stack"), so what a suite opens on the database closes before the drop.
 */
export function useTestDatabase(backend: Backend): () => TestDatabase {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await backend.create();
  });
  afterAll(async () => {
    await database?.drop();
  });
  return () => {
    if (!database) throw new Error("the test database is created in beforeAll");
    return database;
  };
}

/**
 * `db` with the statements sent through it counted (`execute`, what the history's reads use): how
 * a test sees a read's round trips to the database. Transactions it opens are not counted.
 */
export function countingStatements(db: Database): { db: Database; count: { statements: number } } {
  const count = { statements: 0 };
  const counted = new Proxy(db, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (name !== "execute" || typeof value !== "function") return value;
      return (...args: unknown[]) => {
        count.statements++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { db: counted, count };
}
