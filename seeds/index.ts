import { eq, sql } from "drizzle-orm";
import { SEED } from "../lib/accounts/audit.ts";
import { addDays, utcDay } from "../lib/clock.ts";
import type { Database } from "../lib/db/index.ts";
import { operators, organisations, plans, sports, SPORTS, users } from "../lib/db/schema/index.ts";
import { randomBase62 } from "../lib/ids.ts";
import { reviewLicence, setLicence } from "../lib/accounts/licences.ts";
import { addOperator } from "../lib/accounts/operators.ts";
import { createOrganisation } from "../lib/accounts/organisations.ts";
import { setPlan } from "../lib/accounts/plans.ts";
import { addMember } from "../lib/accounts/users.ts";
import { PLANS } from "./plans.ts";
import { SPORT_NAMES } from "./sports.ts";

export const DEMO_ADMIN_EMAIL = "admin@demo.example";
/** The operator created beside the demo organisation: the desk's first sign-in. */
export const FIRST_OPERATOR_EMAIL = "operator@demo.example";

type SignIn = { email: string; password: string };

export type SeedResult = {
  /** Set only when this run created the demo organisation: the one time its password is known. */
  demoAdmin: SignIn | null;
  /** The demo admin's e-mail, when that user exists. */
  demoAdminEmail: string | null;
  /** Set only when this run created the first operator, with the demo organisation. */
  operator: SignIn | null;
  /** The first operator's e-mail, when that operator exists. */
  operatorEmail: string | null;
};

// Instances starting together against one database seed one at a time.
const SEED_LOCK_ID = 4_180_221_908;

/** Sports and plans: every process that opens the database writes them, so they match the code. */
export async function seedReferenceData(db: Database): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${SEED_LOCK_ID})`);
    await writeReferenceData(tx);
  });
}

async function writeReferenceData(tx: Database): Promise<void> {
  for (const [ordinal, code] of SPORTS.entries()) {
    await tx
      .insert(sports)
      .values({ code, name: SPORT_NAMES[code], ordinal })
      .onConflictDoUpdate({ target: sports.code, set: { name: SPORT_NAMES[code], ordinal } });
  }
  for (const plan of PLANS) {
    const values = { ...plan, sports: [...plan.sports] };
    await tx.insert(plans).values(values).onConflictDoUpdate({ target: plans.code, set: values });
  }
}

/**
 * The server's seed: reference data and, when `demo` is set and the database has no organisation
 * yet, the demo organisation (a made-up licence on the Pro plan: for trying the service only).
 */
export async function seed(db: Database, at: Date, { demo = true }: { demo?: boolean } = {}): Promise<SeedResult> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${SEED_LOCK_ID})`);
    await writeReferenceData(tx);

    const [anyOrganisation] = await tx.select({ id: organisations.id }).from(organisations).limit(1);
    if (anyOrganisation || !demo) {
      const [demo] = await tx.select({ email: users.email }).from(users).where(eq(users.email, DEMO_ADMIN_EMAIL));
      const [operator] = await tx
        .select({ email: users.email })
        .from(operators)
        .innerJoin(users, eq(users.id, operators.userId))
        .where(eq(users.email, FIRST_OPERATOR_EMAIL));
      return {
        demoAdmin: null,
        demoAdminEmail: demo?.email ?? null,
        operator: null,
        operatorEmail: operator?.email ?? null,
      };
    }

    const organisation = await createOrganisation(tx, { name: "Demo Sports Media", slug: "demo" }, SEED);
    const password = randomBase62(16);
    await addMember(
      tx,
      { orgId: organisation.id, email: DEMO_ADMIN_EMAIL, name: "Demo Admin", password, role: "admin" },
      SEED,
    );
    await setLicence(
      tx,
      organisation.id,
      {
        reference: "DEMO-2026-001",
        authority: "Demo Gaming Authority",
        holder: "Demo Sports Media Ltd",
        territory: "Demo territory",
        validUntil: utcDay(addDays(at, 365)),
      },
      SEED,
      at,
    );
    // The demo is ours: its made-up licence counts as checked, so its production keys work. Its admin's
    // address is reserved (.example): a mail to it would only bounce, for a day of retries.
    await reviewLicence(tx, organisation.id, "verify", { actor: SEED, at, tellAdmins: false });
    await setPlan(tx, organisation.id, "pro", SEED);
    // Whoever tries the service runs it too: the desk's first operator, beside the demo.
    const operator = await addOperator(tx, { email: FIRST_OPERATOR_EMAIL, name: "First operator" }, SEED);
    return {
      demoAdmin: { email: DEMO_ADMIN_EMAIL, password },
      demoAdminEmail: DEMO_ADMIN_EMAIL,
      operator: { email: operator.operator.email, password: operator.password },
      operatorEmail: operator.operator.email,
    };
  });
}
