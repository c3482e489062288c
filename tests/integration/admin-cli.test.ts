import { afterAll, beforeAll, expect, it } from "vitest";
import { desc, eq } from "drizzle-orm";
import { OPERATOR } from "../../lib/accounts/audit.ts";
import { openDatabase, type DatabaseHandle } from "../../lib/db/index.ts";
import { auditLog, organisations } from "../../lib/db/schema/index.ts";
import { checkKeyFormat } from "../../lib/keys/format.ts";
import { operatorAccess } from "../../lib/accounts/operators.ts";
import { requestPlan } from "../../lib/accounts/plans.ts";
import { addMember } from "../../lib/accounts/users.ts";
import { seedReferenceData } from "../../seeds/index.ts";
import { adminCli } from "../../testing/admin.ts";
import { describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { runAdmin as runAdminProcess } from "../../testing/processes.ts";

type Key = { id: string; key?: string; environment: string; status: string; sports: string[]; hint: string };

// The commands run in-process on a database the suite holds open: each as a process of its own
// would open and migrate the database again. The last case runs the real `npm run admin` process.
describeEachBackend("npm run admin on $name", (backend) => {
  const database = useTestDatabase(backend);
  let handle: DatabaseHandle;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await handle.close();
  };
  beforeAll(async () => {
    handle = await openDatabase(database().config);
    await seedReferenceData(handle.db);
  });
  // The last case closes it early, to let the CLI's own process open the embedded database.
  afterAll(close);
  const cli = adminCli(() => handle.db);
  const admin = <T = Record<string, unknown>>(args: string[]) => cli.json<T>(args);
  const runAdmin = (args: string[]) => cli.run(args);

  it("takes an organisation from creation to both kinds of key, and refuses a second sandbox key", async () => {
    const org = await admin<{ id: string; slug: string }>(["org", "create", "--name", "Acme Odds"]);
    expect(org).toMatchObject({ slug: "acme-odds" });
    expect(org.id).toMatch(/^org_[0-9A-Za-z]{20}$/);

    const early = await runAdmin(["key", "create", "--org", "acme-odds", "--env", "production"]);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain("No licence record");
    expect(early.stderr).toContain("No plan");

    const licence = await admin([
      "licence",
      "set",
      "--org",
      org.id,
      "--reference",
      "MGA/B2B/123",
      "--authority",
      "Malta Gaming Authority",
      "--holder",
      "Acme Odds Ltd",
      "--valid-until",
      "2099-12-31",
    ]);
    expect(licence).toMatchObject({
      reference: "MGA/B2B/123",
      validUntil: "2099-12-31",
      orgId: org.id,
      verification: "pending",
    });
    await admin(["licence", "verify", "--org", "acme-odds", "--reference", "MGA/B2B/123"]);

    const plans = await admin<{ code: string }[]>(["plan", "list"]);
    expect(plans.map((p) => p.code)).toEqual(["sandbox", "starter", "pro", "enterprise"]);
    await admin(["plan", "set", "--org", "acme-odds", "--plan", "starter"]);

    const sandbox = await admin<Key>(["key", "create", "--org", "acme-odds", "--env", "sandbox", "--sport", "tennis"]);
    expect(checkKeyFormat(sandbox.key!)).toBe("sandbox");
    expect(sandbox).toMatchObject({ environment: "sandbox", sports: ["tennis"], status: "active" });

    const second = await runAdmin(["key", "create", "--org", "acme-odds", "--env", "sandbox", "--sport", "soccer"]);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/already has its sandbox key .*one sandbox key, ever/);
    const secondJson = await runAdmin([
      "key",
      "create",
      "--org",
      "acme-odds",
      "--env",
      "sandbox",
      "--sport",
      "soccer",
      "--json",
    ]);
    expect(secondJson.code).toBe(1);
    expect(JSON.parse(secondJson.stdout)).toMatchObject({ error: { code: "sandbox_key_exists" } });

    const text = await runAdmin(["key", "create", "--org", "acme-odds", "--env", "production", "--name", "Web app"]);
    expect(text.code).toBe(0);
    const printed = /\b(svc_sk_[0-9A-Za-z]{32})\b/.exec(text.stdout)?.[1];
    expect(checkKeyFormat(printed!)).toBe("production");
    expect(text.stdout).toContain("only time the key is shown");

    const listed = await admin<Key[]>(["key", "list", "--org", "acme-odds"]);
    expect(listed).toHaveLength(2);
    expect(listed.every((k) => k.key === undefined)).toBe(true);
    expect(JSON.stringify(listed)).not.toContain(printed!.slice(7, 30));
    const production = listed.find((k) => k.environment === "production")!;
    expect(production).toMatchObject({
      sports: ["soccer", "basketball", "tennis"],
      hint: `svc_sk_…${printed!.slice(-4)}`,
    });

    const revoked = await admin<Key & { alreadyRevoked: boolean }>(["key", "revoke", "--id", production.id]);
    expect(revoked).toMatchObject({ status: "revoked", alreadyRevoked: false });
    const listedAfter = await admin<Key[]>(["key", "list", "--org", org.id]);
    expect(listedAfter.find((k) => k.id === production.id)?.status).toBe("revoked");
  });

  it("verifies, rejects with a reason and revokes licences, approves plan requests, and logs each", async () => {
    const org = await admin<{ id: string }>(["org", "create", "--name", "Review Odds"]);
    const record = (reference: string) =>
      admin([
        "licence",
        "set",
        "--org",
        "review-odds",
        "--reference",
        reference,
        "--authority",
        "Gibraltar Licensing Authority",
        "--holder",
        "Review Odds Ltd",
        "--valid-until",
        "2099-12-31",
      ]);
    await record("GLA/1");
    await admin(["plan", "set", "--org", "review-odds", "--plan", "starter"]);

    const noReason = await runAdmin(["licence", "reject", "--org", "review-odds", "--json"]);
    expect(noReason.code).toBe(2);
    expect(JSON.parse(noReason.stdout)).toMatchObject({ error: { code: "usage", message: /--reason is required/ } });
    expect(
      await admin(["licence", "reject", "--org", "review-odds", "--reason", "Not in the authority's register"]),
    ).toMatchObject({
      reference: "GLA/1",
      verification: "rejected",
      reviewReason: "Not in the authority's register",
    });
    const refused = await runAdmin(["key", "create", "--org", "review-odds", "--env", "production", "--json"]);
    expect(JSON.parse(refused.stdout)).toMatchObject({
      error: { code: "licence_not_valid", message: /GLA\/1 was rejected on .*Not in the authority's register/ },
    });
    const again = await runAdmin(["licence", "verify", "--org", "review-odds", "--reference", "GLA/1", "--json"]);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toMatchObject({ error: { code: "conflict", message: /GLA\/1 is rejected/ } });

    await record("GLA/2");
    expect(await admin(["licence", "verify", "--org", "review-odds", "--reference", "GLA/2"])).toMatchObject({
      verification: "verified",
    });
    await admin(["key", "create", "--org", "review-odds", "--env", "production"]);
    const text = await runAdmin(["licence", "revoke", "--org", "review-odds"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("Licence GLA/2 of Review Odds revoked: its production keys are refused from now on.");
    const listed = await admin<{ reference: string; verification: string }[]>([
      "licence",
      "list",
      "--status",
      "revoked",
    ]);
    expect(listed.map((l) => l.reference)).toEqual(["GLA/2"]);

    const noRequest = await runAdmin(["plan", "approve", "--org", "review-odds", "--json"]);
    expect(JSON.parse(noRequest.stdout)).toMatchObject({ error: { code: "not_found", message: /no plan request/ } });

    await requestPlan(handle.db, org.id, "enterprise", { userId: null, label: "admin@review.example" }, new Date());
    expect(await admin(["plan", "approve", "--org", "review-odds"])).toMatchObject({
      plan: { code: "enterprise" },
    });

    const actions = (await handle.db.select().from(auditLog).where(eq(auditLog.orgId, org.id))).map((e) => [
      e.action,
      e.actor,
    ]);
    expect(actions).toEqual(
      expect.arrayContaining([
        ["licence.rejected", OPERATOR.label],
        ["licence.verified", OPERATOR.label],
        ["licence.revoked", OPERATOR.label],
        ["plan.requested", "admin@review.example"],
        ["plan.approved", OPERATOR.label],
      ]),
    );
  });

  it("verifies only the record it names: one changed since `licence list` printed it is refused", async () => {
    await admin(["org", "create", "--name", "Swap Odds"]);
    const record = (reference: string, holder = "Swap Odds Ltd") =>
      admin<{ version: number }>([
        "licence",
        "set",
        "--org",
        "swap-odds",
        "--reference",
        reference,
        "--authority",
        "Malta Gaming Authority",
        "--holder",
        holder,
        "--valid-until",
        "2099-12-31",
      ]);
    await record("MGA/REAL/1");
    const [listed] = (
      await admin<{ orgId: string; reference: string; version: number }[]>(["licence", "list", "--status", "pending"])
    ).filter((l) => l.reference === "MGA/REAL/1");
    expect(listed!.version).toBe(1);
    expect((await runAdmin(["licence", "list", "--status", "pending"])).stdout).toMatch(
      /MGA\/REAL\/1 {2}v1 {2}pending/,
    );

    // Naming nothing is refused before anything is read.
    const unnamed = await runAdmin(["licence", "verify", "--org", "swap-odds"]);
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toContain("name the record you checked with --reference");

    // The organisation swaps in a made-up reference after the operator's look.
    await record("MADE/UP/9");
    const byReference = await runAdmin([
      "licence",
      "verify",
      "--org",
      "swap-odds",
      "--reference",
      "MGA/REAL/1",
      "--json",
    ]);
    expect(byReference.code).toBe(1);
    expect(JSON.parse(byReference.stdout)).toMatchObject({
      error: {
        code: "record_changed",
        message: expect.stringMatching(/^The record changed: look again\. .*MADE\/UP\/9 \(version 2\)/),
      },
    });
    // The same reference with another holder is another record: the version tells them apart.
    await record("MGA/REAL/1", "Someone Else Ltd");
    const byVersion = await runAdmin(["licence", "verify", "--org", "swap-odds", "--version", "1"]);
    expect(byVersion.code).toBe(1);
    expect(byVersion.stderr).toMatch(/the record changed: look again/i);
    expect(await admin(["licence", "list", "--status", "verified"])).not.toContainEqual(
      expect.objectContaining({ orgId: listed!.orgId }),
    );

    expect(
      await admin(["licence", "verify", "--org", "swap-odds", "--version", "3", "--reference", "MGA/REAL/1"]),
    ).toMatchObject({
      verification: "verified",
      holder: "Someone Else Ltd",
      version: 3,
    });
    const [verified] = await handle.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "licence.verified"))
      .orderBy(desc(auditLog.id))
      .limit(1);
    expect(verified).toMatchObject({
      orgId: listed!.orgId,
      operator: true,
      details: expect.objectContaining({ version: 3 }),
    });
  });

  it("declines a plan request with a reason, and approves only the plan it names", async () => {
    const org = await admin<{ id: string }>(["org", "create", "--name", "Plan Odds"]);
    const member = { userId: null, label: "admin@plan.example" };
    await requestPlan(handle.db, org.id, "enterprise", member, new Date());
    const noReason = await runAdmin(["plan", "decline", "--org", "plan-odds"]);
    expect(noReason.code).toBe(2);
    const wrongPlan = await runAdmin(["plan", "approve", "--org", "plan-odds", "--plan", "pro"]);
    expect(wrongPlan.code).toBe(1);
    expect(wrongPlan.stderr).toMatch(/The record changed: look again\. Plan Odds now asks for enterprise, not pro/);
    expect(await admin(["plan", "decline", "--org", "plan-odds", "--reason", "Talk to sales first"])).toMatchObject({
      declined: { code: "enterprise" },
    });
    const [declined] = await handle.db.select().from(organisations).where(eq(organisations.id, org.id));
    expect(declined).toMatchObject({
      requestedPlanCode: null,
      declinedPlanCode: "enterprise",
      planDeclinedReason: "Talk to sales first",
    });
    // A new request clears the last decline.
    await requestPlan(handle.db, org.id, "enterprise", member, new Date());
    expect(await admin(["plan", "approve", "--org", "plan-odds", "--plan", "enterprise"])).toMatchObject({
      plan: { code: "enterprise" },
    });
    const [approved] = await handle.db.select().from(organisations).where(eq(organisations.id, org.id));
    expect(approved).toMatchObject({ planCode: "enterprise", declinedPlanCode: null, planDeclinedReason: null });
  });

  it("adds operators with a one-time password, lists and removes them, and keeps members and operators apart", async () => {
    const added = await admin<{ userId: string; email: string; password: string }>([
      "operator",
      "add",
      "--email",
      "Ops@Service.Example",
    ]);
    expect(added).toMatchObject({ email: "ops@service.example", password: expect.stringMatching(/^[0-9A-Za-z]{20}$/) });
    const text = await runAdmin(["operator", "add", "--email", "second@service.example"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^Operator second@service\.example added\..*\n\n {2}[0-9A-Za-z]{20}\n/);
    expect((await admin<{ email: string }[]>(["operator", "list"])).map((o) => o.email)).toEqual([
      "ops@service.example",
      "second@service.example",
    ]);
    expect(await operatorAccess(handle.db, added.userId)).toMatchObject({ user: { email: "ops@service.example" } });

    // A member's address is not an operator's, nor an operator's a member's.
    const org = await admin<{ id: string }>(["org", "create", "--name", "Member Odds"]);
    await addMember(
      handle.db,
      { orgId: org.id, email: "admin@member.example", name: "M", password: "correct horse battery", role: "admin" },
      OPERATOR,
    );
    const taken = await runAdmin(["operator", "add", "--email", "admin@member.example"]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain("has an account already");
    await expect(
      addMember(
        handle.db,
        { orgId: org.id, email: "ops@service.example", name: "O", password: "correct horse battery", role: "admin" },
        OPERATOR,
      ),
    ).rejects.toThrow(/cannot be created with this e-mail/);

    const removed = await runAdmin(["operator", "remove", "--email", "second@service.example"]);
    expect(removed.stdout).toContain("Removed operator second@service.example");
    expect((await admin<{ email: string }[]>(["operator", "list"])).map((o) => o.email)).toEqual([
      "ops@service.example",
    ]);
    expect((await runAdmin(["operator", "remove", "--email", "second@service.example"])).code).toBe(1);

    const log = await handle.db.select().from(auditLog).where(eq(auditLog.operator, true));
    expect(log.map((e) => e.action)).toEqual(expect.arrayContaining(["operator.added", "operator.removed"]));
  });

  it.each([
    [
      ["key", "create", "--org", "nowhere", "--env", "sandbox", "--sport", "soccer"],
      1,
      /No organisation with id or slug "nowhere"/,
    ],
    [["key", "create", "--org", "acme-odds", "--env", "staging"], 2, /--env must be sandbox or production/],
    [
      ["key", "create", "--org", "acme-odds", "--env", "sandbox", "--sport", "golf"],
      1,
      /sport: Choose one sport: soccer/,
    ],
    [
      [
        "licence",
        "set",
        "--org",
        "acme-odds",
        "--reference",
        "R",
        "--authority",
        "A",
        "--holder",
        "H",
        "--valid-until",
        "31/12/2027",
      ],
      1,
      /validUntil: Use a date in the form YYYY-MM-DD/,
    ],
    [["plan", "set", "--org", "acme-odds", "--plan", "gold"], 1, /No production plan "gold"/],
    [["key", "revoke", "--id", "key_missing"], 1, /No key key_missing/],
    [["org", "create"], 2, /--name is required/],
    [["org", "create", "--name", "Acme Odds"], 1, /slug "acme-odds" already exists/],
    [["fly", "away"], 2, /Unknown command "fly away"/],
    [["licence", "list", "--status", "maybe"], 2, /--status must be one of pending, verified, rejected, revoked/],
    [["licence", "revoke", "--org", "acme-odds", "--reason", "x".repeat(501)], 1, /reason/],
    [["org", "list", "--colour"], 2, /Unknown option '--colour'/],
  ])("refuses %j with exit %i and says why", async (args, code, message) => {
    const result = await runAdmin(args);
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
  });

  it("runs as its own process: JSON on stdout, and the embedded database refused while another process holds it", async () => {
    const env = database().env;
    if (backend.name === "pglite") {
      const held = await runAdminProcess(["org", "list", "--json"], env);
      expect(held.code).toBe(1);
      expect(JSON.parse(held.stdout)).toMatchObject({ error: { code: "database_in_use" } });
      await close();
    }
    const listed = await runAdminProcess(["org", "list", "--json"], env);
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { slug: string }[]).map((o) => o.slug).sort()).toEqual([
      "acme-odds",
      "member-odds",
      "plan-odds",
      "review-odds",
      "swap-odds",
    ]);
    const usage = await runAdminProcess(["key", "create", "--org", "acme-odds", "--env", "staging"], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("Usage: npm run admin");
  });
});
