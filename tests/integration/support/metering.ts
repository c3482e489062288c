import { eq, sql } from "drizzle-orm";
import { OPERATOR } from "../../../lib/audit.ts";
import { rowsOf, type Database } from "../../../lib/db/index.ts";
import { organisations, plans } from "../../../lib/db/schema/index.ts";
import { createProductionKey } from "../../../lib/keys/index.ts";
import { reviewLicence, setLicence } from "../../../lib/licences.ts";
import { createOrganisation } from "../../../lib/organisations.ts";
import { recordSecret } from "./logs.ts";

// What the metering tests and bench/metering.ts share: a key whose limits they choose, and the
// count the database holds for it.

/**
 * An organisation with a licence, on a plan of its own, with one production key. Written before
 * a server starts (PGlite admits one process); the seed upserts the plans it knows and keeps
 * others, so the plan survives the server's own seed.
 */
export async function keyOnOwnPlan(
  db: Database,
  plan: typeof plans.$inferInsert,
  at: Date,
): Promise<{ key: string; keyId: string }> {
  await db.insert(plans).values(plan);
  const org = await createOrganisation(db, { name: `On ${plan.name}` }, OPERATOR);
  await setLicence(
    db,
    org.id,
    { reference: `L-${plan.code}`, authority: "Test Authority", holder: "Metered Ltd", validUntil: "2031-12-31" },
    OPERATOR,
    at,
  );
  await reviewLicence(db, org.id, "verify", { actor: OPERATOR, at });
  await db.update(organisations).set({ planCode: plan.code }).where(eq(organisations.id, org.id));
  const created = await createProductionKey(db, org.id, { name: "load" }, { actor: OPERATOR, at });
  recordSecret(created.key);
  return { key: created.key, keyId: created.summary.id };
}

/** The requests usage_monthly holds for a key, all months together. */
export async function storedRequests(db: Database, keyId: string): Promise<number> {
  const [row] = rowsOf<{ requests: string | number }>(
    await db.execute(sql`select coalesce(sum(requests), 0) as requests from usage_monthly where key_id = ${keyId}`),
  );
  return Number(row?.requests ?? 0);
}
