import { sql } from "drizzle-orm";
import { expectedMigrationCount, rowsOf, type DatabaseHandle } from "./db/index.ts";
import { logger } from "./log/index.ts";

export type HealthReport = { status: 200 | 503; body: Record<string, unknown> };

const READY_TIMEOUT_MS = 2_000;
// /readyz needs no credentials: one check serves every caller of the same second, so that calling
// it in a loop cannot load the database.
const READY_CACHE_MS = 1_000;
const expectedMigrations = expectedMigrationCount();

const checks = new WeakMap<DatabaseHandle, { at: number; report: Promise<HealthReport> }>();

/**
 * Ready when the database answers within two seconds and holds every migration this code knows;
 * the answer of a check begun in the last second is shared.
 */
export function readiness(handle: DatabaseHandle): Promise<HealthReport> {
  const now = performance.now();
  const last = checks.get(handle);
  if (last && now - last.at < READY_CACHE_MS) return last.report;
  const report = check(handle);
  checks.set(handle, { at: now, report });
  return report;
}

async function check(handle: DatabaseHandle): Promise<HealthReport> {
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
    // The operator reads why in the log; the unauthenticated caller learns only that it failed.
    logger().warn({ err: error }, "Readiness: the database did not answer");
    return {
      status: 503,
      body: { status: "database_unreachable", database: handle.kind, detail: "The database did not answer." },
    };
  } finally {
    clearTimeout(timer);
  }
}
