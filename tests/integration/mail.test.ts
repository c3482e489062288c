import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { smtpMailer } from "../../lib/accounts/mail/mailer.ts";
import { attemptsOf, listMail, queueMail } from "../../lib/accounts/mail/outbox.ts";
import { compose } from "../../lib/accounts/mail/messages.ts";
import {
  INVALID_RESET_LINK,
  requestPasswordReset,
  RESET_LIMITS,
  resetPasswordWithLink,
} from "../../lib/accounts/mail/password-reset.ts";
import { confirmSignUp, INVALID_SIGN_UP_LINK, requestSignUp } from "../../lib/accounts/mail/sign-up.ts";
import { redeemSignInGrant } from "../../lib/accounts/mail/tokens.ts";
import { MailWorker } from "../../lib/accounts/mail/worker.ts";
import { noticeLapsingLicences } from "../../lib/accounts/mail/lapse.ts";
import { OPERATOR } from "../../lib/accounts/audit.ts";
import { reviewLicence, setLicence } from "../../lib/accounts/licences.ts";
import { createInvitation, findInvitation, signUp } from "../../lib/console/members.ts";
import { sessionActive } from "../../lib/accounts/sessions.ts";
import { signInWithPassword } from "../../lib/accounts/sign-in.ts";
import { followOutboxes, startChangeBus } from "../../lib/bus/index.ts";
import { openDatabase, type Database, type DatabaseHandle } from "../../lib/db/index.ts";
import { licences, memberships, organisations, users } from "../../lib/db/schema/index.ts";
import { seedReferenceData } from "../../seeds/index.ts";
import { describeEachBackend, POSTGRES, useTestDatabase } from "../../testing/databases.ts";
import { startServer } from "../../testing/processes.ts";
import { startMailServer, type ReceivedMail, type TestMailServer } from "../../testing/smtp.ts";

// Mail through a real SMTP server of the test's own, each message read as a mail client reads it:
// the links work once and expire, sign-up answers alike for a taken address, a reset ends the
// member's other sessions, and a mail server that was down gets everything once.

const PASSWORD = "correct horse battery staple";
const ORIGIN = "http://console.test";
let counter = 0;
const unique = (label: string) => `${label}-${++counter}-${Date.now().toString(36)}`;
const tokenOf = (mail: ReceivedMail, path: string) => {
  const link = mail.links.find((url) => url.startsWith(`${ORIGIN}${path}`));
  if (!link) throw new Error(`no ${path} link in: ${mail.text}`);
  return new URL(link).searchParams.get("token") ?? link.slice(link.lastIndexOf("/") + 1);
};

describeEachBackend("mail on $name", { timeout: 120_000 }, (backend) => {
  const database = useTestDatabase(backend);
  let handle: DatabaseHandle;
  let db: Database;
  let smtp: TestMailServer;
  let worker: MailWorker;
  const at = () => new Date();

  beforeAll(async () => {
    handle = await openDatabase(database().config);
    db = handle.db;
    await seedReferenceData(db);
    smtp = await startMailServer();
    worker = new MailWorker(
      db,
      { mailer: smtpMailer(smtp.url, "Data <data@test.example>"), retryBaseMs: 200, origin: ORIGIN, keep: () => {} },
      at,
    );
    worker.start();
  });
  afterAll(async () => {
    await worker?.stop();
    await smtp?.stop();
    await handle?.close();
  });

  const mailTo = (email: string, subject: RegExp) => {
    worker.wake();
    return smtp.next((mail) => mail.to === email && subject.test(mail.subject));
  };

  it("sends a message queued anywhere at once: its notice on the bus wakes the worker, not its next idle look", async () => {
    const bus = await startChangeBus(handle);
    const stop = await followOutboxes(bus, { mail: worker, webhooks: { wake() {} } });
    try {
      // A look just ended: the worker's next idle look is 10 s away, twice the wait below.
      worker.wake();
      await worker.drain();
      const email = `${unique("told")}@mail.test`;
      await db.transaction((tx) =>
        queueMail(tx, compose({ kind: "test", to: email, subject: "Told", paragraphs: ["x"] }), at()),
      );
      expect((await smtp.next((mail) => mail.to === email, 5_000)).subject).toMatch(/^Told/);
    } finally {
      stop();
      await bus.close();
    }
  });

  it("confirms a sign-up by a mailed link that creates the organisation once, and signs in once", async () => {
    const email = `${unique("new")}@mail.test`;
    const organisation = unique("Mailed Org");
    await requestSignUp(db, { organisation, name: "Ada", email, password: PASSWORD }, { at: at(), origin: ORIGIN });
    // Nothing exists before the link is opened.
    expect(await db.select().from(users).where(eq(users.email, email))).toHaveLength(0);
    const mail = await mailTo(email, /Confirm your sign-up/);
    expect(mail.html).toContain("Create the organisation");
    expect(mail.headerLines.some((line) => /^list-unsubscribe:/i.test(line))).toBe(false);
    const token = tokenOf(mail, "/console/sign-up/confirm");

    const { grant } = await confirmSignUp(db, token, at());
    const [user] = await db.select().from(users).where(eq(users.email, email));
    const [membership] = await db.select().from(memberships).where(eq(memberships.userId, user!.id));
    expect(membership?.role).toBe("admin");
    expect(await redeemSignInGrant(db, grant, at())).toBe(user!.id);
    expect(await redeemSignInGrant(db, grant, at())).toBeNull();
    await expect(confirmSignUp(db, token, at())).rejects.toThrow(INVALID_SIGN_UP_LINK);
    // The password chosen on the form is the one that signs in.
    expect((await signInWithPassword(db, { email, password: PASSWORD, address: "192.0.2.1" }, at())).ok).toBe(true);
  });

  it("lets a sign-up link expire after 24 hours", async () => {
    const email = `${unique("late")}@mail.test`;
    const asked = at();
    await requestSignUp(
      db,
      { organisation: unique("Late Org"), name: "Ada", email, password: PASSWORD },
      { at: asked, origin: ORIGIN },
    );
    const token = tokenOf(await mailTo(email, /Confirm your sign-up/), "/console/sign-up/confirm");
    await expect(confirmSignUp(db, token, new Date(asked.getTime() + 24 * 3_600_000 + 1_000))).rejects.toThrow(
      INVALID_SIGN_UP_LINK,
    );
    expect(await db.select().from(users).where(eq(users.email, email))).toHaveLength(0);
  });

  it("answers a sign-up with a registered address alike, and tells its owner instead of creating anything", async () => {
    const email = `${unique("taken")}@mail.test`;
    await signUp(db, { organisation: unique("Taken Org"), name: "Ada", email, password: PASSWORD });
    const before = (await db.select().from(organisations)).length;
    // Resolves as a new address's request does: the form shows the same answer.
    await expect(
      requestSignUp(
        db,
        { organisation: unique("Other Org"), name: "Eve", email, password: PASSWORD },
        { at: at(), origin: ORIGIN },
      ),
    ).resolves.toBeUndefined();
    const mail = await mailTo(email, /Someone tried to sign up/);
    expect(mail.text).toContain(`${ORIGIN}/console/sign-in`);
    expect(mail.links).toContain(`${ORIGIN}/console/forgot-password`);
    expect((await db.select().from(organisations)).length).toBe(before);
  });

  it("resets a forgotten password by a single-use link that ends every session and tells the member", async () => {
    const email = `${unique("forgot")}@mail.test`;
    const { user } = await signUp(db, { organisation: unique("Forgot Org"), name: "Ada", email, password: PASSWORD });
    const signedInAt = Date.now() - 1_000;
    expect(await sessionActive(db, user.id, signedInAt, at())).toBe(true);

    await requestPasswordReset(db, { email, address: "192.0.2.10" }, { at: at(), origin: ORIGIN });
    const token = tokenOf(await mailTo(email, /Reset your password/), "/console/reset-password");
    const newPassword = "a brand new password for ada";
    const { grant } = await resetPasswordWithLink(db, { token, password: newPassword }, { at: at(), origin: ORIGIN });

    // The session signed in before the reset (another device's) is over; the grant signs in once.
    expect(await sessionActive(db, user.id, signedInAt, at())).toBe(false);
    expect(await redeemSignInGrant(db, grant, at())).toBe(user.id);
    expect(await sessionActive(db, user.id, Date.now(), at())).toBe(true);
    await expect(
      resetPasswordWithLink(db, { token, password: "yet another password!" }, { at: at(), origin: ORIGIN }),
    ).rejects.toThrow(INVALID_RESET_LINK);
    expect((await signInWithPassword(db, { email, password: newPassword, address: "192.0.2.10" }, at())).ok).toBe(true);
    await mailTo(email, /Your password was changed/);
  });

  it("lets a reset link expire after 30 minutes, and sends nothing for an unknown address", async () => {
    const email = `${unique("slow")}@mail.test`;
    await signUp(db, { organisation: unique("Slow Org"), name: "Ada", email, password: PASSWORD });
    const asked = at();
    await requestPasswordReset(db, { email, address: "192.0.2.11" }, { at: asked, origin: ORIGIN });
    const token = tokenOf(await mailTo(email, /Reset your password/), "/console/reset-password");
    await expect(
      resetPasswordWithLink(
        db,
        { token, password: "too late for this one" },
        { at: new Date(asked.getTime() + 31 * 60_000), origin: ORIGIN },
      ),
    ).rejects.toThrow(INVALID_RESET_LINK);

    const nobody = `${unique("nobody")}@mail.test`;
    await expect(
      requestPasswordReset(db, { email: nobody, address: "192.0.2.11" }, { at: at(), origin: ORIGIN }),
    ).resolves.toBeUndefined();
    await worker.drain();
    expect(await listMail(db, { recipient: nobody })).toHaveLength(0);
  });

  it("throttles reset requests per recipient (silently) and per network (said)", async () => {
    const email = `${unique("flood")}@mail.test`;
    await signUp(db, { organisation: unique("Flood Org"), name: "Ada", email, password: PASSWORD });
    for (let i = 0; i < RESET_LIMITS.perRecipient + 2; i++) {
      await requestPasswordReset(db, { email, address: `198.51.100.${i + 1}` }, { at: at(), origin: ORIGIN });
    }
    expect(await listMail(db, { recipient: email })).toHaveLength(RESET_LIMITS.perRecipient);
    for (let i = 0; i < RESET_LIMITS.perNetwork; i++) {
      await requestPasswordReset(
        db,
        { email: `${unique("n")}@mail.test`, address: "203.0.113.7" },
        { at: at(), origin: ORIGIN },
      );
    }
    await expect(
      requestPasswordReset(
        db,
        { email: `${unique("n")}@mail.test`, address: "203.0.113.7" },
        { at: at(), origin: ORIGIN },
      ),
    ).rejects.toThrow(/Too many password resets/);
  });

  it("mails an invitation whose link is the one the admin may copy", async () => {
    const admin = `${unique("admin")}@mail.test`;
    const { organisation } = await signUp(db, {
      organisation: unique("Inviting Org"),
      name: "Ada",
      email: admin,
      password: PASSWORD,
    });
    const invitee = `${unique("invitee")}@mail.test`;
    const { token, mailed } = await createInvitation(
      db,
      organisation.id,
      { role: "viewer", email: invitee },
      { actor: { userId: null, label: admin }, at: at(), ttlDays: 7, origin: ORIGIN },
    );
    expect(mailed).toBe(true);
    const mail = await mailTo(invitee, /Join /);
    expect(mail.links).toContain(`${ORIGIN}/console/invite/${token}`);
    expect(await findInvitation(db, token, at())).toMatchObject({
      organisationName: organisation.name,
      role: "viewer",
    });
  });

  it("mails the admins a licence's decision, and its coming lapse once at 30 days and once at 7", async () => {
    const email = `${unique("lapse")}@mail.test`;
    const { organisation } = await signUp(db, {
      organisation: unique("Lapse Org"),
      name: "Ada",
      email,
      password: PASSWORD,
    });
    const now = at();
    const validUntil = new Date(now.getTime() + 20 * 86_400_000).toISOString().slice(0, 10);
    await setLicence(
      db,
      organisation.id,
      { reference: unique("REF"), authority: "Authority", holder: "Holder Ltd", validUntil },
      OPERATOR,
      now,
    );
    await reviewLicence(db, organisation.id, "verify", { actor: OPERATOR, at: now });
    await mailTo(email, /Your licence was verified/);
    expect(await noticeLapsingLicences(db, now)).toBe(1);
    expect(await noticeLapsingLicences(db, now)).toBe(0);
    const lapse30 = await mailTo(email, /Your licence lapses in 20 days/);
    expect(lapse30.headerLines.some((line) => /^list-unsubscribe:/i.test(line))).toBe(true);
    // Within 7 days of its end (the end moved, rather than the clock: mail is due when queued).
    const soon = new Date(now.getTime() + 6 * 86_400_000).toISOString().slice(0, 10);
    await db.update(licences).set({ validUntil: soon }).where(eq(licences.orgId, organisation.id));
    expect(await noticeLapsingLicences(db, now)).toBe(1);
    await mailTo(email, /Your licence lapses in 6 days/);
  });

  it("puts List-Unsubscribe on alerts, not on security notices", async () => {
    const email = `${unique("alert")}@mail.test`;
    await queueMail(
      db,
      compose({
        kind: "alert.test",
        to: email,
        subject: "An alert",
        paragraphs: ["x"],
        unsubscribe: `${ORIGIN}/console/settings`,
      }),
      at(),
    );
    const mail = await mailTo(email, /An alert/);
    expect(mail.headerLines).toContain(`List-Unsubscribe: <${ORIGIN}/console/settings>`);
  });
});

// The 30 seconds in `npm run test:long`; a shorter outage, past three failed attempts, in `npm test`.
const OUTAGE_SECONDS = process.env.TEST_LONG === "1" ? 30 : 6;
const FAILED_ATTEMPTS = 3;

describe.runIf(POSTGRES)("mail from two server processes on one PostgreSQL database", () => {
  it(
    `delivers everything exactly once after the mail server was down for ${OUTAGE_SECONDS} seconds`,
    { timeout: 240_000 },
    async () => {
      // A database of this try's own: a retry must not find the last try's messages still queued.
      const database = await POSTGRES!.create();
      const smtp = await startMailServer();
      await smtp.stop();
      const env = {
        ...database.env,
        MAIL_URL: smtp.url,
        NEXTAUTH_URL: "http://console.test",
        MAIL_RETRY_BASE_MS: "1000",
      };
      const first = await startServer(env);
      const second = await startServer(env);
      const handle = await openDatabase(database.config);
      try {
        const recipients = Array.from({ length: 30 }, (_, i) => `outage-${i}@mail.test`);
        for (const to of recipients) {
          await queueMail(
            handle.db,
            compose({ kind: "test", to, subject: `Outage ${to}`, paragraphs: ["x"] }),
            new Date(),
          );
        }
        // Both instances try, and fail, while the server is away: for the outage's length, and past
        // three failed attempts of every message however slow the machine.
        const outage = new Promise((resolve) => setTimeout(resolve, OUTAGE_SECONDS * 1000));
        await until(async () =>
          (await listMail(handle.db, { limit: 100 })).every((m) => m.attempts >= FAILED_ATTEMPTS),
        );
        await outage;
        const queued = await listMail(handle.db, { limit: 100 });
        expect(queued.map((m) => m.recipient).sort()).toEqual([...recipients].sort());
        expect(queued.every((m) => m.state === "pending" && m.lastResult?.includes("ECONNREFUSED"))).toBe(true);
        await smtp.start();
        for (const to of recipients) await smtp.next((mail) => mail.to === to, 120_000);
        // Every message is marked sent, and a while later still nothing came twice.
        await until(
          async () => (await listMail(handle.db, { state: "sent", limit: 100 })).length === recipients.length,
        );
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        const notOnce = recipients.filter((to) => smtp.received.filter((mail) => mail.to === to).length !== 1);
        const attempts = await Promise.all(
          queued.filter((m) => notOnce.includes(m.recipient)).map((m) => attemptsOf(handle.db, m.id)),
        );
        expect({ notOnce, attempts }).toEqual({ notOnce: [], attempts: [] });
        const ids = smtp.received.map((mail) => mail.messageId);
        expect(smtp.received).toHaveLength(recipients.length);
        expect(new Set(ids).size).toBe(recipients.length);
      } finally {
        await first.stop();
        await second.stop();
        await handle.close();
        await smtp.stop();
        await database.drop();
      }
    },
  );
});

async function until(check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
