import "#server-only";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import postgres from "postgres";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { withoutPassword, type Config } from "../config.ts";
import { currentRequestId } from "../log/index.ts";
import { lockDataDir } from "./data-dir-lock.ts";
import { compiledPglite, PgliteWorker, type PgliteClient } from "./pglite-worker.ts";
import * as schema from "./schema/index.ts";

export { schema };

/** PostgreSQL or PGlite, or a transaction on either: the query layer takes this as its first argument. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

export type DatabaseHandle = {
  db: Database;
  kind: "postgres" | "pglite";
  /** Where the data is, without credentials, for logs. */
  location: string;
  /** The raw clients, for what drizzle does not cover (LISTEN/NOTIFY, advisory locks). */
  postgres?: postgres.Sql;
  pglite?: PgliteClient;
  /** For a connection of one's own outside the pool (a session-level advisory lock). */
  connectionUrl?: string;
  /**
   * The connection pool, for the metrics: its size, (PostgreSQL) its connections' use now, and the
   * statements sent through the query layer so far.
   */
  pool: { size: number; inUse?(): Promise<{ open: number; active: number }>; queries: QueryCount };
  close(): Promise<void>;
};

/** The rows of a raw `db.execute()`: postgres-js returns them as an array, PGlite inside `rows`. */
export function rowsOf<T>(result: unknown): T[] {
  return Array.isArray(result) ? (result as T[]) : (result as { rows: T[] }).rows;
}

/**
 * Statements this process sent through drizzle: while serving an API request (its scope), and
 * otherwise (start-up, the feed, metering's flushes, the console). A refusal that should need no
 * database, such as a key with a bad checksum, shows as no change of `request`.
 */
export type QueryCount = { request: number; other: number };

function countingQueries(queries: QueryCount) {
  return {
    logQuery: () => {
      if (currentRequestId() === undefined) queries.other++;
      else queries.request++;
    },
  };
}

export class DatabaseUnavailableError extends Error {
  override name = "DatabaseUnavailableError";
}

export const MIGRATIONS_DIR = path.resolve("drizzle");
// Any constant shared by every instance; two instances starting at once take turns migrating.
const MIGRATION_LOCK_ID = 4_180_221_907;

/** Number of migrations the code expects to be applied: readiness compares it with the database. */
export function expectedMigrationCount(): number {
  const journal = JSON.parse(readFileSync(path.join(MIGRATIONS_DIR, "meta", "_journal.json"), "utf8")) as {
    entries: unknown[];
  };
  return journal.entries.length;
}

/**
 * Seconds before the pool tries a connection again after `retries` failures in a row: from 50 ms,
 * doubling, never more than a second. postgres.js's own backoff grows to 20 s, so an instance
 * whose PostgreSQL restarted kept answering 503 for up to 20 s after the database was back.
 */
export function reconnectDelaySeconds(retries: number): number {
  return Math.min(0.05 * 2 ** retries, 1) * (0.75 + Math.random() / 4);
}

// A PostgreSQL that accepts the connection but does not answer (stopped, hung) holds a new
// connection this long; a request waits at most DATABASE_WAIT_MS for it anyway (lib/db/wait.ts).
const CONNECT_TIMEOUT_SECONDS = 5;

function redact(url: string): string {
  if (!URL.canParse(url)) return withoutPassword(url);
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}

async function openPostgres(config: Config & { DATABASE_URL: string }): Promise<DatabaseHandle> {
  let migrator: postgres.Sql;
  try {
    migrator = postgres(config.DATABASE_URL, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  } catch (error) {
    // The client's own error carries the whole URL, password included.
    throw new DatabaseUnavailableError(
      `DATABASE_URL=${JSON.stringify(withoutPassword(config.DATABASE_URL))} cannot be read as a URL: ${(error as Error).message}`,
    );
  }
  try {
    await migrator`select pg_advisory_lock(${MIGRATION_LOCK_ID})`.catch((error: Error) => {
      throw new DatabaseUnavailableError(`Cannot reach PostgreSQL at ${redact(config.DATABASE_URL)}: ${error.message}`);
    });
    await migratePostgres(drizzlePostgres(migrator), { migrationsFolder: MIGRATIONS_DIR });
    await migrator`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
  } finally {
    await migrator.end();
  }
  // A name of this instance's own, so that its connections can be told apart in pg_stat_activity.
  const applicationName = `sports-data-${process.pid}-${randomBytes(3).toString("hex")}`;
  const client = postgres(config.DATABASE_URL, {
    max: config.DATABASE_POOL_SIZE,
    backoff: reconnectDelaySeconds,
    connect_timeout: CONNECT_TIMEOUT_SECONDS,
    onnotice: () => {},
    connection: { application_name: applicationName },
  });
  const queries: QueryCount = { request: 0, other: 0 };
  return {
    db: drizzlePostgres(client, { schema, logger: countingQueries(queries) }) as unknown as Database,
    kind: "postgres",
    location: redact(config.DATABASE_URL),
    postgres: client,
    connectionUrl: config.DATABASE_URL,
    pool: {
      size: config.DATABASE_POOL_SIZE,
      queries,
      async inUse() {
        const [row] = await client<{ open: number; active: number }[]>`
          select count(*)::int as open, (count(*) filter (where state = 'active'))::int - 1 as active
          from pg_stat_activity where application_name = ${applicationName}`;
        return row!;
      },
    },
    close: () => client.end({ timeout: 5 }),
  };
}

type Statements = Pick<PGlite, "query" | "exec">;

/**
 * PGlite runs each statement on the thread that answers requests, and its promises settle without
 * giving the event loop a turn: a transaction of eight statements (the meter's flush, every second)
 * held every request for 10 to 20 ms in one piece. Each statement, in a transaction or not, first
 * waits for a turn of the event loop, so requests are answered between statements.
 */
function turnBetweenStatements<T extends Statements>(client: T): T {
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  const query = client.query.bind(client);
  const exec = client.exec.bind(client);
  client.query = (async (...args: Parameters<typeof query>) => {
    await turn();
    return query(...args);
  }) as typeof client.query;
  client.exec = async (...args: Parameters<typeof exec>) => {
    await turn();
    return exec(...args);
  };
  if (client instanceof PGlite) {
    const transaction = client.transaction.bind(client);
    client.transaction = (work) => transaction((tx) => work(turnBetweenStatements(tx)));
  }
  return client;
}

async function openPglite(config: Config): Promise<DatabaseHandle> {
  const dir = path.resolve(config.DATA_DIR);
  const release = lockDataDir(dir);
  try {
    const folder = path.join(dir, "pglite");
    const client: PgliteClient =
      config.PGLITE_THREAD === "own"
        ? await PgliteWorker.open(folder)
        : turnBetweenStatements(await PGlite.create(folder, await compiledPglite()));
    const queries: QueryCount = { request: 0, other: 0 };
    // The thread's client answers drizzle's session as PGlite does (query, exec, transaction).
    const db = drizzlePglite(client as PGlite, { schema, logger: countingQueries(queries) });
    await migratePglite(db, { migrationsFolder: MIGRATIONS_DIR });
    return {
      db: db as unknown as Database,
      kind: "pglite",
      location: dir,
      pglite: client,
      pool: { size: 1, queries },
      close: async () => {
        try {
          await client.close();
        } finally {
          release();
        }
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}

/** Opens the database the configuration names and brings its schema up to date. */
export function openDatabase(config: Config): Promise<DatabaseHandle> {
  const url = config.DATABASE_URL;
  return url ? openPostgres({ ...config, DATABASE_URL: url }) : openPglite(config);
}
