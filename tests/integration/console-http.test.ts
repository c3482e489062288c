import { decode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIGN_IN_LIMITS } from "../../lib/console/sign-in.ts";
import { BACKENDS, useTestDatabase } from "./support/databases.ts";
import { startServer, type RunningServer } from "./support/processes.ts";
import { demoSignIn, signIn } from "./support/console.ts";

// Sign-in through the real server and next-auth's own endpoints, as a browser does it.

const AUTH_SECRET = "an-integration-test-secret-of-enough-length";

describe.each(BACKENDS)("console sign-in over HTTP on $name", (backend) => {
  const database = useTestDatabase(backend);
  let server: RunningServer;
  let demo: { email: string; password: string };

  beforeAll(async () => {
    server = await startServer({ ...database().env, AUTH_SECRET });
    demo = demoSignIn(server.output());
  });
  afterAll(() => server?.stop());

  it("sends signed-out visitors of console pages to the sign-in page", async () => {
    for (const path of ["/console", "/console/keys", "/console/audit"]) {
      const res = await fetch(`${server.url}${path}`, { redirect: "manual" });
      expect(res.status).toBe(307);
      expect(res.headers.get("location")).toMatch(/\/console\/sign-in$/);
    }
  });

  it("signs in with a session cookie that carries the user id only, and serves console pages uncached", async () => {
    const { error, session } = await signIn(server.url, demo.email, demo.password);
    expect(error).toBeNull();
    expect(session).not.toBeNull();
    const token = await decode({ token: session!.split("=")[1]!, secret: AUTH_SECRET });
    expect(Object.keys(token!).sort()).toEqual(["exp", "iat", "jti", "sub"]);
    expect(token!.sub).toMatch(/^usr_/);

    const res = await fetch(`${server.url}/console/keys`, { headers: { cookie: session! } });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toContain("no-store");
    const html = await res.text();
    expect(html).toContain("Demo Sports Media");
    expect(html).toContain("Create production key");
  });

  it("throttles repeated failed sign-ins for an e-mail, refusing even the right password", async () => {
    for (let i = 0; i < SIGN_IN_LIMITS.perEmail; i++) {
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
