import { afterAll, beforeAll, expect, it } from "vitest";
import { INVITATION_LIMITS } from "../../lib/accounts/sign-up-limits.ts";
import { randomBase62 } from "../../lib/ids.ts";
import { postAction, serverActionId } from "../../testing/console.ts";
import { describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { startServer, type RunningServer } from "../../testing/processes.ts";
import { SIGN_UP_ANSWER } from "../../lib/accounts/mail/sign-up.ts";

// Floods of the console's account forms through the real server, as a script posts them to the
// server actions: invalid sign-ups must not use up everyone's sign-ups, and made-up invitation
// tokens are throttled per network. Different clients are different loopback addresses.

describeEachBackend("console floods over HTTP on $name", { timeout: 300_000 }, (backend) => {
  const database = useTestDatabase(backend);
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer(database().env);
  });
  afterAll(() => server?.stop());

  it("lets a valid sign-up from a fresh address through after 300 invalid posts from 15 addresses", async () => {
    const signUp = serverActionId("signUpAction");
    for (let address = 0; address < 15; address++) {
      for (let i = 0; i < 20; i++) {
        // No password: refused by the form's rules, before anything is counted or hashed.
        const answer = await postAction(
          server.url,
          "/console/sign-up",
          signUp,
          { organisation: `Flood ${address}-${i}`, name: "Flood", email: `flood-${address}-${i}@floods.test` },
          `127.0.0.${10 + address}`,
        );
        expect(answer.status).toBeLessThan(500);
        expect(answer.body).not.toContain("Too many sign-ups");
      }
    }
    const valid = await postAction(
      server.url,
      "/console/sign-up",
      signUp,
      { organisation: "Fresh Arrivals", name: "Fay", email: "fay@floods.test", password: randomBase62(20) },
      "127.0.0.40",
    );
    expect(valid.body).not.toContain("Too many sign-ups");
    // Sign-up is confirmed by mail: the form's answer is the same for every valid address.
    expect(valid.body, valid.body).toContain(SIGN_UP_ANSWER.slice(0, 40));
  });

  it("throttles accepting invitations per network, made-up tokens included", async () => {
    const accept = serverActionId("acceptInvitationAction");
    const attempt = (from: string, i: number) =>
      postAction(
        server.url,
        `/console/invite/made-up-${i}`,
        accept,
        { token: `made-up-token-${i}`, name: "Guess", email: `guess-${i}@floods.test`, password: randomBase62(20) },
        from,
      );
    for (let i = 0; i < INVITATION_LIMITS.perNetwork; i++) {
      const answer = await attempt("127.0.0.50", i);
      expect(answer.body).toContain("This invitation link is not valid");
    }
    expect((await attempt("127.0.0.50", 99)).body).toContain("Too many attempts to accept invitations");
    expect((await attempt("127.0.0.51", 100)).body).toContain("This invitation link is not valid");
  });
});
