import { and, eq } from "drizzle-orm";
import { expect, it } from "vitest";
import { openSession, readSession, type ConsoleSession } from "../../lib/accounts/factors/gate.ts";
import { removeOwnFactor } from "../../lib/accounts/factors/manage.ts";
import {
  beginPasskey,
  finishPasskey,
  passkeyChallengeFor,
  provePasskey,
  signInWithPasskey,
} from "../../lib/accounts/factors/passkey-flows.ts";
import { CHALLENGE_SECONDS, relyingParty } from "../../lib/accounts/factors/passkeys.ts";
import { requireStepUp, STEP_UP_SECONDS } from "../../lib/accounts/factors/step-up.ts";
import { listFactors } from "../../lib/accounts/factors/store.ts";
import { OPERATOR } from "../../lib/accounts/audit.ts";
import { addOperator } from "../../lib/accounts/operators.ts";
import { inviteMember } from "../../lib/console/actions.ts";
import { acceptInvitation } from "../../lib/console/members.ts";
import type { Database } from "../../lib/db/index.ts";
import {
  auditLog,
  mailMessages,
  memberships,
  passkeyChallenges,
  secondFactors,
  ssoConnections,
  ssoDomains,
} from "../../lib/db/schema/index.ts";
import { cookiesOf, serverActionId, signIn, type SignInCredentials } from "../../testing/console.ts";
import { describeEachBackend } from "../../testing/databases.ts";
import { send, type Sent } from "../../testing/http.ts";
import { SoftPasskey } from "../../testing/passkey-authenticator.ts";
import type { RunningServer } from "../../testing/processes.ts";
import { useConsoleServer, useSeededDatabase } from "../../testing/suites.ts";

// Passkeys against the real database, answered by a software authenticator as a browser would:
// adding one, the second step and the step-up with it, a sign-in with it alone, and what is refused
// (a replayed or foreign challenge, another member's passkey, a counter gone back, no session).

const PASSWORD = "correct horse battery staple";
const RP = relyingParty("https://data.example.test");
const start = new Date("2026-11-28T12:00:00Z");
const later = (at: Date, seconds: number) => new Date(at.getTime() + seconds * 1000);
const ADDRESS = "10.0.0.9";

describeEachBackend("passkeys on $name", (backend) => {
  let db: Database;
  const { organisation, serial } = useSeededDatabase(backend, PASSWORD, (opened) => (db = opened));

  /** Adds a passkey made by `device` on a fresh session at `at`; the session afterwards. */
  async function addPasskey(userId: string, device: SoftPasskey, at: Date, name = "Laptop") {
    const session = await openSession(db, userId, at);
    const { challengeId, options } = await beginPasskey(db, session, RP, at);
    const response = JSON.stringify(device.register(options));
    const added = await finishPasskey(db, session, { challengeId, response, name }, RP, at);
    return { session: (await readSession(db, session.id, userId, at))!, recoveryCodes: added.recoveryCodes };
  }

  /** A passkey's answer for the session's second step or step-up. */
  async function answer(session: ConsoleSession, purpose: "second_step" | "step_up", device: SoftPasskey, at: Date) {
    const { challengeId, options } = await passkeyChallengeFor(db, session, purpose, RP, at);
    return { challengeId, response: JSON.stringify(device.authenticate(options)), address: ADDRESS };
  }

  it("adds a named passkey, with recovery codes as the first factor, an audit entry and a notice", async () => {
    const admin = await organisation("enrol");
    const device = new SoftPasskey(RP.origin);
    const { session, recoveryCodes } = await addPasskey(admin.userId, device, start, "Work laptop");
    expect(recoveryCodes).toHaveLength(10);
    expect(session.secondFactorAt).toEqual(start);
    const [factor] = await listFactors(db, admin.userId);
    expect(factor).toMatchObject({ kind: "passkey", name: "Work laptop", lastUsedAt: null });
    const [stored] = await db.select().from(secondFactors).where(eq(secondFactors.id, factor!.id));
    expect(stored!.signCount).toBe(0);
    expect(stored!.credentialId).toMatch(/^[A-Za-z0-9_-]+$/);
    const [entry] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "factor.added"), eq(auditLog.orgId, admin.orgId)));
    expect(entry!.details).toEqual({ kind: "passkey", name: "Work laptop" });
    const mail = await db.select().from(mailMessages).where(eq(mailMessages.recipient, admin.email));
    expect(mail.map((message) => message.text).join("\n")).toContain("The passkey “Work laptop” was added");
    // The challenge was taken: nothing of the ceremony is left to answer again.
    expect(await db.select().from(passkeyChallenges).where(eq(passkeyChallenges.userId, admin.userId))).toEqual([]);
  });

  it("takes a passkey as the second step, storing its counter; a replayed, stale or foreign answer is refused", async () => {
    const admin = await organisation("second-step");
    const device = new SoftPasskey(RP.origin);
    await addPasskey(admin.userId, device, start);
    const at = later(start, 60);
    const session = await openSession(db, admin.userId, at);
    expect(session.stage).toBe("second_factor");

    const first = await answer(session, "second_step", device, at);
    expect(await provePasskey(db, session, "second_step", first, RP, at)).toEqual({ ok: true, userId: admin.userId });
    expect((await readSession(db, session.id, admin.userId, at))?.stage).toBe("done");
    const [factor] = await listFactors(db, admin.userId);
    expect(factor!.lastUsedAt).toEqual(at);
    const [stored] = await db.select().from(secondFactors).where(eq(secondFactors.id, factor!.id));
    expect(stored!.signCount).toBe(1);

    // The same answer again (its challenge is gone), on a new session at its second step.
    const next = await openSession(db, admin.userId, at);
    expect(await provePasskey(db, next, "second_step", first, RP, at)).toEqual({ ok: false, reason: "invalid" });
    // An answer signed over another challenge than the one it names.
    const issued = await passkeyChallengeFor(db, next, "second_step", RP, at);
    const other = await passkeyChallengeFor(db, next, "second_step", RP, at);
    const crossed = { challengeId: issued.challengeId, response: JSON.stringify(device.authenticate(other.options)) };
    expect(await provePasskey(db, next, "second_step", { ...crossed, address: ADDRESS }, RP, at)).toEqual({
      ok: false,
      reason: "invalid",
    });
    // A challenge answered after it expired.
    const stale = await answer(next, "second_step", device, at);
    const afterExpiry = later(at, CHALLENGE_SECONDS + 1);
    expect(await provePasskey(db, next, "second_step", stale, RP, afterExpiry)).toEqual({
      ok: false,
      reason: "invalid",
    });
    // A challenge made for another session.
    const elsewhere = await openSession(db, admin.userId, at);
    const foreign = await answer(elsewhere, "second_step", device, at);
    expect(await provePasskey(db, next, "second_step", foreign, RP, at)).toEqual({ ok: false, reason: "invalid" });
    // Signed for another site (a look-alike that relayed the challenge).
    const phished = await passkeyChallengeFor(db, next, "second_step", RP, at);
    const relayed = {
      challengeId: phished.challengeId,
      response: JSON.stringify(device.authenticate(phished.options, { rpId: "data.example.test.evil.example" })),
      address: ADDRESS,
    };
    expect(await provePasskey(db, next, "second_step", relayed, RP, at)).toEqual({ ok: false, reason: "invalid" });
    // A counter that went back: a cloned authenticator.
    const cloned = await passkeyChallengeFor(db, next, "second_step", RP, at);
    const replayedCounter = {
      challengeId: cloned.challengeId,
      response: JSON.stringify(device.authenticate(cloned.options, { counter: 1 })),
      // From elsewhere: five refusals from ADDRESS already, and this one must be heard to be refused.
      address: "10.0.0.10",
    };
    expect(await provePasskey(db, next, "second_step", replayedCounter, RP, at)).toEqual({
      ok: false,
      reason: "invalid",
    });
    expect((await readSession(db, next.id, admin.userId, at))?.stage).toBe("second_factor");
    // The five refusals from ADDRESS counted against the e-mail there, as wrong codes do: now it is throttled.
    const good = await answer(next, "second_step", device, at);
    expect(await provePasskey(db, next, "second_step", good, RP, at)).toMatchObject({
      ok: false,
      reason: "throttled",
    });
  });

  it("signs in with a passkey alone, both steps at once, only when the authenticator verified its user", async () => {
    const admin = await organisation("alone");
    const device = new SoftPasskey(RP.origin);
    // A synced passkey, whose counter stays 0: a replayed answer is stopped by its challenge alone.
    device.counting = false;
    await addPasskey(admin.userId, device, start);
    const at = later(start, 120);
    const ceremony = await passkeyChallengeFor(db, null, "sign_in", RP, at);
    // A sign-in lists no passkeys: the browser offers those it holds for the site.
    expect(ceremony.options.allowCredentials ?? []).toEqual([]);
    expect(ceremony.options.userVerification).toBe("required");
    const input = {
      challengeId: ceremony.challengeId,
      response: JSON.stringify(device.authenticate(ceremony.options)),
      address: "10.0.1.1",
    };
    expect(await signInWithPasskey(db, input, RP, at)).toEqual({ ok: true, userId: admin.userId });
    expect(await signInWithPasskey(db, input, RP, at)).toEqual({ ok: false, reason: "invalid" });
    const session = await openSession(db, admin.userId, at, { bothFactors: true });
    expect(session).toMatchObject({ stage: "done", secondFactorAt: at });
    const entries = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "user.signed_in"), eq(auditLog.orgId, admin.orgId)));
    expect(entries.map((entry) => entry.details)).toContainEqual({ by: "passkey", passkey: "Laptop" });

    // A member whose organisation requires its single sign-on: refused, as their password is.
    await db.update(memberships).set({ role: "viewer" }).where(eq(memberships.userId, admin.userId));
    await db.insert(ssoConnections).values({
      orgId: admin.orgId,
      issuer: "https://idp.example.test",
      clientId: "client",
      clientSecret: "sealed",
      requireSso: true,
    });
    await db
      .insert(ssoDomains)
      .values({ orgId: admin.orgId, domain: "example.test", token: "t", verifiedAt: at, verifiedBy: "operator" });
    const underSso = await passkeyChallengeFor(db, null, "sign_in", RP, at);
    const ssoInput = {
      challengeId: underSso.challengeId,
      response: JSON.stringify(device.authenticate(underSso.options)),
      address: "10.0.1.1",
    };
    expect(await signInWithPasskey(db, ssoInput, RP, at)).toEqual({ ok: false, reason: "sso_required" });
    await db.delete(ssoConnections).where(eq(ssoConnections.orgId, admin.orgId));
    await db.delete(ssoDomains).where(eq(ssoDomains.orgId, admin.orgId));

    // Presence alone (no fingerprint or PIN) is one factor: not enough to sign in without the password.
    device.userVerified = false;
    const unverified = await passkeyChallengeFor(db, null, "sign_in", RP, at);
    const touch = {
      challengeId: unverified.challengeId,
      response: JSON.stringify(device.authenticate(unverified.options)),
      address: "10.0.1.1",
    };
    expect(await signInWithPasskey(db, touch, RP, at)).toEqual({ ok: false, reason: "invalid" });
  });

  it("adds a passkey at sign-in's enrolment (an operator's first sign-in), which signs the session in", async () => {
    const { operator } = await addOperator(db, { email: `pk-op-${serial()}@example.test` }, OPERATOR);
    const pending = await openSession(db, operator.userId, start);
    expect(pending.stage).toBe("enrol");
    const { challengeId, options } = await beginPasskey(db, pending, RP, start);
    const response = JSON.stringify(new SoftPasskey(RP.origin).register(options));
    expect((await finishPasskey(db, pending, { challengeId, response }, RP, start)).recoveryCodes).toHaveLength(10);
    expect(await readSession(db, pending.id, operator.userId, start)).toMatchObject({
      stage: "done",
      secondFactorAt: start,
    });
    const [entry] = await db
      .select()
      .from(auditLog)
      .where(
        and(eq(auditLog.action, "factor.added"), eq(auditLog.target, (await listFactors(db, operator.userId))[0]!.id)),
      );
    expect(entry).toMatchObject({ orgId: null, operator: true, details: { kind: "passkey", name: "Passkey" } });
  });

  it("takes a passkey touch as a step-up once the last second factor is over 10 minutes old", async () => {
    const admin = await organisation("step-up");
    const device = new SoftPasskey(RP.origin);
    const { session } = await addPasskey(admin.userId, device, start);
    const stale = later(start, STEP_UP_SECONDS + 60);
    await expect(requireStepUp(db, admin.userId, session.id, stale)).rejects.toThrow(/use your passkey/);
    // Adding another passkey is such a change too: a session left open must not add its own.
    await expect(beginPasskey(db, session, RP, stale)).rejects.toThrow(/Confirm it is you/);
    const touch = await answer(session, "step_up", device, stale);
    expect(await provePasskey(db, session, "step_up", touch, RP, stale)).toEqual({ ok: true, userId: admin.userId });
    await requireStepUp(db, admin.userId, session.id, stale);
    // A step-up's challenge is not a second step's, nor the other way round.
    const pending = await openSession(db, admin.userId, stale);
    await expect(passkeyChallengeFor(db, pending, "step_up", RP, stale)).rejects.toThrow(/sign in again/);
    await expect(passkeyChallengeFor(db, session, "second_step", RP, stale)).rejects.toThrow(/sign in again/);
  });

  it("refuses the passkey actions to a viewer, to another organisation's member and when signed out", async () => {
    const target = await organisation("target");
    const device = new SoftPasskey(RP.origin);
    const { session: adminSession } = await addPasskey(target.userId, device, start);
    const [passkey] = await listFactors(db, target.userId);
    const { token } = await inviteMember(db, target.userId, { role: "viewer" }, { at: start, ttlDays: 7 });
    const viewer = await acceptInvitation(
      db,
      { token, name: "V", email: `pv-${serial()}@example.test`, password: PASSWORD },
      start,
    );
    const viewerSession = await openSession(db, viewer.id, start);
    const intruder = await organisation("intruder");
    const intruderSession = await openSession(db, intruder.userId, start);
    const intruderDevice = new SoftPasskey(RP.origin);
    const { session: intruderWithPasskey } = await addPasskey(intruder.userId, intruderDevice, start);
    const pending = await openSession(db, target.userId, start);
    const adminCeremony = await beginPasskey(db, adminSession, RP, start);

    const refusals: Array<[string, () => Promise<unknown>, RegExp]> = [
      ["signed out starts adding a passkey", () => beginPasskey(db, null, RP, start), /sign in again/],
      ["a session at its second step starts adding one", () => beginPasskey(db, pending, RP, start), /sign in again/],
      [
        "signed out finishes adding one",
        () => finishPasskey(db, null, { challengeId: "pkc_x", response: "{}" }, RP, start),
        /sign in again/,
      ],
      [
        "another organisation's member answers the admin's registration",
        () =>
          finishPasskey(
            db,
            intruderSession,
            {
              challengeId: adminCeremony.challengeId,
              response: JSON.stringify(intruderDevice.register(adminCeremony.options)),
            },
            RP,
            start,
          ),
        /not added/,
      ],
      [
        "another organisation removes the admin's passkey",
        () => removeOwnFactor(db, intruderWithPasskey, { factorId: passkey!.id }, start),
        /not yours/,
      ],
      [
        "a viewer removes the admin's passkey",
        () => removeOwnFactor(db, viewerSession, { factorId: passkey!.id }, start),
        /not yours/,
      ],
      [
        "signed out asks for a step-up's challenge",
        () => passkeyChallengeFor(db, null, "step_up", RP, start),
        /sign in again/,
      ],
      [
        "signed out asks for a second step's challenge",
        () => passkeyChallengeFor(db, null, "second_step", RP, start),
        /sign in again/,
      ],
    ];
    for (const [what, run, message] of refusals) {
      await expect(run(), what).rejects.toThrow(message);
    }
    // Another organisation's member with the admin's passkey (a stolen phone) on their own session.
    const stolen = await passkeyChallengeFor(db, intruderWithPasskey, "step_up", RP, start);
    const options = { ...stolen.options, allowCredentials: [] };
    const touch = { challengeId: stolen.challengeId, response: JSON.stringify(device.authenticate(options)) };
    expect(
      await provePasskey(db, intruderWithPasskey, "step_up", { ...touch, address: "10.0.2.2" }, RP, start),
    ).toEqual({ ok: false, reason: "invalid" });
    expect(await listFactors(db, target.userId)).toHaveLength(1);

    // The admin's own removal is recorded as a passkey's, and told by mail.
    await removeOwnFactor(db, adminSession, { factorId: passkey!.id }, start);
    const [removed] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "factor.removed"), eq(auditLog.orgId, target.orgId)));
    expect(removed!.details).toEqual({ kind: "passkey", name: "Laptop" });
    const mail = await db.select().from(mailMessages).where(eq(mailMessages.recipient, target.email));
    expect(mail.map((message) => message.text).join("\n")).toContain("The passkey “Laptop” was removed");
  });
});

// The same through the real server: its actions (called as the browser's JavaScript calls them, by
// id with their arguments as JSON), its relying party (no NEXTAUTH_URL: the address it was asked
// at) and next-auth's "passkey" provider, which turns a sign-in challenge's answer into a session.

const AUTH_SECRET = "an-integration-test-secret-of-enough-length";

/** Calls a server action of the build with JSON arguments. */
function callAction(url: string, name: string, args: unknown[], headers: Record<string, string> = {}): Promise<Sent> {
  return send(`${url}/console/security`, {
    method: "POST",
    headers: { "next-action": serverActionId(name), accept: "text/x-component", ...headers },
    body: JSON.stringify(args),
  });
}

/** The `data` of an action's answer, read off React's stream (the row that carries it). */
function actionData<T>(answer: Sent): T {
  for (const row of answer.body.split("\n")) {
    const json = row.slice(row.indexOf(":") + 1);
    if (!json.startsWith("{")) continue;
    const value = JSON.parse(json) as { ok?: string; data?: T };
    if (value.ok && value.data) return value.data;
  }
  throw new Error(`no action data in ${answer.status}: ${answer.body.slice(0, 300)}`);
}

/** Signs in through next-auth's passkey callback; the session cookie, or the error. */
async function passkeyCallback(url: string, fields: Record<string, string>, withCsrf = true) {
  const csrf = await send(`${url}/api/auth/csrf`);
  const { csrfToken } = JSON.parse(csrf.body) as { csrfToken: string };
  const answer = await send(`${url}/api/auth/callback/passkey`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookiesOf(csrf).join("; ") },
    body: new URLSearchParams({ ...fields, ...(withCsrf ? { csrfToken } : {}), json: "true" }).toString(),
  });
  const session = cookiesOf(answer).find((c) => c.startsWith("next-auth.session-token=")) ?? null;
  const next = answer.headers.location ?? (JSON.parse(answer.body) as { url: string }).url;
  return { session, error: new URL(String(next), url).searchParams.get("error") };
}

describeEachBackend("passkeys over HTTP on $name", (backend) => {
  let server: RunningServer;
  let demo: SignInCredentials;
  useConsoleServer(backend, { AUTH_SECRET }, (started) => ({ server, demo } = started));

  it("adds a passkey through the actions, then signs in with it alone through next-auth, once per challenge", async () => {
    const { session } = await signIn(server.url, demo.email, demo.password);
    const device = new SoftPasskey(server.url);
    const begun = actionData<{ challengeId: string; options: Parameters<SoftPasskey["register"]>[0] }>(
      await callAction(server.url, "beginPasskeyAction", [], { cookie: session! }),
    );
    expect(begun.options.rp.id).toBe("127.0.0.1");
    const response = JSON.stringify(device.register(begun.options));
    const added = await callAction(
      server.url,
      "finishPasskeyAction",
      [{ challengeId: begun.challengeId, response, name: "Test key" }],
      { cookie: session! },
    );
    expect(actionData<{ recoveryCodes: string[] }>(added).recoveryCodes).toHaveLength(10);
    // The same answer again: its challenge was taken.
    const again = await callAction(
      server.url,
      "finishPasskeyAction",
      [{ challengeId: begun.challengeId, response, name: "Test key" }],
      { cookie: session! },
    );
    expect(again.body).toContain("The passkey was not added");

    type Request = { challengeId: string; options: Parameters<SoftPasskey["authenticate"]>[0] };
    const ask = async () => actionData<Request>(await callAction(server.url, "passkeyOptionsAction", ["sign_in"]));
    const first = await ask();
    const answer = { challengeId: first.challengeId, response: JSON.stringify(device.authenticate(first.options)) };
    // next-auth's CSRF token is asked for, as for a password.
    expect((await passkeyCallback(server.url, answer, false)).session).toBeNull();
    const signedIn = await passkeyCallback(server.url, answer);
    expect(signedIn.error).toBeNull();
    const who = await send(`${server.url}/api/auth/session`, { headers: { cookie: signedIn.session! } });
    expect(JSON.parse(who.body).user.id).toMatch(/^usr_/);
    // Signed in and past the second factor: the console opens.
    const page = await send(`${server.url}/console/security`, { headers: { cookie: signedIn.session! } });
    expect(page.status).toBe(200);
    expect(page.body).toContain("Test key");

    // Replayed, or signed over another challenge than the one it names: refused.
    expect(await passkeyCallback(server.url, answer)).toEqual({ session: null, error: "CredentialsSignin" });
    const [one, two] = [await ask(), await ask()];
    const crossed = { challengeId: one.challengeId, response: JSON.stringify(device.authenticate(two.options)) };
    expect(await passkeyCallback(server.url, crossed)).toEqual({ session: null, error: "CredentialsSignin" });
    // Signed in a look-alike site's page that relayed the challenge.
    const third = await ask();
    const phished = JSON.stringify(device.authenticate(third.options, { origin: "http://evil.example" }));
    expect(await passkeyCallback(server.url, { challengeId: third.challengeId, response: phished })).toEqual({
      session: null,
      error: "CredentialsSignin",
    });
  });

  it("refuses the passkey actions when signed out", async () => {
    const signedOut = await callAction(server.url, "beginPasskeyAction", []);
    expect(signedOut.body).toContain("sign in again");
    const stepUp = await callAction(server.url, "passkeyOptionsAction", ["step_up"]);
    expect(stepUp.body).toContain("sign in again");
    const proved = await callAction(server.url, "passkeyStepUpAction", [{ challengeId: "pkc_x", response: "{}" }]);
    expect(proved.body).toContain("sign in again");
    const finished = await callAction(server.url, "finishPasskeyAction", [
      { challengeId: "pkc_x", response: "{}", name: "x" },
    ]);
    expect(finished.body).toContain("sign in again");
  });
});
