import { eq, sql } from "drizzle-orm";
import { OPERATOR } from "../lib/accounts/audit.ts";
import { loadConfig } from "../lib/config.ts";
import { openDatabase, rowsOf, type Database } from "../lib/db/index.ts";
import { organisations, plans } from "../lib/db/schema/index.ts";
import { createProductionKey, createSandboxKey } from "../lib/keys/index.ts";
import { reviewLicence, setLicence } from "../lib/accounts/licences.ts";
import { createOrganisation } from "../lib/accounts/organisations.ts";
import { setPlan } from "../lib/accounts/plans.ts";
import { seedReferenceData } from "../seeds/index.ts";
import { recordSecret } from "./logs.ts";

// Organisations and keys, made in this process with the functions the operator CLI runs for the
// same commands (the CLI itself is tested in admin-cli.test.ts): a CLI process per step cost the
// suites minutes. Every key made here is recorded as a secret, so that no server log may hold it.

export type CreatedKey = { id: string; key: string };

/**
 * Runs `work` on the database `env` names, opened and closed again around it: PGlite admits one
 * process at a time, so this is done before a server starts on it.
 */
export async function withDatabase<T>(env: Record<string, string>, work: (db: Database) => Promise<T>): Promise<T> {
  const handle = await openDatabase(loadConfig(env));
  try {
    return await work(handle.db);
  } finally {
    await handle.close();
  }
}

/** A licence, verified, as an organisation needs before it may hold a production key. */
async function license(db: Database, orgId: string, reference: string, holder: string, at: Date): Promise<void> {
  const licence = { reference, authority: "Test Authority", holder, validUntil: "2031-12-31" };
  await setLicence(db, orgId, licence, OPERATOR, at);
  await reviewLicence(db, orgId, "verify", { actor: OPERATOR, at });
}

/** Production keys of an organisation (named `name`, or unnamed), each recorded as a secret. */
export async function productionKeys(
  db: Database,
  orgId: string,
  count: number,
  at: Date,
  name?: string,
): Promise<CreatedKey[]> {
  const keys: CreatedKey[] = [];
  for (let i = 0; i < count; i++) {
    const created = await createProductionKey(db, orgId, name ? { name } : {}, { actor: OPERATOR, at });
    recordSecret(created.key);
    keys.push({ id: created.summary.id, key: created.key });
  }
  return keys;
}

export type OrganisationWithKeys = { orgId: string; sandbox: CreatedKey; production: CreatedKey };

/** An organisation with a verified licence, a plan, its sandbox key and one production key. */
export function organisationWithKeys(
  env: Record<string, string>,
  slug: string,
  options: { plan: string; sandboxSport: string },
): Promise<OrganisationWithKeys> {
  return withDatabase(env, (db) => organisationOn(db, loadConfig(env), slug, options));
}

/** organisationWithKeys on a database already open: for several at once. */
export async function organisationOn(
  db: Database,
  config: { SANDBOX_KEY_TTL_DAYS: number },
  slug: string,
  options: { plan: string; sandboxSport: string },
): Promise<OrganisationWithKeys> {
  await seedReferenceData(db);
  const at = new Date();
  const org = await createOrganisation(db, { name: `Org ${slug}`, slug }, OPERATOR);
  await license(db, org.id, `L-${slug}`, `${slug} Ltd`, at);
  await setPlan(db, org.id, options.plan, OPERATOR);
  const sandbox = await createSandboxKey(
    db,
    org.id,
    { sport: options.sandboxSport },
    { actor: OPERATOR, at, ttlDays: config.SANDBOX_KEY_TTL_DAYS },
  );
  recordSecret(sandbox.key);
  const [production] = await productionKeys(db, org.id, 1, at);
  return { orgId: org.id, sandbox: { id: sandbox.summary.id, key: sandbox.key }, production: production! };
}

/**
 * An organisation with a licence, on a plan of its own (limits a test or a benchmark chooses), with
 * one production key. Written before a server starts; the seed upserts the plans it knows and keeps
 * others, so the plan survives the server's own seed.
 */
export async function keyOnOwnPlan(
  db: Database,
  plan: typeof plans.$inferInsert,
  at: Date,
): Promise<{ key: string; keyId: string; orgId: string }> {
  await db.insert(plans).values(plan);
  const org = await createOrganisation(db, { name: `On ${plan.name}` }, OPERATOR);
  await license(db, org.id, `L-${plan.code}`, "Metered Ltd", at);
  await db.update(organisations).set({ planCode: plan.code }).where(eq(organisations.id, org.id));
  const [created] = await productionKeys(db, org.id, 1, at, "load");
  return { key: created!.key, keyId: created!.id, orgId: org.id };
}

/** The requests usage_monthly holds for a key, all months together. */
export async function storedRequests(db: Database, keyId: string): Promise<number> {
  const [row] = rowsOf<{ requests: string | number }>(
    await db.execute(sql`select coalesce(sum(requests), 0) as requests from usage_monthly where key_id = ${keyId}`),
  );
  return Number(row?.requests ?? 0);
}
