import { sql } from "drizzle-orm";
import { expectedMigrationCount, rowsOf, type DatabaseHandle } from "./db/index.ts";

export type HealthReport = { status: 200 | 503; body: Record<string, unknown> };

const READY_TIMEOUT_MS = 2_000;
const expectedMigrations = expectedMigrationCount();

/** Ready when the database answers within two seconds and holds every migration this code knows. */
export async function readiness(handle: DatabaseHandle): Promise<HealthReport> {
  const check = handle.db
    .execute<{ applied: number }>(sql`select count(*)::int as applied from drizzle.__drizzle_migrations`)
    .then((result) => rowsOf<{ applied: number }>(result)[0]?.applied ?? 0);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
  });
  try {
    const applied = await Promise.race([check, timeout]);
    const migrated = applied >= expectedMigrations;
    return {
      status: migrated ? 200 : 503,
      body: {
        status: migrated ? "ready" : "migrations_pending",
        database: handle.kind,
        migrations: { applied, expected: expectedMigrations },
      },
    };
  } catch (error) {
    return {
      status: 503,
      body: { status: "database_unreachable", database: handle.kind, detail: (error as Error).message },
    };
  } finally {
    clearTimeout(timer);
  }
}
