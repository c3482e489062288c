import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import postgres from "postgres";
import { loadConfig, type Config } from "../lib/config.ts";
import { randomBase62 } from "../lib/ids.ts";

/** A database of its own next to `adminUrl`, for a test file or a benchmark; `drop` removes it. */
export type ScratchDatabase = { env: Record<string, string>; config: Config; drop(): Promise<void> };

/** A fresh PostgreSQL database created next to `adminUrl`, so runs never collide; `settings` join its env. */
export async function freshPostgres(
  adminUrl: string,
  prefix = "svc_test",
  settings: Record<string, string> = {},
): Promise<ScratchDatabase> {
  const name = `${prefix}_${process.pid}_${randomBase62(8).toLowerCase()}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  // No demo unless a suite asks (SEED_DEMO=1, testing/databases.ts); its one-time sign-ins are then
  // written to the database's own DATA_DIR, where no other run reads them.
  const dataDir = mkdtempSync(path.join(tmpdir(), `${prefix}-`));
  const env = { DATABASE_URL: url.toString(), SEED_DEMO: "0", DATA_DIR: dataDir, ...settings };
  return {
    env,
    config: loadConfig(env),
    drop: async () => {
      const cleanup = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`drop database if exists "${name}" with (force)`);
      await cleanup.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
