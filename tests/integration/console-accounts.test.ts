import { createHook } from "node:async_hooks";
import { scryptSync } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { OPERATOR } from "../../lib/accounts/audit.ts";
import { needsRehash, verifyPassword } from "../../lib/accounts/auth/password.ts";
import { acceptInvitation, createInvitation, removeMember, signUp } from "../../lib/console/members.ts";
import { revokeSessions, SESSION_LIFETIME, sessionActive } from "../../lib/accounts/sessions.ts";
import { signInWithPassword } from "../../lib/accounts/sign-in.ts";
import {
  admitInvitationAccept,
  admitSignUp,
  INVITATION_LIMITS,
  SIGN_UP_LIMITS,
  signUpDelayMs,
} from "../../lib/accounts/sign-up-limits.ts";
import { openDatabase, type Database, type DatabaseHandle } from "../../lib/db/index.ts";
import { users } from "../../lib/db/schema/index.ts";
import { DomainError } from "../../lib/errors.ts";
import { resetPassword } from "../../lib/accounts/users.ts";
import { seedReferenceData } from "../../seeds/index.ts";
import { describeEachBackend, useTestDatabase } from "../../testing/databases.ts";

// Accounts and their sessions against a real database: what sign-up costs the database and how
// often it may run, how a session is ended, and how old password hashes are replaced.

const PASSWORD = "correct horse battery staple";
let counter = 0;

async function member(db: Database, label: string) {
  counter += 1;
  const email = `${label.toLowerCase()}-${counter}@accounts.test`;
  const { organisation, user } = await signUp(db, {
    organisation: `${label} ${counter}`,
    name: "Ada",
    email,
    password: PASSWORD,
  });
  return { orgId: organisation.id, userId: user.id, email };
}

/**
 * Runs `work` and says whether a scrypt hash was started while `db` had a transaction open: on
 * PGlite every other statement waits for an open transaction, so a hash inside one stalls the API.
 */
async function hashesInsideTransactions(db: Database, work: (db: Database) => Promise<unknown>): Promise<number> {
  let open = 0;
  let inside = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === "SCRYPTREQUEST" && open > 0) inside += 1;
    },
  }).enable();
  const watched = new Proxy(db, {
    get(target, name, receiver) {
      if (name !== "transaction") return Reflect.get(target, name, receiver) as unknown;
      return async (body: (tx: Database) => Promise<unknown>) =>
        target.transaction(async (tx) => {
          open += 1;
          try {
            return await body(tx as Database);
          } finally {
            open -= 1;
          }
        });
    },
  });
  try {
    await work(watched);
  } finally {
    hook.disable();
  }
  return inside;
}

// Hashes take 128 MiB and up to seconds each on a busy machine.
describeEachBackend("console accounts on $name", { timeout: 120_000 }, (backend) => {
  const database = useTestDatabase(backend);
  let handle: DatabaseHandle;
  let db: Database;

  beforeAll(async () => {
    handle = await openDatabase(database().config);
    db = handle.db;
    await seedReferenceData(db);
  });
  afterAll(() => handle?.close());

  it("hashes a new account's password before its transaction opens, at sign-up and on invitation", async () => {
    const at = new Date();
    expect(
      await hashesInsideTransactions(db, (watched) =>
        signUp(watched, {
          organisation: "Hash Outside",
          name: "Ada",
          email: "hash-outside@accounts.test",
          password: PASSWORD,
        }),
      ),
    ).toBe(0);
    const { orgId } = await member(db, "Inviting");
    const { token } = await createInvitation(db, orgId, { role: "viewer" }, { actor: OPERATOR, at, ttlDays: 7 });
    expect(
      await hashesInsideTransactions(db, (watched) =>
        acceptInvitation(watched, { token, name: "Vic", email: "invited-hash@accounts.test", password: PASSWORD }, at),
      ),
    ).toBe(0);
  });

  it("admits sign-ups per network and in all within the window, an IPv6 /64 counting as one", async () => {
    const at = new Date("2026-11-25T10:00:00Z");
    for (let i = 0; i < SIGN_UP_LIMITS.perNetwork; i++) await admitSignUp(db, `2001:db8:1:2::${i + 1}`, at);
    await expect(admitSignUp(db, "2001:db8:1:2:ffff::9", at)).rejects.toThrow(/Too many sign-ups from your network/);
    await expect(admitSignUp(db, "2001:db8:1:3::1", at)).resolves.toBeUndefined();
    const later = new Date(at.getTime() + SIGN_UP_LIMITS.windowSeconds * 1000 + 1000);
    await expect(admitSignUp(db, "2001:db8:1:2::1", later)).resolves.toBeUndefined();

    // The ceiling: many networks, one window. Beyond it a sign-up waits, and is still admitted.
    const busy = new Date("2026-11-26T10:00:00Z");
    const waits: number[] = [];
    const wait = (ms: number) => {
      waits.push(ms);
      return Promise.resolve();
    };
    for (let i = 0; i < SIGN_UP_LIMITS.overall; i++) await admitSignUp(db, `10.${i >> 8}.${i & 255}.1`, busy, wait);
    expect(waits).toEqual([]);
    await expect(admitSignUp(db, "192.0.2.200", busy, wait)).resolves.toBeUndefined();
    expect(waits).toEqual([signUpDelayMs(SIGN_UP_LIMITS.overall)]);
    expect(waits[0]).toBeGreaterThan(0);
  });

  it("slows sign-ups down more the further a flood goes beyond the ceiling, up to a bound", () => {
    expect(signUpDelayMs(SIGN_UP_LIMITS.overall - 1)).toBe(0);
    expect(signUpDelayMs(SIGN_UP_LIMITS.overall)).toBe(SIGN_UP_LIMITS.slowDownMs);
    expect(signUpDelayMs(2 * SIGN_UP_LIMITS.overall)).toBe(2 * SIGN_UP_LIMITS.slowDownMs);
    expect(signUpDelayMs(1_000_000)).toBe(SIGN_UP_LIMITS.slowDownMaxMs);
  });

  it("looks an invitation's token up before hashing: a made-up token costs no hash", async () => {
    let hashes = 0;
    const hook = createHook({
      init(_id, type) {
        if (type === "SCRYPTREQUEST") hashes += 1;
      },
    }).enable();
    try {
      const refused = await acceptInvitation(
        db,
        { token: "made-up-token", name: "Guess", email: "guess@accounts.test", password: PASSWORD },
        new Date(),
      ).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(DomainError);
      expect((refused as DomainError).code).toBe("invitation_invalid");
    } finally {
      hook.disable();
    }
    expect(hashes).toBe(0);
  });

  it("admits invitation accepts per network within the window", async () => {
    const at = new Date("2026-11-27T10:00:00Z");
    for (let i = 0; i < INVITATION_LIMITS.perNetwork; i++) await admitInvitationAccept(db, `198.51.100.7`, at);
    await expect(admitInvitationAccept(db, "198.51.100.7", at)).rejects.toThrow(/Too many attempts/);
    await expect(admitInvitationAccept(db, "198.51.100.8", at)).resolves.toBeUndefined();
    const later = new Date(at.getTime() + INVITATION_LIMITS.windowSeconds * 1000 + 1000);
    await expect(admitInvitationAccept(db, "198.51.100.7", later)).resolves.toBeUndefined();
  });

  it("does not name the e-mail address of an existing account at sign-up", async () => {
    const { email } = await member(db, "Taken");
    const refused = await signUp(db, { organisation: "Other Name", name: "Eve", email, password: PASSWORD }).catch(
      (error: unknown) => error as DomainError,
    );
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).message).not.toContain(email);
  });

  it("ends sessions signed in before a sign-out or a password reset, and every session of a removed member", async () => {
    const { orgId, userId, email } = await member(db, "Sessions");
    const signedIn = Date.now() - 60_000;
    const at = new Date();
    expect(await sessionActive(db, userId, signedIn, at)).toBe(true);
    expect(await sessionActive(db, userId, undefined, at)).toBe(false);
    expect(await sessionActive(db, userId, signedIn - SESSION_LIFETIME.absoluteSeconds * 1000, at)).toBe(false);

    await revokeSessions(db, userId, new Date(signedIn + 1));
    expect(await sessionActive(db, userId, signedIn, at)).toBe(false);
    expect(await sessionActive(db, userId, signedIn + 1_000, at)).toBe(true);

    await resetPassword(db, email, OPERATOR);
    expect(await sessionActive(db, userId, signedIn + 1_000, new Date())).toBe(false);

    const { token } = await createInvitation(db, orgId, { role: "viewer" }, { actor: OPERATOR, at, ttlDays: 7 });
    const viewer = await acceptInvitation(
      db,
      { token, name: "Vic", email: `v-${orgId}@accounts.test`, password: PASSWORD },
      at,
    );
    expect(await sessionActive(db, viewer.id, Date.now(), new Date())).toBe(true);
    await removeMember(db, orgId, { userId: viewer.id }, OPERATOR);
    expect(await sessionActive(db, viewer.id, Date.now(), new Date())).toBe(false);
  });

  it("replaces a password hash made with older parameters at the next sign-in", async () => {
    const { userId, email } = await member(db, "Rehash");
    const salt = Buffer.from("0123456789abcdef");
    // Weaker than today's parameters at OWASP's cost and at the test's (testing/fast-passwords.ts) alike.
    const key = scryptSync(PASSWORD, salt, 64, { N: 2 ** 8, r: 8, p: 1 });
    const old = ["scrypt", 2 ** 8, 8, 1, salt.toString("base64"), key.toString("base64")].join("$");
    await db.update(users).set({ passwordHash: old }).where(eq(users.id, userId));
    const result = await signInWithPassword(db, { email, password: PASSWORD, address: "192.0.2.1" }, new Date());
    expect(result.ok).toBe(true);
    const [stored] = await db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, userId));
    expect(stored!.hash).not.toBe(old);
    expect(needsRehash(stored!.hash)).toBe(false);
    expect(await verifyPassword(PASSWORD, stored!.hash)).toBe(true);
  });
});
