import { afterAll, beforeAll, expect, it } from "vitest";
import { OPERATOR } from "../../lib/accounts/audit.ts";
import { sealingKey } from "../../lib/accounts/factors/sealing.ts";
import { setPlan } from "../../lib/accounts/plans.ts";
import { addDomain, saveConnection, verifyDomain } from "../../lib/accounts/sso/connections.ts";
import { SSO_REQUIRED_MESSAGE } from "../../lib/accounts/sso/policy.ts";
import { SSO_REFUSALS } from "../../lib/accounts/sso/refusals.ts";
import { addMember } from "../../lib/accounts/users.ts";
import { signUp } from "../../lib/console/members.ts";
import { seedReferenceData } from "../../seeds/index.ts";
import { postAction, serverActionId, signIn } from "../../testing/console.ts";
import { describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { recordSecret } from "../../testing/logs.ts";
import { CookieJar, startProvider, throughProvider, type TestProvider } from "../../testing/oidc.ts";
import { withDatabase } from "../../testing/organisations.ts";
import { freePort } from "../../testing/ports.ts";
import { startServer, type RunningServer } from "../../testing/processes.ts";

// Single sign-on through a real OpenID Connect provider (oidc-provider, started here), over the
// real server: the browser's part is played with a cookie jar that follows the redirects and logs
// in at the provider's own pages. Everything the server must know is set up before it starts, as
// PGlite admits one process at a time.

const AUTH_SECRET = "the single sign-on suite's secret, long enough";
const PASSWORD = "correct horse battery staple";
const at = new Date();

describeEachBackend("single sign-on through the organisation's provider on $name", (backend) => {
  const database = useTestDatabase(backend);
  let server: RunningServer;
  let provider: TestProvider;
  let callback: string;

  beforeAll(async () => {
    const port = await freePort();
    callback = `http://127.0.0.1:${port}/api/sso/callback`;
    provider = await startProvider(callback);
    recordSecret(provider.clientSecret);
    recordSecret(PASSWORD);
    const key = sealingKey(AUTH_SECRET);
    await withDatabase(database().env, async (db) => {
      await seedReferenceData(db);
      // Corp lets passwords be used; Strict requires its provider.
      for (const [name, domain, requireSso] of [
        ["Corp", "corp.example", ""],
        ["Strict", "strict.example", "on"],
      ] as const) {
        const { organisation, user } = await signUp(db, {
          organisation: name,
          name: "Admin",
          email: `admin@${domain}`,
          password: PASSWORD,
        });
        const actor = { userId: user.id, label: user.email };
        await setPlan(db, organisation.id, "enterprise", OPERATOR);
        await saveConnection(
          db,
          organisation.id,
          {
            issuer: provider.issuer,
            clientId: provider.clientId,
            clientSecret: provider.clientSecret,
            joinRole: "viewer",
            ...(requireSso ? { requireSso } : {}),
          },
          { actor, key, access: { allowPrivate: true }, at },
        );
        await addDomain(db, organisation.id, { domain }, actor);
        await verifyDomain(db, organisation.id, domain, { actor: OPERATOR, at, by: "operator" });
        await addMember(
          db,
          { orgId: organisation.id, email: `viewer@${domain}`, name: "Viewer", password: PASSWORD, role: "viewer" },
          actor,
        );
      }
      // An organisation without single sign-on, whose member's address is in Corp's domain.
      await signUp(db, { organisation: "Elsewhere", name: "Other", email: "other@corp.example", password: PASSWORD });
    });
    server = await startServer({ ...database().env, AUTH_SECRET, PORT: String(port), SSO_ALLOW_PRIVATE: "1" });
  });
  afterAll(async () => {
    await server?.stop();
    await provider?.close();
  });

  /** Begins a sign-in for `email` in a new browser and walks the provider's pages as `login`. */
  async function begin(email: string, login = email) {
    const jar = new CookieJar();
    const started = await jar.fetch(`${server.url}/api/sso/start`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, next: "/console/keys" }),
    });
    expect(started.status).toBe(200);
    const { url } = (await started.json()) as { url: string };
    const authorization = new URL(url);
    expect(authorization.origin).toBe(provider.issuer);
    expect(authorization.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorization.searchParams.get("nonce")).toBeTruthy();
    return { jar, back: await throughProvider(jar, url, login, callback) };
  }

  /** Opens the callback in the jar's browser: where it sends it, and the session cookie it set. */
  async function finish(jar: CookieJar, back: URL) {
    const answer = await jar.fetch(back.href.replace(callback, `${server.url}/api/sso/callback`));
    expect(answer.status).toBe(303);
    const location = new URL(answer.headers.get("location")!, server.url);
    const session = jar.get(new URL(server.url), "next-auth.session-token");
    recordSecret(session);
    return { location: `${location.pathname}${location.search}`, session };
  }

  it("signs a new address of a verified domain in, as the chosen role, through the same session checks as a password", async () => {
    const { jar, back } = await begin("ada@corp.example");
    const { location, session } = await finish(jar, back);
    expect(location).toBe("/console/keys");
    expect(session).not.toBeNull();
    const page = await fetch(`${server.url}/console/members`, {
      headers: { cookie: `next-auth.session-token=${session}` },
    });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("ada@corp.example");
    // Ada's own page: she joined Corp as a viewer.
    expect(html).toContain('data-testid="organisation-name">Corp</p>');
    expect(html).toContain('data-testid="role">viewer</span>');
    // The audit log tells how the member joined and signed in.
    const audit = await (
      await fetch(`${server.url}/console/audit`, { headers: { cookie: `next-auth.session-token=${session}` } })
    ).text();
    expect(audit).toContain("joined as a viewer");
    expect(audit).toContain("signed in through single sign-on");

    // Again, now an existing member: signed in, not added twice.
    const again = await begin("ada@corp.example");
    expect((await finish(again.jar, again.back)).location).toBe("/console/keys");
    const members = await (
      await fetch(`${server.url}/console/members`, { headers: { cookie: `next-auth.session-token=${session}` } })
    ).text();
    // Ada is listed once among the members.
    expect(members.match(/>ada@corp\.example<\/span>/g)).toHaveLength(1);
  });

  it("refuses a wrong state, a state used twice and a callback opened in another browser", async () => {
    const { jar, back } = await begin("bob@corp.example");
    const wrong = new URL(back);
    wrong.searchParams.set("state", "a-state-this-server-never-gave");
    expect(await finish(jar, wrong)).toEqual({ location: "/console/sign-in?sso=state", session: null });

    // The same callback in a browser that did not begin the sign-in (a link sent to a victim).
    expect(await finish(new CookieJar(), back)).toEqual({ location: "/console/sign-in?sso=state", session: null });

    // The right one is still good once, then no more, even with the cookie of the browser that began.
    const browser = jar.get(new URL(server.url), "sso-browser");
    expect(browser).not.toBeNull();
    expect((await finish(jar, back)).location).toBe("/console/keys");
    const replay = await fetch(back.href, { headers: { cookie: `sso-browser=${browser}` }, redirect: "manual" });
    expect(replay.headers.get("location")).toMatch(/\/console\/sign-in\?sso=state$/);
    expect(replay.headers.getSetCookie().some((c) => c.startsWith("next-auth.session-token="))).toBe(false);
  });

  for (const [mode, what] of [
    ["nonce", "an ID token with another sign-in's nonce"],
    ["expired", "an expired ID token"],
    ["foreign-key", "an ID token signed by a key the provider never published"],
  ] as const) {
    it(`refuses ${what}, opening no session`, async () => {
      const { jar, back } = await begin("carol@corp.example");
      provider.tamper(mode);
      try {
        expect(await finish(jar, back)).toEqual({ location: "/console/sign-in?sso=token", session: null });
      } finally {
        provider.tamper(null);
      }
    });
  }

  it("refuses an address outside the verified domains, or one the provider did not confirm", async () => {
    const outside = await begin("dave@corp.example", "dave@elsewhere.example");
    expect(await finish(outside.jar, outside.back)).toEqual({ location: "/console/sign-in?sso=domain", session: null });
    const unconfirmed = await begin("erin@corp.example", "unverified:erin@corp.example");
    expect(await finish(unconfirmed.jar, unconfirmed.back)).toEqual({
      location: "/console/sign-in?sso=email",
      session: null,
    });
    // An address of the domain whose account belongs to another organisation is not taken over.
    const taken = await begin("other@corp.example");
    expect(await finish(taken.jar, taken.back)).toEqual({ location: "/console/sign-in?sso=account", session: null });
    // Nor is a domain no organisation verified led anywhere.
    const none = await fetch(`${server.url}/api/sso/start`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "someone@unclaimed.example" }),
    });
    expect(none.status).toBe(404);
  });

  it("words each refusal on the sign-in page from its code only", async () => {
    const page = await (await fetch(`${server.url}/console/sign-in?sso=domain`)).text();
    expect(page).toContain(SSO_REFUSALS.domain.replaceAll("'", "&#x27;"));
    const forged = await (await fetch(`${server.url}/console/sign-in?sso=${encodeURIComponent("Call +1 555")}`)).text();
    expect(forged).not.toContain("Call +1 555");
  });

  it("with “require SSO”, refuses a member's password but keeps an admin's, who must add a second factor", async () => {
    const strict = await signIn(server.url, "viewer@strict.example", PASSWORD);
    expect(strict).toEqual({ error: SSO_REQUIRED_MESSAGE, session: null });
    // Where SSO is not required the password still works.
    expect((await signIn(server.url, "viewer@corp.example", PASSWORD)).session).not.toBeNull();
    // The admin's way back in: the password, then enrolment of a second factor before anything else.
    const admin = await signIn(server.url, "admin@strict.example", PASSWORD);
    expect(admin.error).toBeNull();
    const home = await fetch(`${server.url}/console`, { headers: { cookie: admin.session! }, redirect: "manual" });
    expect(home.headers.get("location")).toContain("/console/sign-in/second-step");
    // The member signs in through the provider instead.
    const { jar, back } = await begin("viewer@strict.example");
    expect((await finish(jar, back)).location).toBe("/console/keys");
  });

  it("refuses a cross-site post of a single sign-on setting, and takes it from the console's own page", async () => {
    const { session } = await signIn(server.url, "admin@corp.example", PASSWORD);
    const add = serverActionId("addSsoDomainAction");
    // As a browser posts the form: from a page of another site, then from the console's own.
    const fromSite = (origin: string, domain: string) =>
      postAction(server.url, "/console/members/sso", add, { domain }, undefined, session!, { origin });
    const crossSite = await fromSite("http://attacker.example", "cross-site.example");
    expect(crossSite.status).not.toBe(200);
    const own = await fromSite(server.url, "own-page.example");
    expect(own.status).toBe(200);
    const page = await (await fetch(`${server.url}/console/members/sso`, { headers: { cookie: session! } })).text();
    expect(page).toContain("own-page.example");
    expect(page).not.toContain("cross-site.example");
  });
});
