import { rmSync } from "node:fs";
import postgres from "postgres";
import { afterAll, beforeAll } from "vitest";
import { loadConfig, type Config } from "../lib/config.ts";
import { migratedDataDir } from "./data-dirs.ts";
import { randomBase62 } from "../lib/ids.ts";

/**
 * A database of its own for one test file: a fresh PGlite folder, or a fresh PostgreSQL database
 * created next to TEST_DATABASE_URL, so runs never collide. `env` is what a process needs to use it.
 */
export type TestDatabase = {
  env: Record<string, string>;
  config: Config;
  drop(): Promise<void>;
};

export type Backend = { name: "pglite" | "postgres"; create(): Promise<TestDatabase> };

async function pglite(): Promise<TestDatabase> {
  const dir = migratedDataDir();
  const env = { DATA_DIR: dir };
  return { env, config: loadConfig(env), drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

async function freshPostgres(adminUrl: string): Promise<TestDatabase> {
  const name = `svc_test_${process.pid}_${randomBase62(8).toLowerCase()}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  // The suites sign in as the demo administrator, which PostgreSQL seeds only when asked.
  const env = { DATABASE_URL: url.toString(), SEED_DEMO: "1" };
  return {
    env,
    config: loadConfig(env),
    drop: async () => {
      const cleanup = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`drop database if exists "${name}" with (force)`);
      await cleanup.end();
    },
  };
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
