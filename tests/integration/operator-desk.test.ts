import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "../../lib/accounts/audit.ts";
import { recordLicence, toActionState } from "../../lib/console/actions.ts";
import { signUp } from "../../lib/console/members.ts";
import { openDatabase, type DatabaseHandle } from "../../lib/db/index.ts";
import { auditLog, licences } from "../../lib/db/schema/index.ts";
import {
  approvePlan,
  decideLicence,
  declinePlan,
  openIncidentFor,
  updateIncidentFor,
} from "../../lib/ops/desk/actions.ts";
import { organisationFile, searchOrganisations } from "../../lib/ops/desk/organisations.ts";
import { licencesForDesk } from "../../lib/ops/desk/queue.ts";
import { createProductionKey } from "../../lib/keys/index.ts";
import { addOperator, removeOperator } from "../../lib/accounts/operators.ts";
import { requestPlan, setPlan } from "../../lib/accounts/plans.ts";
import { seedReferenceData } from "../../seeds/index.ts";
import { operatorSignIn, demoSignIn, enrolAuthenticatorOverHttp, signIn } from "../../testing/console.ts";
import { describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { migratedDataDir } from "../../testing/data-dirs.ts";
import { recordSecret } from "../../testing/logs.ts";
import { admin, startServer, type RunningServer } from "../../testing/processes.ts";

// The operators' desk: its rules, as its server actions reach them (what a forged POST would
// reach), and its pages over HTTP, which answer 404 to anyone who is not an operator now.

const PASSWORD = "correct horse battery staple";
const at = new Date();

describeEachBackend("the desk's rules on $name", (backend) => {
  const database = useTestDatabase(backend);
  let handle: DatabaseHandle;
  let operatorId: string;
  let memberId: string;
  let orgId: string;
  beforeAll(async () => {
    handle = await openDatabase(database().config);
    await seedReferenceData(handle.db);
    const added = await addOperator(handle.db, { email: "desk@service.example" }, OPERATOR);
    recordSecret(added.password);
    operatorId = added.operator.userId;
    const signedUp = await signUp(handle.db, {
      organisation: "Rules Odds",
      name: "Rita Rules",
      email: "rita@rules.example",
      password: PASSWORD,
    });
    memberId = signedUp.user.id;
    orgId = signedUp.organisation.id;
  });
  afterAll(() => handle?.close());

  const licenceOf = async () => (await handle.db.select().from(licences).where(eq(licences.orgId, orgId)))[0]!;

  it("refuses anyone who is not an operator as if there were nothing there, and changes nothing", async () => {
    await recordLicence(
      handle.db,
      memberId,
      { reference: "R/1", authority: "A", holder: "H", validUntil: "2099-12-31" },
      at,
    );
    const { version } = await licenceOf();
    for (const userId of [memberId, null, "usr_nobody"]) {
      const state = await toActionState("done", () =>
        decideLicence(handle.db, userId, "verify", { orgId, version: String(version) }, at),
      );
      expect(state).toEqual({ error: "Not found." });
    }
    expect((await licenceOf()).verification).toBe("pending");
  });

  it("decides exactly the record shown, and records the operator by name in both audit logs", async () => {
    const shown = await licenceOf();
    // The organisation changes its record after the operator's page was read.
    await recordLicence(
      handle.db,
      memberId,
      { reference: "R/2", authority: "A", holder: "H", validUntil: "2099-12-31" },
      at,
    );
    const refused = await toActionState("done", () =>
      decideLicence(handle.db, operatorId, "verify", { orgId, version: String(shown.version) }, at),
    );
    expect(refused).toEqual({ error: expect.stringMatching(/^The record changed: look again\. .*R\/2/) });
    expect((await licenceOf()).verification).toBe("pending");

    const now = await licenceOf();
    const noReason = await toActionState("done", () =>
      decideLicence(handle.db, operatorId, "reject", { orgId, version: String(now.version) }, at),
    );
    expect(noReason).toMatchObject({ fieldErrors: { reason: "Give a reason" } });
    expect(await decideLicence(handle.db, operatorId, "verify", { orgId, version: String(now.version) }, at)).toEqual({
      reference: "R/2",
      verification: "verified",
    });
    const [entry] = await handle.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.orgId, orgId), eq(auditLog.action, "licence.verified")));
    expect(entry).toMatchObject({ actor: "desk@service.example", actorUserId: operatorId, operator: true });
    expect((await licencesForDesk(handle.db)).find((l) => l.orgId === orgId)).toMatchObject({
      verification: "verified",
      organisation: { name: "Rules Odds" },
    });
  });

  it("approves or declines plan requests, and opens and resolves incidents, each audited", async () => {
    await requestPlan(handle.db, orgId, "enterprise", OPERATOR, at);
    const wrong = await toActionState("done", () => approvePlan(handle.db, operatorId, { orgId, plan: "pro" }));
    expect(wrong).toEqual({ error: expect.stringContaining("The record changed: look again") });
    expect(await declinePlan(handle.db, operatorId, { orgId, reason: "Not this quarter" }, at)).toBe("Enterprise");
    await requestPlan(handle.db, orgId, "enterprise", OPERATOR, at);
    expect(await approvePlan(handle.db, operatorId, { orgId, plan: "enterprise" })).toBe("Enterprise");

    const id = await openIncidentFor(
      handle.db,
      operatorId,
      { title: "Slow API", "component:api": "on", feeds: "tennis, soccer", text: "Looking", state: "identified" },
      at,
    );
    expect(
      await updateIncidentFor(handle.db, operatorId, { incidentId: id, state: "resolved", text: "Fixed" }, at),
    ).toBe("resolved");
    const refused = await toActionState("done", () =>
      openIncidentFor(handle.db, memberId, { title: "x", "component:api": "on", text: "x" }, at),
    );
    expect(refused).toEqual({ error: "Not found." });
    const actions = (await handle.db.select().from(auditLog).where(eq(auditLog.actorUserId, operatorId))).map(
      (e) => e.action,
    );
    expect(actions).toEqual(
      expect.arrayContaining(["plan.declined", "plan.approved", "incident.opened", "incident.updated"]),
    );
  });

  it("finds organisations by name, slug, member e-mail or key hint; their file never holds a key", async () => {
    await setPlan(handle.db, orgId, "starter", OPERATOR);
    const key = await createProductionKey(handle.db, orgId, { name: "Found" }, { actor: OPERATOR, at });
    recordSecret(key.key);
    for (const query of ["rules od", "rules-odds", "RITA@rules", key.summary.hint.slice(-4)]) {
      expect(
        (await searchOrganisations(handle.db, query)).map((o) => o.name),
        query,
      ).toContain("Rules Odds");
    }
    expect(await searchOrganisations(handle.db, "%")).toEqual([]);
    const file = await organisationFile(handle.db, orgId, at);
    expect(file.members.map((m) => m.email)).toEqual(["rita@rules.example"]);
    expect(file.keys.map((k) => k.hint)).toEqual([key.summary.hint]);
    expect(file.licenceHistory.map((e) => e.action)).toEqual(["licence.verified", "licence.set", "licence.set"]);
    expect(JSON.stringify(file)).not.toContain(key.key);
  });

  it("refuses an operator at once when removed, whatever their session holds", async () => {
    const second = await addOperator(handle.db, { email: "gone@service.example" }, OPERATOR);
    recordSecret(second.password);
    await removeOperator(handle.db, "gone@service.example", OPERATOR);
    const state = await toActionState("done", () =>
      openIncidentFor(handle.db, second.operator.userId, { title: "x", "component:api": "on", text: "x" }, at),
    );
    expect(state).toEqual({ error: "Not found." });
  });
});

describe("the desk over HTTP on the embedded default", () => {
  let server: RunningServer;
  let env: Record<string, string>;
  beforeAll(async () => {
    env = { DATA_DIR: migratedDataDir() };
    server = await startServer(env);
  });
  afterAll(() => server?.stop());

  const PAGES = [
    "/operator",
    "/operator/licences",
    "/operator/plans",
    "/operator/organisations",
    "/operator/incidents",
    "/operator/audit",
  ];
  const get = (path: string, session?: string | null) =>
    fetch(`${server.url}${path}`, { redirect: "manual", headers: session ? { cookie: session } : {} });

  it("answers 404 to the signed-out and to an organisation's admin, with nothing of the desk", async () => {
    const demo = demoSignIn(server.output());
    const { session } = await signIn(server.url, demo.email, demo.password);
    expect(session).not.toBeNull();
    // Said as for a page that does not exist, its title included.
    const titleOf = (html: string) => /<title>([^<]*)<\/title>/.exec(html)?.[1];
    const missing = titleOf(await (await get("/no-such-page")).text());
    for (const cookie of [null, session]) {
      for (const path of [...PAGES, "/operator/organisations/org_anything"]) {
        const answer = await get(path, cookie);
        expect(answer.status, `${path} ${cookie ? "as a member" : "signed out"}`).toBe(404);
        const html = await answer.text();
        expect(html).not.toMatch(/Operators(&#x27;|')? desk/);
        expect(titleOf(html), path).toBe(missing);
      }
    }
  });

  it("serves every page to the operator, whose console is the desk", async () => {
    const operator = operatorSignIn(server.output());
    const { session } = await signIn(server.url, operator.email, operator.password);
    // An operator always has a second factor: the first sign-in adds one before anything else.
    expect((await get("/operator", session)).status).not.toBe(200);
    await enrolAuthenticatorOverHttp(server.url, session!);
    for (const path of PAGES) {
      const answer = await get(path, session);
      expect(answer.status, path).toBe(200);
      expect(await answer.text()).toContain("Operators&#x27; desk");
    }
    // Signing in to the desk is on the operators' record.
    expect(await (await get("/operator/audit", session)).text()).toContain("signed in to the desk");
    const toDesk = await get("/console", session);
    expect(toDesk.status).toBe(307);
    expect(toDesk.headers.get("location")).toBe("/operator");
  });

  it("reads the operator anew on every page: removed with the CLI, refused at the next", async () => {
    const added = await admin<{ email: string; password: string }>(
      ["operator", "add", "--email", "temp@service.example"],
      env,
    );
    const { session } = await signIn(server.url, added.email, added.password);
    await enrolAuthenticatorOverHttp(server.url, session!);
    expect((await get("/operator", session)).status).toBe(200);
    await admin(["operator", "remove", "--email", "temp@service.example"], env);
    expect((await get("/operator", session)).status).toBe(404);
  });
});
