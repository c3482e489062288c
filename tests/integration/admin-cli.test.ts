import { afterAll, beforeAll, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { OPERATOR } from "../../lib/audit.ts";
import { openDatabase, type DatabaseHandle } from "../../lib/db/index.ts";
import { auditLog } from "../../lib/db/schema/index.ts";
import { checkKeyFormat } from "../../lib/keys/format.ts";
import { requestPlan } from "../../lib/plans.ts";
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
    await admin(["licence", "verify", "--org", "acme-odds"]);

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
    const again = await runAdmin(["licence", "verify", "--org", "review-odds", "--json"]);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toMatchObject({ error: { code: "conflict", message: /GLA\/1 is rejected/ } });

    await record("GLA/2");
    expect(await admin(["licence", "verify", "--org", "review-odds"])).toMatchObject({
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
      "review-odds",
    ]);
    const usage = await runAdminProcess(["key", "create", "--org", "acme-odds", "--env", "staging"], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("Usage: npm run admin");
  });
});
