import { rmSync } from "node:fs";
import { afterAll, beforeAll } from "vitest";
import { loadConfig } from "../lib/config.ts";
import { migratedDataDir } from "./data-dirs.ts";
import { freshPostgres, type ScratchDatabase } from "./postgres.ts";

/**
 * A database of its own for one test file: a fresh PGlite folder, or a fresh PostgreSQL database
 * created next to TEST_DATABASE_URL, so runs never collide. `env` is what a process needs to use it.
 */
export type TestDatabase = ScratchDatabase;

export type Backend = { name: "pglite" | "postgres"; create(): Promise<TestDatabase> };

async function pglite(): Promise<TestDatabase> {
  const dir = migratedDataDir();
  const env = { DATA_DIR: dir };
  return { env, config: loadConfig(env), drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined;

/** PGlite always; PostgreSQL whenever TEST_DATABASE_URL is set (CI sets it). */
export const BACKENDS: Backend[] = [
  { name: "pglite", create: pglite },
  ...(testDatabaseUrl ? [{ name: "postgres" as const, create: () => freshPostgres(testDatabaseUrl) }] : []),
];

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
