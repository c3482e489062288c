import { createHash } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "../../lib/accounts/audit.ts";
import { addDays, utcDay } from "../../lib/clock.ts";
import { expectedMigrationCount, openDatabase, rowsOf, type DatabaseHandle } from "../../lib/db/index.ts";
import { consoleAccess } from "../../lib/console/access.ts";
import { apiKeys, auditLog, mailMessages, organisations, plans, sports, users } from "../../lib/db/schema/index.ts";
import { DomainError } from "../../lib/errors.ts";
import { startChangeBus } from "../../lib/bus/index.ts";
import { KeyCache, keysOf } from "../../lib/keys/cache.ts";
import { checkKeyFormat, hashKey } from "../../lib/keys/format.ts";
import {
  createProductionKey,
  createSandboxKey,
  listKeys,
  productionKeyBlockers,
  revokeKey,
} from "../../lib/keys/index.ts";
import { reviewLicence, setLicence } from "../../lib/accounts/licences.ts";
import { createOrganisation } from "../../lib/accounts/organisations.ts";
import { setPlan } from "../../lib/accounts/plans.ts";
import { operatorAccess } from "../../lib/accounts/operators.ts";
import { DEMO_ADMIN_EMAIL, FIRST_OPERATOR_EMAIL, seed } from "../../seeds/index.ts";
import { describeEachBackend, POSTGRES, useTestDatabase } from "../../testing/databases.ts";
import { turnsDuring } from "../../testing/event-loop.ts";

const at = new Date("2026-11-21T12:00:00Z");
const context = { actor: OPERATOR, at };

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

/** The constraint the database named when it refused a statement (drizzle keeps its error as the cause). */
async function violatedConstraint(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, "the statement was refused").toBeInstanceOf(Error);
  const cause = (error as Error).cause as { constraint?: string; message?: string } | undefined;
  return cause?.constraint ?? /constraint "([^"]+)"/.exec(cause?.message ?? (error as Error).message)?.[1];
}

describeEachBackend("data layer on $name", (backend) => {
  const database = useTestDatabase(backend);
  let handle: DatabaseHandle;

  beforeAll(async () => {
    handle = await openDatabase(database().config);
  });
  afterAll(() => handle?.close());

  /** An organisation that may have production keys: a verified licence and the starter plan. */
  async function licensedOnStarter(name: string) {
    const org = await createOrganisation(handle.db, { name }, OPERATOR);
    const licence = { reference: `L-${name}`, authority: "Test Authority", holder: name, validUntil: "2031-12-31" };
    await setLicence(handle.db, org.id, licence, OPERATOR, at);
    await reviewLicence(handle.db, org.id, "verify", context);
    await setPlan(handle.db, org.id, "starter", OPERATOR);
    return org;
  }

  it("lets the event loop turn between the statements of a transaction", async () => {
    // Counts turns of the event loop while a transaction of three statements runs: requests are
    // answered between them, whichever thread PGlite runs them on.
    const turns = await turnsDuring(() =>
      handle.db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        await tx.execute(sql`select 2`);
        await tx.execute(sql`select 3`);
      }),
    );
    expect(turns).toBeGreaterThanOrEqual(3);
  });

  it("applies the migrations once, and opening again changes nothing", async () => {
    const count = async (h: DatabaseHandle) =>
      rowsOf<{ n: number }>(await h.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`))[0]!.n;
    expect(await count(handle)).toBe(expectedMigrationCount());
    if (backend.name === "postgres") {
      const again = await openDatabase(database().config);
      expect(await count(again)).toBe(expectedMigrationCount());
      await again.close();
    }
  });

  it("seeds the seven sports, the four plans and, on an empty database only, the demo organisation and the first operator", async () => {
    const first = await seed(handle.db, at);
    expect(first.demoAdmin?.email).toBe(DEMO_ADMIN_EMAIL);
    expect(first.demoAdmin?.password).toMatch(/^[0-9A-Za-z]{16}$/);
    expect(first.operator?.email).toBe(FIRST_OPERATOR_EMAIL);
    expect(first.operator?.password).toMatch(/^[0-9A-Za-z]{20}$/);
    const second = await seed(handle.db, at);
    expect(second).toEqual({
      demoAdmin: null,
      demoAdminEmail: DEMO_ADMIN_EMAIL,
      operator: null,
      operatorEmail: FIRST_OPERATOR_EMAIL,
    });
    // The operator is an account of its own: a member of no organisation.
    const [operator] = await handle.db.select().from(users).where(eq(users.email, FIRST_OPERATOR_EMAIL));
    expect(await consoleAccess(handle.db, operator!.id)).toBeNull();
    expect(await operatorAccess(handle.db, operator!.id)).not.toBeNull();

    expect((await handle.db.select().from(sports)).map((s) => s.code).sort()).toEqual([
      "american-football",
      "baseball",
      "basketball",
      "cs2",
      "ice-hockey",
      "soccer",
      "tennis",
    ]);
    const planRows = await handle.db.select().from(plans);
    expect(planRows.map((p) => p.code).sort()).toEqual(["enterprise", "pro", "sandbox", "starter"]);
    expect(planRows.find((p) => p.code === "sandbox")).toMatchObject({
      monthlyQuota: 1000,
      requestsPerSecond: 2,
      concurrentStreams: 2,
    });
    expect(await handle.db.select().from(organisations)).toHaveLength(1);
    // The demo organisation can create production keys straight away.
    const [demo] = await handle.db.select().from(organisations).where(eq(organisations.slug, "demo"));
    expect(await productionKeyBlockers(handle.db, demo!.id, at)).toEqual([]);
    // Nothing is mailed: the demo admin's address is reserved, a mail to it would only bounce.
    expect(await handle.db.select().from(mailMessages)).toEqual([]);
  });

  it("gives an organisation one sandbox key, ever, stored only as its SHA-256", async () => {
    const org = await createOrganisation(handle.db, { name: "Sandbox Once" }, OPERATOR);
    const created = await createSandboxKey(handle.db, org.id, { sport: "tennis" }, { ...context, ttlDays: 30 });
    expect(checkKeyFormat(created.key)).toBe("sandbox");
    expect(created.summary).toMatchObject({
      environment: "sandbox",
      sports: ["tennis"],
      status: "active",
      requestsQuota: 1000,
    });
    expect(created.summary.expiresAt?.toISOString()).toBe(addDays(at, 30).toISOString());

    const [stored] = await handle.db.select().from(apiKeys).where(eq(apiKeys.id, created.summary.id));
    expect(stored!.keyHash).toBe(createHash("sha256").update(created.key).digest("hex"));
    expect(stored!.hint).toBe(`svc_sb_…${created.key.slice(-4)}`);
    const dump =
      JSON.stringify(rowsOf(await handle.db.execute(sql`select * from api_keys`))) +
      JSON.stringify(await handle.db.select().from(auditLog));
    expect(dump).not.toContain(created.key.slice(7));

    expect(
      (await refusal(createSandboxKey(handle.db, org.id, { sport: "soccer" }, { ...context, ttlDays: 30 }))).code,
    ).toBe("sandbox_key_exists");
    // Revoking does not make room for another: "once per organisation".
    await revokeKey(handle.db, created.summary.id, org.id, context);
    expect(
      (await refusal(createSandboxKey(handle.db, org.id, { sport: "soccer" }, { ...context, ttlDays: 30 }))).code,
    ).toBe("sandbox_key_exists");
  });

  it("lets only one of two simultaneous sandbox key creations through", async () => {
    const org = await createOrganisation(handle.db, { name: "Racing Sandbox" }, OPERATOR);
    const attempts = await Promise.allSettled(
      [1, 2, 3].map(() => createSandboxKey(handle.db, org.id, { sport: "soccer" }, { ...context, ttlDays: 30 })),
    );
    expect(attempts.filter((a) => a.status === "fulfilled")).toHaveLength(1);
    for (const attempt of attempts.filter((a) => a.status === "rejected")) {
      expect((attempt as PromiseRejectedResult).reason).toMatchObject({ code: "sandbox_key_exists" });
    }
    expect(await listKeys(handle.db, org.id, at)).toHaveLength(1);
  });

  it("creates production keys only with a valid licence and a plan, and says what is missing", async () => {
    const org = await createOrganisation(handle.db, { name: "Needs Paperwork" }, OPERATOR);
    const missingBoth = await refusal(createProductionKey(handle.db, org.id, {}, context));
    expect(missingBoth.code).toBe("licence_missing");
    expect(missingBoth.message).toMatch(/No licence record.*No plan/);

    await setPlan(handle.db, org.id, "starter", OPERATOR);
    const lapsed = {
      reference: "L-OLD",
      authority: "Authority",
      holder: "Holder Ltd",
      validFrom: "2025-01-01",
      validUntil: utcDay(addDays(at, -1)),
    };
    await setLicence(handle.db, org.id, lapsed, OPERATOR, at);
    await reviewLicence(handle.db, org.id, "verify", context);
    const refusedLapsed = await refusal(createProductionKey(handle.db, org.id, {}, context));
    expect(refusedLapsed.code).toBe("licence_not_valid");
    expect(refusedLapsed.message).toContain("lapsed");

    // Valid through the whole of its last day.
    await setLicence(handle.db, org.id, { ...lapsed, reference: "L-NEW", validUntil: utcDay(at) }, OPERATOR, at);
    await reviewLicence(handle.db, org.id, "verify", context);
    const created = await createProductionKey(handle.db, org.id, { name: "Web app" }, context);
    expect(checkKeyFormat(created.key)).toBe("production");
    expect(created.summary).toMatchObject({
      environment: "production",
      name: "Web app",
      sports: ["soccer", "basketball", "tennis"],
      requestsQuota: 100_000,
      expiresAt: null,
    });
    const licenceHistory = await handle.db.select().from(auditLog).where(eq(auditLog.action, "licence.set"));
    expect(licenceHistory.filter((e) => e.orgId === org.id).map((e) => e.details.reference)).toEqual([
      "L-OLD",
      "L-NEW",
    ]);
  });

  it("keeps the most recently used keys in its cache when full, evicting the least recently used one", async () => {
    const org = await licensedOnStarter("Cached Ltd");
    const hashes: string[] = [];
    for (let i = 0; i < 4; i++) {
      hashes.push(hashKey((await createProductionKey(handle.db, org.id, { name: `k${i}` }, context)).key));
    }
    const cache = new KeyCache(keysOf(handle.db), { maxEntries: 3 });
    // A cached key is answered at once, and counts as used; one that is not is read (a promise).
    const cached = (hash: string) => !(cache.resolve(hash) instanceof Promise);
    for (const hash of hashes.slice(0, 3)) await cache.resolve(hash);
    await cache.resolve(hashes[3]!); // full: the least recently used, the first, makes room
    expect([hashes[1], hashes[2], hashes[3]].map((h) => cached(h!))).toEqual([true, true, true]);
    const first = cache.resolve(hashes[0]!);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toMatchObject({ orgId: org.id }); // read again; the second, now least recent, goes
    expect([hashes[2], hashes[3], hashes[0]].map((h) => cached(h!))).toEqual([true, true, true]);
    const second = cache.resolve(hashes[1]!);
    expect(second).toBeInstanceOf(Promise);
    await second;
  });

  it("drops an organisation's cached keys when its plan changes, through the change bus", async () => {
    const org = await licensedOnStarter("Plan Changer");
    const hash = hashKey((await createProductionKey(handle.db, org.id, {}, context)).key);
    const bus = await startChangeBus(handle);
    const cache = new KeyCache(keysOf(handle.db));
    const unfollow = await cache.follow(bus);
    try {
      expect(await cache.resolve(hash)).toMatchObject({ planCode: "starter" });
      const dropped = new Promise<void>((resolve) =>
        cache.onChange((change) => {
          if (change && "orgId" in change && change.orgId === org.id) resolve();
        }),
      );
      await setPlan(handle.db, org.id, "pro", OPERATOR);
      await dropped;
      const next = cache.resolve(hash);
      expect(next).toBeInstanceOf(Promise);
      expect(await next).toMatchObject({ planCode: "pro" });
    } finally {
      unfollow();
      await bus.close();
    }
  });

  it("refuses a production plan that does not exist and the sandbox plan as a choice", async () => {
    const org = await createOrganisation(handle.db, { name: "Plan Chooser" }, OPERATOR);
    expect((await refusal(setPlan(handle.db, org.id, "gold", OPERATOR))).code).toBe("not_found");
    expect((await refusal(setPlan(handle.db, org.id, "sandbox", OPERATOR))).code).toBe("not_found");
  });

  it("revokes within the organisation only, once, and keeps the record", async () => {
    const owner = await createOrganisation(handle.db, { name: "Key Owner" }, OPERATOR);
    const other = await createOrganisation(handle.db, { name: "Someone Else" }, OPERATOR);
    const created = await createSandboxKey(handle.db, owner.id, { sport: "cs2" }, { ...context, ttlDays: 30 });

    expect((await refusal(revokeKey(handle.db, created.summary.id, other.id, context))).code).toBe("not_found");
    expect((await listKeys(handle.db, owner.id, at))[0]!.status).toBe("active");

    const first = await revokeKey(handle.db, created.summary.id, owner.id, context);
    expect(first.alreadyRevoked).toBe(false);
    expect(first.summary.status).toBe("revoked");
    const second = await revokeKey(handle.db, created.summary.id, null, { ...context, at: addDays(at, 1) });
    expect(second.alreadyRevoked).toBe(true);
    expect(second.summary.revokedAt?.toISOString()).toBe(at.toISOString());
    const audit = await handle.db.select().from(auditLog).where(eq(auditLog.target, created.summary.id));
    expect(audit.map((e) => e.action).sort()).toEqual(["key.created", "key.revoked"]);
  });

  it("reports a sandbox key past its expiry as expired", async () => {
    const org = await createOrganisation(handle.db, { name: "Short Lived" }, OPERATOR);
    const created = await createSandboxKey(handle.db, org.id, { sport: "baseball" }, { ...context, ttlDays: 1 });
    expect((await listKeys(handle.db, org.id, addDays(at, 1)))[0]!.status).toBe("expired");
    expect(created.summary.status).toBe("active");
  });

  it("keeps the schema's own guarantees when code is bypassed", async () => {
    const org = await createOrganisation(handle.db, { name: "Raw Writer" }, OPERATOR);
    const insert = (values: Partial<typeof apiKeys.$inferInsert>) =>
      handle.db.insert(apiKeys).values({
        id: `key_raw${Math.random()}`,
        orgId: org.id,
        environment: "sandbox",
        keyHash: `${Math.random()}`,
        hint: "x",
        ...values,
      });
    // A sandbox key without its sport or expiry is not a sandbox key.
    expect(await violatedConstraint(insert({ sport: null, expiresAt: at }))).toBe("api_keys_sandbox_shape_check");
    expect(await violatedConstraint(insert({ environment: "staging" as never, sport: "soccer", expiresAt: at }))).toBe(
      "api_keys_environment_check",
    );
  });
});

describe.runIf(POSTGRES)("PostgreSQL with several instances", () => {
  it("brings up two instances opening a fresh database at the same moment", async () => {
    const database = await POSTGRES!.create();
    try {
      const [a, b] = await Promise.all([openDatabase(database.config), openDatabase(database.config)]);
      const [seedA, seedB] = await Promise.all([seed(a.db, at), seed(b.db, at)]);
      // Exactly one of them created the demo organisation.
      expect([seedA.demoAdmin, seedB.demoAdmin].filter(Boolean)).toHaveLength(1);
      expect(await a.db.select().from(organisations)).toHaveLength(1);
      await Promise.all([a.close(), b.close()]);
    } finally {
      await database.drop();
    }
  });
});
