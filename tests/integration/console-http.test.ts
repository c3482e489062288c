import { decode, encode } from "next-auth/jwt";
import { expect, it } from "vitest";
import { SIGN_IN_LIMITS } from "../../lib/accounts/sign-in.ts";
import {
  cookiesOf,
  postAction,
  serverActionId,
  serverActions,
  signIn,
  type SignInCredentials,
} from "../../testing/console.ts";
import { describeEachBackend } from "../../testing/databases.ts";
import type { RunningServer } from "../../testing/processes.ts";
import { rawExchange, requestHead, sendChunkedUntilAnswered } from "../../testing/raw-http.ts";
import { useConsoleServer } from "../../testing/suites.ts";

// Sign-in through the real server and next-auth's own endpoints, as a browser does it.

const AUTH_SECRET = "an-integration-test-secret-of-enough-length";

describeEachBackend("console sign-in over HTTP on $name", (backend) => {
  let server: RunningServer;
  let demo: SignInCredentials;
  useConsoleServer(backend, { AUTH_SECRET }, (started) => ({ server, demo } = started));

  it("sends signed-out visitors of console pages to the sign-in page", async () => {
    for (const path of ["/console", "/console/keys", "/console/audit"]) {
      const res = await fetch(`${server.url}${path}`, { redirect: "manual" });
      expect(res.status).toBe(307);
      expect(res.headers.get("location")).toMatch(/\/console\/sign-in$/);
    }
  });

  it("signs in with a session cookie that carries the user id and its session's id only, and serves console pages uncached", async () => {
    const { error, session } = await signIn(server.url, demo.email, demo.password);
    expect(error).toBeNull();
    expect(session).not.toBeNull();
    const token = await decode({ token: session!.split("=")[1]!, secret: AUTH_SECRET });
    expect(Object.keys(token!).sort()).toEqual(["exp", "iat", "jti", "sid", "signed_in_at", "sub"]);
    expect(token!.sub).toMatch(/^usr_/);
    expect(token!.sid).toMatch(/^ses_/);

    const res = await fetch(`${server.url}/console/keys`, { headers: { cookie: session! } });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toContain("no-store");
    const html = await res.text();
    expect(html).toContain("Demo Sports Media");
    expect(html).toContain("Create production key");
  });

  it("answers a GET of the credentials callback 405, not 500", async () => {
    const res = await fetch(`${server.url}/api/auth/callback/credentials`);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(((await res.json()) as { code: string }).code).toBe("method_not_allowed");
  });

  it("refuses auth bodies over 64 KB, declared or not, before reading them", async () => {
    const big = new URLSearchParams({ email: demo.email, password: "x".repeat(70_000), csrfToken: "t" });
    const declared = await fetch(`${server.url}/api/auth/callback/credentials`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: big,
    });
    expect(declared.status).toBe(413);
    const bytes = new TextEncoder().encode(big.toString());
    const chunked = await fetch(`${server.url}/api/auth/callback/credentials`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new ReadableStream({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 8_192) controller.enqueue(bytes.subarray(at, at + 8_192));
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(413);
  });

  it("answers 413 to a client still sending a chunked megabyte, every time: the answer is not lost to a reset", async () => {
    // Closed at once, the connection was reset by the body still arriving, and the client lost
    // the answer unread about one time in a hundred: enough tries for that to show.
    const form = `csrfToken=t&email=a%40b.example&password=${"p".repeat(1_000_000)}`;
    const statuses = new Map<number | null, number>();
    for (let i = 0; i < 300; i++) {
      const { status } = await rawExchange(
        server.url,
        (socket) =>
          sendChunkedUntilAnswered(
            socket,
            requestHead("POST", "/api/auth/callback/credentials", [
              ["Host", new URL(server.url).host],
              ["Content-Type", "application/x-www-form-urlencoded"],
              ["Transfer-Encoding", "chunked"],
              ["Connection", "close"],
            ]),
            form,
          ),
        30_000,
      );
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 413: 300 });
  });

  it("ends a session for good at sign-out: a copy of its cookie no longer works", async () => {
    const { session } = await signIn(server.url, demo.email, demo.password);
    const copy = session!;
    expect((await fetch(`${server.url}/console`, { headers: { cookie: copy }, redirect: "manual" })).status).toBe(200);
    const csrf = await fetch(`${server.url}/api/auth/csrf`, { headers: { cookie: copy } });
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const out = await fetch(`${server.url}/api/auth/signout`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie: [copy, ...cookiesOf(csrf)].join("; "),
      },
      body: new URLSearchParams({ csrfToken, json: "true" }),
    });
    expect(out.status).toBe(200);
    const after = await fetch(`${server.url}/console`, { headers: { cookie: copy }, redirect: "manual" });
    expect(after.status).toBe(307);
    expect(await (await fetch(`${server.url}/api/auth/session`, { headers: { cookie: copy } })).json()).toEqual({});
    // Signing in again works.
    const again = await signIn(server.url, demo.email, demo.password);
    expect((await fetch(`${server.url}/console`, { headers: { cookie: again.session! } })).status).toBe(200);
  });

  it("ends a session at its absolute lifetime, however often it was renewed", async () => {
    const { session } = await signIn(server.url, demo.email, demo.password);
    const token = await decode({ token: session!.split("=")[1]!, secret: AUTH_SECRET });
    // The same session, renewed a moment ago (a fresh exp), but signed in 13 hours ago.
    const old = await encode({
      token: { ...token, signed_in_at: Date.now() - 13 * 60 * 60 * 1000 },
      secret: AUTH_SECRET,
    });
    const cookie = `next-auth.session-token=${old}`;
    expect(await (await fetch(`${server.url}/api/auth/session`, { headers: { cookie } })).json()).toEqual({});
    expect((await fetch(`${server.url}/console`, { headers: { cookie }, redirect: "manual" })).status).toBe(307);
  });

  it("treats a malformed session cookie as none, never as a server error", async () => {
    const cookie = "next-auth.session-token=%";
    for (const path of ["/console", "/console/sign-in", "/api/auth/session", "/api/v1/odds", "/api/v1/odds/stream"]) {
      const res = await fetch(`${server.url}${path}`, { headers: { cookie }, redirect: "manual" });
      await res.body?.cancel();
      expect(res.status, path).toBeLessThan(500);
    }
  });

  it("sends a signed-in member only to a path of its own origin after sign-in", async () => {
    const { session } = await signIn(server.url, demo.email, demo.password);
    // As an attacker writes them into a link: %09 is a tab, which URL parsing drops.
    // Dot segments (`/.//`, `/%2e//`) are removed by parsing and leave `//evil.example` or `/\evil.example`.
    for (const next of [
      "/%09/evil.example",
      "//evil.example",
      "/%5Cevil.example",
      "https%3A%2F%2Fevil.example%2F",
      "/.//evil.example",
      "/%2e//evil.example",
      "/./%5Cevil.example",
    ]) {
      const res = await fetch(`${server.url}/console/sign-in?next=${next}`, {
        headers: { cookie: session! },
        redirect: "manual",
      });
      expect(res.status, next).toBe(307);
      const location = res.headers.get("location")!;
      expect(new URL(location, server.url).origin, next).toBe(server.url);
      expect(location, next).not.toMatch(/^[/\\][/\\]/);
      expect(new URL(location, server.url).pathname, next).toBe("/console");
    }
    const kept = await fetch(`${server.url}/console/sign-in?next=${encodeURIComponent("/console/keys?x=1")}`, {
      headers: { cookie: session! },
      redirect: "manual",
    });
    expect(new URL(kept.headers.get("location")!, server.url).pathname).toBe("/console/keys");
  });

  it("shows only its own message for a known ?error= code, never text from the link", async () => {
    const planted = "Your account is locked. Call +1 555 0100 to unlock it.";
    const html = await (await fetch(`${server.url}/console/sign-in?error=${encodeURIComponent(planted)}`)).text();
    expect(html).not.toContain("Call +1 555 0100");
    const known = await (await fetch(`${server.url}/console/sign-in?error=CredentialsSignin`)).text();
    expect(known).toContain("Wrong e-mail or password.");
  });

  it("takes neither its origin nor the cookie's Secure flag from a client's X-Forwarded-Host and -Proto", async () => {
    const csrf = await fetch(`${server.url}/api/auth/csrf`);
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const res = await fetch(`${server.url}/api/auth/callback/credentials`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie: cookiesOf(csrf).join("; "),
        "x-forwarded-host": "evil.example",
        "x-forwarded-proto": "https",
      },
      body: new URLSearchParams({ email: demo.email, password: demo.password, csrfToken, json: "true" }),
    });
    const { url } = (await res.json()) as { url: string };
    expect(new URL(url).origin).toBe(server.url);
    expect(cookiesOf(res).some((c) => c.startsWith("next-auth.session-token="))).toBe(true);
    expect(res.headers.get("strict-transport-security")).toBeNull();
  });

  // The CSRF row of every action, the ones added later included: a signed-in admin's browser made to
  // post from another site is refused before the action runs, while the console's own page is served.
  it("refuses every server action posted from another site, before it runs", async () => {
    const { session } = await signIn(server.url, demo.email, demo.password);
    const actions = serverActions();
    expect(actions.length).toBeGreaterThan(40);
    for (const { name, id } of actions) {
      const answer = await postAction(server.url, "/console/keys", id, {}, undefined, session!, {
        origin: "http://attacker.example",
      });
      // Next refuses the request itself: a 500 whose only row is an error, the action never called.
      expect(answer.status, name).toBe(500);
      expect(answer.body, name).toMatch(/^1:E\{"digest":/m);
    }
    // The same post from the console's own origin reaches the action (a step-up with no code: refused by it, in words).
    const own = await postAction(
      server.url,
      "/console/security",
      serverActionId("stepUpAction"),
      {},
      undefined,
      session!,
      {
        origin: server.url,
      },
    );
    expect(own.status).toBe(200);
    expect(own.body).not.toMatch(/^1:E/m);
    expect(own.body).toContain("Enter");
  });

  it("throttles one client's repeated failed sign-ins for an e-mail, refusing even the right password", async () => {
    for (let i = 0; i < SIGN_IN_LIMITS.perEmailAndAddress; i++) {
      expect((await signIn(server.url, demo.email, `wrong password ${i}`)).error).toBe("CredentialsSignin");
    }
    const refused = await signIn(server.url, demo.email, demo.password);
    expect(refused.error).toBe("Too many failed sign-ins. Try again in 15 minutes.");
    expect(refused.session).toBeNull();
  });

  it("throttles one client guessing across e-mail addresses, whatever X-Forwarded-For it sends", async () => {
    // The earlier test's failures came from this client's address too; fill it up to the limit.
    for (let i = 0; i < SIGN_IN_LIMITS.perAddress; i++) {
      await signIn(server.url, `guess-${i}@nowhere.test`, "wrong password", { "x-forwarded-for": `203.0.113.${i}` });
    }
    const refused = await signIn(server.url, "another@nowhere.test", "wrong password", {
      "x-forwarded-for": "198.51.100.1",
    });
    expect(refused.error).toMatch(/^Too many failed sign-ins/);
  });
});
