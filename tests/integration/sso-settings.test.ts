import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { OPERATOR } from "../../lib/accounts/audit.ts";
import { sealingKey, unseal } from "../../lib/accounts/factors/sealing.ts";
import { addOperator, operatorAccess } from "../../lib/accounts/operators.ts";
import { setPlan } from "../../lib/accounts/plans.ts";
import { listDomains, readConnection, TXT_PREFIX } from "../../lib/accounts/sso/connections.ts";
import { toActionState, type ActionState, type Fields } from "../../lib/console/actions.ts";
import { auditSentence, NO_AUDIT_NAMES } from "../../lib/console/audit-sentences.ts";
import { addMember } from "../../lib/accounts/users.ts";
import { signUp } from "../../lib/console/members.ts";
import {
  addSsoDomainFor,
  removeSsoDomainFor,
  saveSsoConnectionFor,
  verifySsoDomainFor,
} from "../../lib/console/sso.ts";
import { openDatabase, type DatabaseHandle } from "../../lib/db/index.ts";
import { auditLog, ssoConnections, ssoDomains } from "../../lib/db/schema/index.ts";
import { verifySsoDomainByOperator } from "../../lib/ops/desk/actions.ts";
import { seedReferenceData } from "../../seeds/index.ts";
import { signInWithPassword } from "../../lib/accounts/sign-in.ts";
import { openSession } from "../../lib/accounts/factors/gate.ts";
import { describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { startProvider, type TestProvider } from "../../testing/oidc.ts";

// An organisation's single sign-on settings, called as the server actions call them: the session's
// user id and the form's raw fields. The provider is real (its discovery is checked on saving).

const PASSWORD = "correct horse battery staple";
const KEY = sealingKey("the settings suite's secret");
const at = new Date("2026-11-28T12:00:00Z");
const access = { allowPrivate: true };

function refused<T>(state: ActionState<T>): string {
  if (!state || !("error" in state)) throw new Error(`expected a refusal, got ${JSON.stringify(state)}`);
  return state.error;
}

describeEachBackend("single sign-on settings on $name", (backend) => {
  const database = useTestDatabase(backend);
  let handle: DatabaseHandle;
  let db: DatabaseHandle["db"];
  let provider: TestProvider;
  let counter = 0;

  beforeAll(async () => {
    handle = await openDatabase(database().config);
    db = handle.db;
    await seedReferenceData(db);
    provider = await startProvider("http://127.0.0.1:9/api/sso/callback");
  });
  afterAll(async () => {
    await provider?.close();
    await handle?.close();
  });

  async function organisation(label: string, plan: "enterprise" | "pro" = "enterprise") {
    counter += 1;
    const { organisation, user } = await signUp(db, {
      organisation: `${label} ${counter}`,
      name: "Admin",
      email: `admin-${counter}@${label.toLowerCase()}.example`,
      password: PASSWORD,
    });
    await setPlan(db, organisation.id, plan, OPERATOR);
    const viewer = await addMember(
      db,
      { orgId: organisation.id, email: `viewer-${counter}@x.example`, name: "V", password: PASSWORD, role: "viewer" },
      OPERATOR,
    );
    return { orgId: organisation.id, adminId: user.id, viewerId: viewer.id };
  }

  const settings = (more: Fields = {}): Fields => ({
    issuer: provider.issuer,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    joinRole: "admin",
    ...more,
  });
  const save = (userId: string | null, fields: Fields) =>
    toActionState("done", () => saveSsoConnectionFor(db, userId, fields, { at, key: KEY, access }));

  it("keeps the client secret sealed, keeps it when the field is left empty, and audits each change in words", async () => {
    const org = await organisation("Sealed");
    expect(await save(org.adminId, settings())).toMatchObject({ ok: "done" });
    const [row] = await db.select().from(ssoConnections).where(eq(ssoConnections.orgId, org.orgId));
    expect(row!.clientSecret).not.toContain(provider.clientSecret);
    expect(unseal(KEY, row!.clientSecret)).toBe(provider.clientSecret);
    expect(unseal(sealingKey("another secret"), row!.clientSecret)).toBeNull();

    const withoutSecret = settings({ requireSso: "on", joinRole: "viewer" });
    delete withoutSecret.clientSecret;
    expect(await save(org.adminId, withoutSecret)).toMatchObject({ ok: "done" });
    expect(await readConnection(db, org.orgId)).toMatchObject({ joinRole: "viewer", requireSso: true });
    const [again] = await db.select().from(ssoConnections).where(eq(ssoConnections.orgId, org.orgId));
    expect(unseal(KEY, again!.clientSecret)).toBe(provider.clientSecret);

    const entries = await db.select().from(auditLog).where(eq(auditLog.orgId, org.orgId));
    const sentences = entries.filter((e) => e.action === "sso.configured").map((e) => auditSentence(e, NO_AUDIT_NAMES));
    expect(sentences).toEqual([
      `set up single sign-on through ${provider.issuer} (client id ${provider.clientId}, a new client secret): new members join as an admin, and passwords still work`,
      `set up single sign-on through ${provider.issuer} (client id ${provider.clientId}): new members join as a viewer, and members other than admins must sign in through it`,
    ]);
  });

  it("refuses an issuer that is not a provider, plain http where private issuers are not allowed, and a plan without SSO", async () => {
    const org = await organisation("Issuer");
    expect(refused(await save(org.adminId, settings({ issuer: `${provider.issuer}/nothing-here` })))).toMatch(
      /could not be discovered/,
    );
    const strict = await toActionState("done", () =>
      saveSsoConnectionFor(db, org.adminId, settings(), { at, key: KEY, access: { allowPrivate: false } }),
    );
    expect(refused(strict)).toBe("The issuer URL must be an https:// URL.");
    const pro = await organisation("Pro", "pro");
    expect(refused(await save(pro.adminId, settings()))).toMatch(/Enterprise plan/);
    expect(
      refused(await toActionState("done", () => addSsoDomainFor(db, pro.adminId, { domain: "pro.example" }))),
    ).toMatch(/Enterprise plan/);
  });

  it("verifies a domain by its TXT record only, and lets one organisation at most have it verified", async () => {
    const org = await organisation("Dns");
    const added = await toActionState("done", () => addSsoDomainFor(db, org.adminId, { domain: " Dns.Example. " }));
    expect(added).toMatchObject({ ok: "done", data: { domain: "dns.example" } });
    const token = (added as { data: { token: string } }).data.token;
    const lookups: string[] = [];
    const records =
      (answer: string[][]) =>
      async (domain: string): Promise<string[][]> => {
        lookups.push(domain);
        return answer;
      };
    const verify = (userId: string, answer: string[][]) =>
      toActionState("done", () =>
        verifySsoDomainFor(db, userId, { domain: "dns.example" }, { at, lookup: records(answer) }),
      );
    expect(refused(await verify(org.adminId, [["v=spf1 -all"], [`${TXT_PREFIX}not-the-token`]]))).toMatch(
      /No TXT record "sports-data-sso=\w+" was found on dns\.example/,
    );
    expect((await listDomains(db, org.orgId))[0]!.verifiedAt).toBeNull();
    // A record over 255 characters arrives in chunks.
    const record = `${TXT_PREFIX}${token}`;
    expect(await verify(org.adminId, [[record.slice(0, 10), record.slice(10)]])).toMatchObject({ ok: "done" });
    expect(lookups).toEqual(["dns.example", "dns.example"]);
    expect(await listDomains(db, org.orgId)).toMatchObject([{ domain: "dns.example", verifiedBy: "dns" }]);

    // Another organisation may claim it, and cannot verify it, by DNS or an operator.
    const rival = await organisation("Rival");
    const claimed = await toActionState("done", () => addSsoDomainFor(db, rival.adminId, { domain: "dns.example" }));
    const rivalToken = (claimed as { data: { token: string } }).data.token;
    expect(
      refused(
        await toActionState("done", () =>
          verifySsoDomainFor(
            db,
            rival.adminId,
            { domain: "dns.example" },
            { at, lookup: records([[`${TXT_PREFIX}${rivalToken}`]]) },
          ),
        ),
      ),
    ).toBe("dns.example is verified by another organisation.");
    const { operator } = await addOperator(db, { email: `operator-${counter}@desk.example` }, OPERATOR);
    const desk = await toActionState("done", () =>
      verifySsoDomainByOperator(db, operator.userId, { orgId: rival.orgId, domain: "dns.example" }, { at }),
    );
    expect(refused(desk)).toBe("dns.example is verified by another organisation.");
  });

  it("lets an operator verify a domain on the desk, in both logs, and no one else", async () => {
    const org = await organisation("Desk");
    await addSsoDomainFor(db, org.adminId, { domain: "desk.example" });
    const { operator } = await addOperator(db, { email: `operator-${counter}@desk.example` }, OPERATOR);
    for (const userId of [org.adminId, null]) {
      const attempt = await toActionState("done", () =>
        verifySsoDomainByOperator(db, userId, { orgId: org.orgId, domain: "desk.example" }, { at }),
      );
      expect(refused(attempt)).toBe("Not found.");
    }
    expect((await listDomains(db, org.orgId))[0]!.verifiedAt).toBeNull();
    expect(await operatorAccess(db, operator.userId)).not.toBeNull();
    const done = await toActionState("done", () =>
      verifySsoDomainByOperator(db, operator.userId, { orgId: org.orgId, domain: "desk.example" }, { at }),
    );
    expect(done).toMatchObject({ ok: "done" });
    const [entry] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.orgId, org.orgId), eq(auditLog.action, "sso.domain_verified")));
    expect(entry).toMatchObject({ actorUserId: operator.userId, operator: true, target: "desk.example" });
    expect(auditSentence(entry!, NO_AUDIT_NAMES)).toBe(
      "verified the domain desk.example for single sign-on on the operators' desk",
    );
  });

  it("with “require SSO”, refuses the password of members in a verified domain only; an admin keeps it, with a second factor due", async () => {
    const org = await organisation("Strict");
    const inDomain = await addMember(
      db,
      { orgId: org.orgId, email: `member-${counter}@strict.example`, name: "M", password: PASSWORD, role: "viewer" },
      OPERATOR,
    );
    await save(org.adminId, settings({ requireSso: "on" }));
    const password = (email: string) =>
      signInWithPassword(db, { email, password: PASSWORD, address: "192.0.2.40" }, at, { pause: async () => {} });
    // Until the domain is verified, the password still works.
    expect(await password(`member-${counter}@strict.example`)).toMatchObject({ ok: true });
    await addSsoDomainFor(db, org.adminId, { domain: "strict.example" });
    await verifySsoDomainByOperator(
      db,
      (await addOperator(db, { email: `operator-${counter}@strict-desk.example` }, OPERATOR)).operator.userId,
      { orgId: org.orgId, domain: "strict.example" },
      { at },
    );
    expect(await password(`member-${counter}@strict.example`)).toEqual({ ok: false, reason: "sso_required" });
    // A member outside the domain (the viewer's address is at x.example) and the admin keep their password.
    expect(await password(`viewer-${counter}@x.example`)).toMatchObject({ ok: true });
    expect(await password(`admin-${counter}@strict.example`)).toMatchObject({ ok: true, userId: org.adminId });
    expect((await openSession(db, org.adminId, at)).stage).toBe("enrol");
    expect((await openSession(db, inDomain.id, at)).stage).toBe("done");
  });

  it("refuses every single sign-on setting to a viewer, to another organisation's admin and when signed out, changing nothing", async () => {
    const target = await organisation("Target");
    await save(target.adminId, settings());
    await addSsoDomainFor(db, target.adminId, { domain: "target.example" });
    await addSsoDomainFor(db, target.adminId, { domain: "target-two.example" });
    const intruder = await organisation("Intruder");
    const actions: Array<{ name: string; run: (userId: string | null) => Promise<unknown> }> = [
      {
        name: "saveSsoConnectionFor",
        run: (u) =>
          saveSsoConnectionFor(db, u, settings({ orgId: target.orgId, clientId: "evil" }), { at, key: KEY, access }),
      },
      {
        name: "addSsoDomainFor",
        run: (u) => addSsoDomainFor(db, u, { domain: "sneaky.example", orgId: target.orgId }),
      },
      {
        name: "verifySsoDomainFor",
        run: (u) =>
          verifySsoDomainFor(db, u, { domain: "target.example", orgId: target.orgId }, { at, lookup: async () => [] }),
      },
      { name: "removeSsoDomainFor", run: (u) => removeSsoDomainFor(db, u, { domain: "target-two.example" }) },
    ];
    const state = async () =>
      JSON.stringify([
        await readConnection(db, target.orgId),
        await db.select().from(ssoDomains).where(eq(ssoDomains.orgId, target.orgId)),
      ]);
    const before = await state();
    for (const { name, run } of actions) {
      expect(refused(await toActionState("done", () => run(target.viewerId))), name).toMatch(/^Only an admin/);
      expect(refused(await toActionState("done", () => run(null))), name).toMatch(/sign in again/);
      // Another organisation's admin acts on its own organisation only: the target's domains are not found there.
      await toActionState("done", () => run(intruder.adminId));
      expect(await state(), `${name} by another organisation's admin`).toBe(before);
    }
    // What the intruder did landed in its own organisation.
    expect((await readConnection(db, intruder.orgId))?.clientId).toBe("evil");
    expect((await listDomains(db, intruder.orgId)).map((d) => d.domain)).toEqual(["sneaky.example"]);
  });
});
