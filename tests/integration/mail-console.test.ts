import { afterAll, beforeAll, expect, it } from "vitest";
import { OPERATOR } from "../../lib/accounts/audit.ts";
import { acceptInvitation, createInvitation, signUp } from "../../lib/console/members.ts";
import { createSandboxKey } from "../../lib/keys/index.ts";
import { seedReferenceData } from "../../seeds/index.ts";
import { postAction, serverActionId, signIn } from "../../testing/console.ts";
import { describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { send } from "../../testing/http.ts";
import { withDatabase } from "../../testing/organisations.ts";
import { freePort } from "../../testing/ports.ts";
import { startServer, type RunningServer } from "../../testing/processes.ts";
import { startMailServer, type ReceivedMail, type TestMailServer } from "../../testing/smtp.ts";

// The mail a member controls, and the mail they cannot turn off, through the real server: the
// settings page's own server action over HTTP, sign-ins through next-auth, each message received
// by a real SMTP server and read by mailparser. Different clients are different loopback addresses.
//
// "Got no such mail" is checked against a later message to the same member: the server's one mail
// worker sends a batch whole before it claims the next (lib/poller.ts), and the test's SMTP server
// keeps a message before it accepts it, so a message queued earlier is received before a later one.

const PASSWORD = "correct horse battery staple";
const NEW_DEVICE = /^A sign-in from a new device or network /;
const KEY_REVOKED = /^A key was revoked /;

describeEachBackend("mail settings and security notices over HTTP on $name", { timeout: 300_000 }, (backend) => {
  const database = useTestDatabase(backend);
  let smtp: TestMailServer;
  let server: RunningServer;
  let origin: string;
  const people = {
    member: "member@settings.test",
    otherAdmin: "other-admin@settings.test",
    traveller: "traveller@settings.test",
  };
  let keyId: string;

  beforeAll(async () => {
    smtp = await startMailServer();
    // The server's public address is its own, so that the mailed links can be followed.
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    // Written before the server starts: PGlite admits one process at a time.
    await withDatabase(database().env, async (db) => {
      await seedReferenceData(db);
      const at = new Date();
      const { organisation } = await signUp(db, {
        organisation: "Settings Org",
        name: "Mia",
        email: people.member,
        password: PASSWORD,
      });
      const { token } = await createInvitation(
        db,
        organisation.id,
        { role: "admin" },
        { actor: OPERATOR, at, ttlDays: 7 },
      );
      await acceptInvitation(db, { token, name: "Otto", email: people.otherAdmin, password: PASSWORD }, at);
      const key = await createSandboxKey(
        db,
        organisation.id,
        { sport: "soccer" },
        { actor: OPERATOR, at, ttlDays: 30 },
      );
      keyId = key.summary.id;
      await signUp(db, { organisation: "Travel Org", name: "Tove", email: people.traveller, password: PASSWORD });
    });
    server = await startServer({
      ...database().env,
      PORT: String(port),
      MAIL_URL: smtp.url,
      NEXTAUTH_URL: origin,
      MAIL_RETRY_BASE_MS: "1000",
    });
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.stop();
  });

  const mailTo = (to: string, subject: RegExp) =>
    smtp.next((mail) => mail.to === to && subject.test(mail.subject), 90_000);
  const receivedBy = (to: string, subject: RegExp) =>
    smtp.received.filter((mail) => mail.to === to && subject.test(mail.subject));
  const signedIn = async (email: string, from?: string, userAgent = "Test browser 1") => {
    const { session, error } = await signIn(server.url, email, PASSWORD, { "user-agent": userAgent }, from);
    expect(error).toBeNull();
    return session!;
  };
  const saveSettings = (session: string, ticked: string[]) =>
    postAction(
      server.url,
      "/console/settings",
      serverActionId("saveMailSettingsAction"),
      Object.fromEntries(ticked.map((topic) => [`alert-${topic}`, "on"])),
      undefined,
      session,
    );
  /** The settings page's checkboxes as the member's browser gets them: topic → ticked. */
  const settingsPage = async (url: string, session: string) => {
    const page = await send(url, { headers: { cookie: session } });
    expect(page.status).toBe(200);
    return Object.fromEntries(
      [...page.body.matchAll(/<input[^>]*name="alert-([a-z]+)"[^>]*>/g)].map((input) => [
        input[1]!,
        /\schecked=/.test(input[0]),
      ]),
    );
  };
  const unsubscribeUrl = (mail: ReceivedMail) =>
    /^List-Unsubscribe: <([^>]+)>$/i.exec(mail.headerLines.find((line) => /^list-unsubscribe:/i.test(line)) ?? "")?.[1];

  it("sends a member none of the alerts they turned off on the settings page, while another admin still gets them", async () => {
    const member = await signedIn(people.member);
    const otherAdmin = await signedIn(people.otherAdmin);
    expect(await settingsPage(`${server.url}/console/settings`, member)).toEqual({
      usage: true,
      keys: true,
      licence: true,
      webhooks: true,
    });

    // The member unticks "Keys expiring in 7 days and keys revoked" and saves, as the page's form does.
    const saved = await saveSettings(member, ["usage", "licence", "webhooks"]);
    expect(saved.body).toContain("Saved: only the alerts ticked are mailed to you.");
    expect(await settingsPage(`${server.url}/console/settings`, member)).toEqual({
      usage: true,
      keys: false,
      licence: true,
      webhooks: true,
    });

    // The other admin revokes a key in the console: an alert to the organisation's admins.
    const revoked = await postAction(
      server.url,
      "/console/keys",
      serverActionId("revokeKeyAction"),
      { keyId },
      undefined,
      otherAdmin,
    );
    expect(revoked.body).toContain("Key revoked");
    const alert = await mailTo(people.otherAdmin, KEY_REVOKED);

    // The alert's List-Unsubscribe is the settings page, where its topic is the one to untick.
    const unsubscribe = unsubscribeUrl(alert);
    expect(unsubscribe).toBe(`${origin}/console/settings`);
    expect((await settingsPage(unsubscribe!, otherAdmin)).keys).toBe(true);
    expect(await send(unsubscribe!)).toMatchObject({ status: 307 });

    // A later message to the member (a security notice: a sign-in from another network) arrives,
    // and no key alert came before it.
    await signedIn(people.member, "127.0.0.2");
    await mailTo(people.member, NEW_DEVICE);
    expect(receivedBy(people.member, KEY_REVOKED)).toEqual([]);
    expect(receivedBy(people.otherAdmin, KEY_REVOKED)).toHaveLength(1);
  });

  it("sends security notices whatever the settings: they have no box to untick", async () => {
    const member = await signedIn(people.member);
    // Every alert off, and a made-up topic for the security notices (the page offers none).
    const saved = await saveSettings(member, ["security"]);
    expect(saved.body).toContain("Saved");
    expect(await settingsPage(`${server.url}/console/settings`, member)).toEqual({
      usage: false,
      keys: false,
      licence: false,
      webhooks: false,
    });
    const before = receivedBy(people.member, NEW_DEVICE).length;
    await signedIn(people.member, "127.0.0.3");
    const notice = await smtp.next(
      (mail) => mail.to === people.member && NEW_DEVICE.test(mail.subject) && mail.text.includes("127.0.0.3"),
      90_000,
    );
    expect(receivedBy(people.member, NEW_DEVICE)).toHaveLength(before + 1);
    // Not an alert: nothing to unsubscribe from.
    expect(unsubscribeUrl(notice)).toBeUndefined();
  });

  it("mails a member a sign-in from a new network or browser, once each, and not a repeat from the same one", async () => {
    const who = people.traveller;
    // The first sign-in ever is new by definition and tells nothing; the same device again, nothing.
    await signedIn(who, "127.0.0.1", "Browser A");
    await signedIn(who, "127.0.0.1", "Browser A");
    // Another network, the same browser: a notice naming the network.
    await signedIn(who, "127.0.0.5", "Browser A");
    const network = await mailTo(who, NEW_DEVICE);
    expect(network.text).toContain("network 127.0.0.5");
    expect(network.links).toContain(`${origin}/console/forgot-password`);
    // The same network, another browser: a notice naming the browser.
    await signedIn(who, "127.0.0.5", "Browser B");
    await smtp.next((mail) => mail.to === who && NEW_DEVICE.test(mail.subject) && mail.text.includes("Browser B"));
    // Both again: nothing.
    await signedIn(who, "127.0.0.5", "Browser B");
    await signedIn(who, "127.0.0.1", "Browser A");

    // A later message to the same member (a password reset asked for) arrives after any notice would.
    const asked = await postAction(
      server.url,
      "/console/forgot-password",
      serverActionId("forgotPasswordAction"),
      { email: who },
      "127.0.0.6",
    );
    expect(asked.status).toBe(200);
    await mailTo(who, /^Reset your password /);
    const notices = receivedBy(who, NEW_DEVICE);
    expect(notices.map((mail) => /network (\S+); (.+?)\)/.exec(mail.text)?.slice(1, 3))).toEqual([
      ["127.0.0.5", "Browser A"],
      ["127.0.0.5", "Browser B"],
    ]);
  });
});
