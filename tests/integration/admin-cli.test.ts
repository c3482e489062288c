import { beforeAll, describe, expect, it as journey } from "vitest";
import { eq } from "drizzle-orm";
import { OPERATOR } from "../../lib/audit.ts";
import { openDatabase } from "../../lib/db/index.ts";
import { auditLog } from "../../lib/db/schema/index.ts";
import { checkKeyFormat } from "../../lib/keys/format.ts";
import { requestPlan } from "../../lib/plans.ts";
import { BACKENDS, useTestDatabase } from "../../testing/databases.ts";
import { admin, runAdmin } from "../../testing/processes.ts";

type Key = { id: string; key?: string; environment: string; status: string; sports: string[]; hint: string };

// Each command is a process of its own that opens and migrates the database: on PGlite, seconds.
// `npm test` runs the embedded default's journeys; `npm run test:long` adds PostgreSQL's.
const LONG = process.env.TEST_LONG === "1";

describe.each(BACKENDS)(
  "npm run admin on $name (PostgreSQL's in npm run test:long)",
  { timeout: 180_000 },
  (backend) => {
    const database = useTestDatabase(backend);
    const it = journey.skipIf(backend.name === "postgres" && !LONG);
    let env: Record<string, string>;
    beforeAll(() => {
      env = database().env;
    });

    it("takes an organisation from creation to both kinds of key, and refuses a second sandbox key", async () => {
      const org = await admin<{ id: string; slug: string }>(["org", "create", "--name", "Acme Odds"], env);
      expect(org).toMatchObject({ slug: "acme-odds" });
      expect(org.id).toMatch(/^org_[0-9A-Za-z]{20}$/);

      const early = await runAdmin(["key", "create", "--org", "acme-odds", "--env", "production"], env);
      expect(early.code).toBe(1);
      expect(early.stderr).toContain("No licence record");
      expect(early.stderr).toContain("No plan");

      const licence = await admin(
        [
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
        ],
        env,
      );
      expect(licence).toMatchObject({
        reference: "MGA/B2B/123",
        validUntil: "2099-12-31",
        orgId: org.id,
        verification: "pending",
      });
      await admin(["licence", "verify", "--org", "acme-odds"], env);

      const plans = await admin<{ code: string }[]>(["plan", "list"], env);
      expect(plans.map((p) => p.code)).toEqual(["sandbox", "starter", "pro", "enterprise"]);
      await admin(["plan", "set", "--org", "acme-odds", "--plan", "starter"], env);

      const sandbox = await admin<Key>(
        ["key", "create", "--org", "acme-odds", "--env", "sandbox", "--sport", "tennis"],
        env,
      );
      expect(checkKeyFormat(sandbox.key!)).toBe("sandbox");
      expect(sandbox).toMatchObject({ environment: "sandbox", sports: ["tennis"], status: "active" });

      const second = await runAdmin(
        ["key", "create", "--org", "acme-odds", "--env", "sandbox", "--sport", "soccer"],
        env,
      );
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(/already has its sandbox key .*one sandbox key, ever/);
      const secondJson = await runAdmin(
        ["key", "create", "--org", "acme-odds", "--env", "sandbox", "--sport", "soccer", "--json"],
        env,
      );
      expect(secondJson.code).toBe(1);
      expect(JSON.parse(secondJson.stdout)).toMatchObject({ error: { code: "sandbox_key_exists" } });

      const text = await runAdmin(
        ["key", "create", "--org", "acme-odds", "--env", "production", "--name", "Web app"],
        env,
      );
      expect(text.code).toBe(0);
      const printed = /\b(svc_sk_[0-9A-Za-z]{32})\b/.exec(text.stdout)?.[1];
      expect(checkKeyFormat(printed!)).toBe("production");
      expect(text.stdout).toContain("only time the key is shown");

      const listed = await admin<Key[]>(["key", "list", "--org", "acme-odds"], env);
      expect(listed).toHaveLength(2);
      expect(listed.every((k) => k.key === undefined)).toBe(true);
      expect(JSON.stringify(listed)).not.toContain(printed!.slice(7, 30));
      const production = listed.find((k) => k.environment === "production")!;
      expect(production).toMatchObject({
        sports: ["soccer", "basketball", "tennis"],
        hint: `svc_sk_…${printed!.slice(-4)}`,
      });

      const revoked = await admin<Key & { alreadyRevoked: boolean }>(["key", "revoke", "--id", production.id], env);
      expect(revoked).toMatchObject({ status: "revoked", alreadyRevoked: false });
      const listedAfter = await admin<Key[]>(["key", "list", "--org", org.id], env);
      expect(listedAfter.find((k) => k.id === production.id)?.status).toBe("revoked");
    });

    it("verifies, rejects with a reason and revokes licences, approves plan requests, and logs each", async () => {
      const org = await admin<{ id: string }>(["org", "create", "--name", "Review Odds"], env);
      const record = (reference: string) =>
        admin(
          [
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
          ],
          env,
        );
      await record("GLA/1");
      await admin(["plan", "set", "--org", "review-odds", "--plan", "starter"], env);

      const noReason = await runAdmin(["licence", "reject", "--org", "review-odds", "--json"], env);
      expect(noReason.code).toBe(2);
      expect(JSON.parse(noReason.stdout)).toMatchObject({ error: { code: "usage", message: /--reason is required/ } });
      expect(
        await admin(["licence", "reject", "--org", "review-odds", "--reason", "Not in the authority's register"], env),
      ).toMatchObject({
        reference: "GLA/1",
        verification: "rejected",
        reviewReason: "Not in the authority's register",
      });
      const refused = await runAdmin(["key", "create", "--org", "review-odds", "--env", "production", "--json"], env);
      expect(JSON.parse(refused.stdout)).toMatchObject({
        error: { code: "licence_not_valid", message: /GLA\/1 was rejected on .*Not in the authority's register/ },
      });
      const again = await runAdmin(["licence", "verify", "--org", "review-odds", "--json"], env);
      expect(again.code).toBe(1);
      expect(JSON.parse(again.stdout)).toMatchObject({ error: { code: "conflict", message: /GLA\/1 is rejected/ } });

      await record("GLA/2");
      expect(await admin(["licence", "verify", "--org", "review-odds"], env)).toMatchObject({
        verification: "verified",
      });
      await admin(["key", "create", "--org", "review-odds", "--env", "production"], env);
      const text = await runAdmin(["licence", "revoke", "--org", "review-odds"], env);
      expect(text.code).toBe(0);
      expect(text.stdout).toContain(
        "Licence GLA/2 of Review Odds revoked: its production keys are refused from now on.",
      );
      const listed = await admin<{ reference: string; verification: string }[]>(
        ["licence", "list", "--status", "revoked"],
        env,
      );
      expect(listed.map((l) => l.reference)).toEqual(["GLA/2"]);

      const noRequest = await runAdmin(["plan", "approve", "--org", "review-odds", "--json"], env);
      expect(JSON.parse(noRequest.stdout)).toMatchObject({ error: { code: "not_found", message: /no plan request/ } });

      const handle = await openDatabase(database().config);
      try {
        await requestPlan(handle.db, org.id, "enterprise", { userId: null, label: "admin@review.example" }, new Date());
      } finally {
        await handle.close();
      }
      expect(await admin(["plan", "approve", "--org", "review-odds"], env)).toMatchObject({
        plan: { code: "enterprise" },
      });

      const checking = await openDatabase(database().config);
      try {
        const actions = (await checking.db.select().from(auditLog).where(eq(auditLog.orgId, org.id))).map((e) => [
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
      } finally {
        await checking.close();
      }
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
      const result = await runAdmin(args, env);
      expect(result.code).toBe(code);
      expect(result.stderr).toMatch(message);
    });
  },
);
