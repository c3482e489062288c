import { eq } from "drizzle-orm";
import { generate } from "otplib";
import { expect, it } from "vitest";
import {
  openSession,
  proveSecondFactor,
  readSession,
  SECOND_STEP_SECONDS,
  type ConsoleSession,
} from "../../lib/accounts/factors/gate.ts";
import {
  beginTotp,
  finishTotp,
  regenerateRecoveryCodes,
  removeOwnFactor,
  resetFactorsByOperator,
  setSecondFactorPolicy,
} from "../../lib/accounts/factors/manage.ts";
import { sealingKey } from "../../lib/accounts/factors/sealing.ts";
import { STEP_UP_SECONDS } from "../../lib/accounts/factors/step-up.ts";
import { listFactors } from "../../lib/accounts/factors/store.ts";
import { OPERATOR } from "../../lib/accounts/audit.ts";
import {
  changeMemberRole,
  createProductionKeyFor,
  inviteMember,
  recordLicence,
  choosePlan,
  revokeKeyFor,
  rollKeyFor,
  toActionState,
  updateKeyFor,
} from "../../lib/console/actions.ts";
import { acceptInvitation } from "../../lib/console/members.ts";
import { SIGN_IN_LIMITS, signInWithPassword } from "../../lib/accounts/sign-in.ts";
import { addWebhookFor } from "../../lib/console/webhooks.ts";
import type { Database } from "../../lib/db/index.ts";
import { auditLog, secondFactors } from "../../lib/db/schema/index.ts";
import { reviewLicence } from "../../lib/accounts/licences.ts";
import { addOperator, operatorAccess } from "../../lib/accounts/operators.ts";
import { describeEachBackend } from "../../testing/databases.ts";
import { useSeededDatabase } from "../../testing/suites.ts";

// Second factors, the second step of signing in, the organisation's policy and the step-up, called
// as the server actions call them: with the session the cookie names, raw fields and the time.

const PASSWORD = "correct horse battery staple";
const KEY = sealingKey("the suite's secret");
const start = new Date("2026-11-28T12:00:00Z");
const later = (at: Date, seconds: number) => new Date(at.getTime() + seconds * 1000);
const codeAt = (secret: string, at: Date) => generate({ secret, epoch: Math.floor(at.getTime() / 1000) });

describeEachBackend("second factors on $name", (backend) => {
  let db: Database;
  const { organisation, serial } = useSeededDatabase(backend, PASSWORD, (opened) => (db = opened));

  /** A session past the password, then an authenticator app added on it: the app's secret. */
  async function withApp(userId: string, at: Date): Promise<{ session: ConsoleSession; secret: string }> {
    const session = await openSession(db, userId, at);
    const { factorId, secret } = await beginTotp(db, session, KEY, at);
    await finishTotp(db, session, { factorId, code: await codeAt(secret, at) }, KEY, at);
    return { session: (await readSession(db, session.id, userId, at))!, secret };
  }

  it("opens a session at the second step for a member with a factor, and it ends if left", async () => {
    const admin = await organisation("gate");
    expect((await openSession(db, admin.userId, start)).stage).toBe("done");
    const { secret } = await withApp(admin.userId, start);
    const session = await openSession(db, admin.userId, later(start, 60));
    expect(session.stage).toBe("second_factor");
    expect(await readSession(db, session.id, admin.userId, later(start, 60 + SECOND_STEP_SECONDS + 1))).toBeNull();
    // Another user's id with this session's id is no session.
    const other = await organisation("gate-other");
    expect(await readSession(db, session.id, other.userId, later(start, 61))).toBeNull();

    const at = later(start, 90);
    const wrong = await proveSecondFactor(db, session, { code: "000000", address: "10.0.0.1" }, KEY, at);
    expect(wrong).toEqual({ ok: false, reason: "invalid" });
    const right = await proveSecondFactor(
      db,
      session,
      { code: await codeAt(secret, at), address: "10.0.0.1" },
      KEY,
      at,
    );
    expect(right).toEqual({ ok: true, method: "totp" });
    expect((await readSession(db, session.id, admin.userId, at))?.stage).toBe("done");
    // The same code is not accepted twice.
    const again = await openSession(db, admin.userId, at);
    expect(
      await proveSecondFactor(db, again, { code: await codeAt(secret, at), address: "10.0.0.1" }, KEY, at),
    ).toEqual({ ok: false, reason: "invalid" });
  });

  it("keeps the secret sealed, and lets each recovery code work once; a new set voids the old", async () => {
    const admin = await organisation("recovery");
    const session = await openSession(db, admin.userId, start);
    const { factorId, secret } = await beginTotp(db, session, KEY, start);
    const { recoveryCodes } = await finishTotp(
      db,
      session,
      { factorId, code: await codeAt(secret, start) },
      KEY,
      start,
    );
    expect(recoveryCodes).toHaveLength(10);
    const [row] = await db.select().from(secondFactors).where(eq(secondFactors.id, factorId));
    expect(row!.secret).not.toContain(secret);

    const code = recoveryCodes![0]!;
    const first = await openSession(db, admin.userId, later(start, 60));
    expect(await proveSecondFactor(db, first, { code, address: "10.0.0.2" }, KEY, later(start, 60))).toEqual({
      ok: true,
      method: "recovery_code",
    });
    const second = await openSession(db, admin.userId, later(start, 61));
    expect(await proveSecondFactor(db, second, { code, address: "10.0.0.2" }, KEY, later(start, 61))).toEqual({
      ok: false,
      reason: "invalid",
    });
    const audit = await db.select().from(auditLog).where(eq(auditLog.orgId, admin.orgId));
    expect(audit.map((entry) => entry.action)).toContain("factor.recovery_code_used");

    const done = (await readSession(db, first.id, admin.userId, later(start, 62)))!;
    const { recoveryCodes: fresh } = await regenerateRecoveryCodes(db, done, later(start, 62));
    const third = await openSession(db, admin.userId, later(start, 63));
    expect(
      await proveSecondFactor(db, third, { code: recoveryCodes![1]!, address: "10.0.0.2" }, KEY, later(start, 63)),
    ).toEqual({ ok: false, reason: "invalid" });
    expect(
      await proveSecondFactor(db, third, { code: fresh[0]!, address: "10.0.0.2" }, KEY, later(start, 63)),
    ).toMatchObject({ ok: true });
  });

  it("counts wrong codes with wrong passwords: the address is throttled for the password too", async () => {
    const admin = await organisation("throttle");
    await withApp(admin.userId, start);
    const session = await openSession(db, admin.userId, later(start, 60));
    const address = "10.9.9.9";
    for (let i = 0; i < SIGN_IN_LIMITS.perEmailAndAddress; i += 1) {
      await proveSecondFactor(db, session, { code: "111111", address }, KEY, later(start, 61));
    }
    expect(await proveSecondFactor(db, session, { code: "111111", address }, KEY, later(start, 62))).toMatchObject({
      ok: false,
      reason: "throttled",
    });
    const password = await signInWithPassword(
      db,
      { email: admin.email, password: PASSWORD, address },
      later(start, 62),
      { pause: async () => {} },
    );
    expect(password).toMatchObject({ ok: false, reason: "throttled" });
  });

  it("asks for a step-up before key and member changes once the last second factor is over 10 minutes old", async () => {
    const admin = await organisation("stepup");
    await recordLicence(
      db,
      admin.userId,
      { reference: "R/1", authority: "A", holder: "H", validUntil: "2030-01-01" },
      start,
    );
    await reviewLicence(db, admin.orgId, "verify", { actor: OPERATOR, at: start });
    await choosePlan(db, admin.userId, { plan: "pro" });
    const { token } = await inviteMember(db, admin.userId, { role: "viewer" }, { at: start, ttlDays: 7 });
    const viewer = await acceptInvitation(
      db,
      { token, name: "V", email: `v-${serial()}@example.test`, password: PASSWORD },
      start,
    );
    // Without a factor, no step-up is asked for (nothing to ask).
    const key = await createProductionKeyFor(db, admin.userId, { name: "first" }, { at: start, sessionId: null });

    const { session, secret } = await withApp(admin.userId, start);
    const soon = later(start, STEP_UP_SECONDS);
    await createProductionKeyFor(db, admin.userId, { name: "in time" }, { at: soon, sessionId: session.id });
    const late = later(start, STEP_UP_SECONDS + 1);
    const changes: Array<[string, () => Promise<unknown>]> = [
      [
        "create a production key",
        () => createProductionKeyFor(db, admin.userId, { name: "late" }, { at: late, sessionId: session.id }),
      ],
      [
        "roll",
        () =>
          rollKeyFor(db, admin.userId, { keyId: key.id, overlapSeconds: "3600" }, { at: late, sessionId: session.id }),
      ],
      ["revoke", () => revokeKeyFor(db, admin.userId, { keyId: key.id }, { at: late, sessionId: session.id })],
      [
        "change the allowlist",
        () =>
          updateKeyFor(
            db,
            admin.userId,
            { keyId: key.id, allowedIps: "10.0.0.0/8" },
            { at: late, sessionId: session.id },
          ),
      ],
      [
        "add a webhook endpoint",
        () =>
          addWebhookFor(
            db,
            admin.userId,
            { url: "https://hooks.example.com/x" },
            { at: late, allowPrivate: false, sessionId: session.id },
          ),
      ],
      [
        "change a role",
        () =>
          changeMemberRole(db, admin.userId, { userId: viewer.id, role: "admin" }, { at: late, sessionId: session.id }),
      ],
      ["change the policy", () => setSecondFactorPolicy(db, session, { policy: "admins" }, late)],
      // An open session must not add an app of its own and then pass every step-up with it.
      ["add another authenticator app", () => beginTotp(db, session, KEY, late)],
      ["without a session id", () => createProductionKeyFor(db, admin.userId, { name: "x" }, { at: soon })],
    ];
    for (const [change, run] of changes) {
      const state = await toActionState("done", run);
      expect(state, change).toMatchObject({ stepUp: true, error: expect.stringContaining("Confirm it is you") });
    }
    // A name alone is no step-up.
    expect(
      await toActionState("done", () =>
        updateKeyFor(
          db,
          admin.userId,
          { keyId: key.id, name: "renamed", allowedIps: "" },
          { at: late, sessionId: session.id },
        ),
      ),
    ).toMatchObject({ ok: "done" });
    // The step-up: a code again, and the change goes through.
    expect(
      await proveSecondFactor(db, session, { code: await codeAt(secret, late), address: "10.1.1.1" }, KEY, late),
    ).toMatchObject({ ok: true });
    await createProductionKeyFor(db, admin.userId, { name: "after step-up" }, { at: late, sessionId: session.id });
    await setSecondFactorPolicy(db, (await readSession(db, session.id, admin.userId, late))!, { policy: "all" }, late);
    // The viewer, without a factor, now owes one at the next sign-in.
    expect((await openSession(db, viewer.id, late)).stage).toBe("enrol");
  });

  it("refuses the new actions to a viewer, to another organisation's member and when signed out", async () => {
    const target = await organisation("target");
    const { session: adminSession } = await withApp(target.userId, start);
    const [factor] = await listFactors(db, target.userId);
    const { token } = await inviteMember(db, target.userId, { role: "viewer" }, { at: start, ttlDays: 7 });
    const viewer = await acceptInvitation(
      db,
      { token, name: "V", email: `tv-${serial()}@example.test`, password: PASSWORD },
      start,
    );
    const viewerSession = await openSession(db, viewer.id, start);
    const intruder = await organisation("intruder");
    const intruderSession = await openSession(db, intruder.userId, start);
    const pending = await openSession(db, target.userId, start);
    expect(pending.stage).toBe("second_factor");

    const refusals: Array<[string, () => Promise<unknown>, RegExp]> = [
      [
        "a viewer sets the policy",
        () => setSecondFactorPolicy(db, viewerSession, { policy: "all" }, start),
        /Only an admin/,
      ],
      ["signed out sets the policy", () => setSecondFactorPolicy(db, null, { policy: "all" }, start), /sign in again/],
      [
        "a session at its second step sets the policy",
        () => setSecondFactorPolicy(db, pending, { policy: "all" }, start),
        /sign in again/,
      ],
      [
        "another organisation removes the admin's factor",
        () => removeOwnFactor(db, intruderSession, { factorId: factor!.id }, start),
        /not yours/,
      ],
      [
        "a viewer removes the admin's factor",
        () => removeOwnFactor(db, viewerSession, { factorId: factor!.id }, start),
        /not yours/,
      ],
      [
        "signed out removes a factor",
        () => removeOwnFactor(db, null, { factorId: factor!.id }, start),
        /sign in again/,
      ],
      [
        "a session at its second step removes a factor",
        () => removeOwnFactor(db, pending, { factorId: factor!.id }, start),
        /sign in again/,
      ],
      ["a session at its second step adds an app", () => beginTotp(db, pending, KEY, start), /sign in again/],
      ["signed out makes recovery codes", () => regenerateRecoveryCodes(db, null, start), /sign in again/],
      [
        "a member resets factors as if an operator",
        async () => {
          const access = await operatorAccess(db, target.userId);
          if (!access) throw new Error("not an operator");
          return resetFactorsByOperator(db, access, { userId: viewer.id });
        },
        /not an operator/,
      ],
    ];
    for (const [what, run, message] of refusals) {
      await expect(run(), what).rejects.toThrow(message);
    }
    expect(await listFactors(db, target.userId)).toHaveLength(1);
    expect(adminSession.stage).toBe("done");
  });

  it("lets an operator reset a member's factors, recorded in both logs", async () => {
    const member = await organisation("reset");
    await withApp(member.userId, start);
    const { operator } = await addOperator(db, { email: `op-${serial()}@example.test` }, OPERATOR);
    const access = (await operatorAccess(db, operator.userId))!;
    expect(await resetFactorsByOperator(db, access, { userId: member.userId })).toBe(1);
    expect(await listFactors(db, member.userId)).toEqual([]);
    expect((await openSession(db, member.userId, start)).stage).toBe("done");
    const entries = await db.select().from(auditLog).where(eq(auditLog.action, "factor.reset_by_operator"));
    expect(entries.map((entry) => [entry.orgId, entry.operator])).toContainEqual([member.orgId, true]);
    // An operator must have a second factor: their first sign-in is at enrolment.
    expect((await openSession(db, operator.userId, start)).stage).toBe("enrol");
  });
});
