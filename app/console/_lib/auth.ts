import type { Config } from "@/lib/config";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { getServerSession } from "next-auth";
import type { Database } from "@/lib/db";
import { emailOf } from "@/lib/accounts/users";
import { recordAudit } from "@/lib/accounts/audit";
import { authSecret } from "@/lib/accounts/auth/secret";
import { openSession, readSession, type ConsoleSession } from "@/lib/accounts/factors/gate";
import { now } from "@/lib/clock";
import { consoleAccess } from "@/lib/console/access";
import { operatorAccess } from "@/lib/accounts/operators";
import { revokeSessions, SESSION_LIFETIME, sessionActive } from "@/lib/accounts/sessions";
import { clientAddress, clientNetwork } from "@/lib/http/client-address";
import { signInWithPassword, type SignInResult } from "@/lib/accounts/sign-in";
import { SSO_REQUIRED_MESSAGE, ssoRequiredFor } from "@/lib/accounts/sso/policy";
import { signInWithPasskey } from "@/lib/accounts/factors/passkey-flows";
import { passkeyRelyingParty } from "./origin";
import { currentInstance } from "@/lib/instance";
import { noticeSignIn } from "@/lib/accounts/mail/notices";
import { redeemSignInGrant } from "@/lib/accounts/mail/tokens";
import { logger } from "@/lib/log";

export const SIGN_IN_PAGE = "/console/sign-in";

/** What the sign-in form shows when signing in failed on our side: never the error itself. */
export const SIGN_IN_UNAVAILABLE = "Signing in is not possible right now. Try again in a minute.";

// Thrown by the jwt callback: next-auth then clears the cookie and answers "no session".
class SessionEnded extends Error {
  override name = "SessionEnded";
}

let options: NextAuthOptions | undefined;

/**
 * next-auth's configuration, built on first use rather than at import, so `next build` neither
 * reads the configuration nor writes a secret. The session is a signed JWT cookie that carries
 * the user's id and when they signed in, nothing else; roles and organisations are read from the
 * database each time, and so is whether the session was revoked.
 */
export function authOptions(): NextAuthOptions {
  if (options) return options;
  const config = currentInstance().config;
  // next-auth 4 takes its own address from NEXTAUTH_URL, or from the Host header when told to trust
  // it; without either it assumes localhost:3000 and warns. server.ts drops X-Forwarded-Host and
  // -Proto unless a trusted proxy sent them, so only the Host the client connected to is left.
  if (!config.NEXTAUTH_URL) process.env.AUTH_TRUST_HOST ??= "1";
  const built: NextAuthOptions = {
    secret: authSecret(config),
    session: { strategy: "jwt", maxAge: SESSION_LIFETIME.idleSeconds },
    pages: { signIn: SIGN_IN_PAGE, error: SIGN_IN_PAGE },
    providers: [
      CredentialsProvider({
        name: "e-mail and password",
        credentials: { email: { type: "email" }, password: { type: "password" } },
        authorize: (credentials, req) =>
          answerSignIn(
            "Signing in failed",
            (db, address) =>
              signInWithPassword(
                db,
                { email: String(credentials?.email ?? ""), password: String(credentials?.password ?? ""), address },
                now(),
              ),
            req.headers as RequestHeaders,
            config,
          ),
      }),
      // A confirmed sign-up or a reset password signs in with the single-use grant its page was given.
      CredentialsProvider({
        id: "mail-link",
        name: "a mailed link",
        credentials: { grant: { type: "text" } },
        async authorize(credentials) {
          try {
            const userId = await redeemSignInGrant(
              currentInstance().database.db,
              String(credentials?.grant ?? ""),
              now(),
            );
            if (!userId) return null;
            // A reset password does not get round "require SSO".
            if (await ssoRequiredFor(currentInstance().database.db, userId)) throw new Error(SSO_REQUIRED_MESSAGE);
            // Recorded as a password sign-in is: the audit log shows how each session began.
            const access = await consoleAccess(currentInstance().database.db, userId);
            if (access) {
              await recordAudit(currentInstance().database.db, {
                orgId: access.organisation.id,
                actor: access.actor,
                action: "user.signed_in",
                target: userId,
                details: { by: "mailed link" },
              });
            }
            // A mailed link proves the address, not a second factor: the session's row says what is still due.
            const session = await openSession(currentInstance().database.db, userId, now());
            return { id: userId, sessionId: session.id };
          } catch (error) {
            if (error instanceof Error && error.message === SSO_REQUIRED_MESSAGE) throw error;
            logger().error({ err: error }, "Signing in with a mailed link failed");
            throw new Error(SIGN_IN_UNAVAILABLE);
          }
        },
      }),
      // A passkey alone: the answer to a sign-in challenge from passkeyOptionsAction, both steps at once.
      CredentialsProvider({
        id: "passkey",
        name: "a passkey",
        credentials: { challengeId: { type: "text" }, response: { type: "text" } },
        authorize: (credentials, req) =>
          answerSignIn(
            "Signing in with a passkey failed",
            async (db, address) =>
              signInWithPasskey(
                db,
                {
                  challengeId: String(credentials?.challengeId ?? ""),
                  response: String(credentials?.response ?? ""),
                  address,
                },
                await passkeyRelyingParty(),
                now(),
              ),
            req.headers as RequestHeaders,
            config,
            { bothFactors: true },
          ),
      }),
    ],
    callbacks: {
      // Only the user's id and the time of sign-in go into the cookie: no name, e-mail, role or
      // organisation. Every later use checks the session is not revoked nor past its lifetime.
      async jwt({ token, user }) {
        if (user) {
          return { sub: user.id, signed_in_at: now().getTime(), sid: user.sessionId };
        }
        const { db } = currentInstance().database;
        if (!token.sub || !(await sessionActive(db, token.sub, token.signed_in_at, now()))) throw new SessionEnded();
        // A cookie from before sessions had rows (no sid) signs in again.
        if (typeof token.sid !== "string") throw new SessionEnded();
        return { sub: token.sub, signed_in_at: token.signed_in_at, sid: token.sid };
      },
      session: ({ session, token }) => ({
        expires: session.expires,
        user: { id: token.sub ?? "", sessionId: typeof token.sid === "string" ? token.sid : "" },
      }),
    },
    events: {
      async signOut({ token }) {
        if (!token?.sub) return;
        const { db } = currentInstance().database;
        // A sign-out ends the user's sessions everywhere, a copied cookie included.
        await revokeSessions(db, token.sub, now());
        const access = await consoleAccess(db, token.sub);
        if (access) {
          await recordAudit(db, {
            orgId: access.organisation.id,
            actor: access.actor,
            action: "user.signed_out",
            target: access.user.id,
          });
        }
        const operator = await operatorAccess(db, token.sub);
        if (operator) {
          await recordAudit(db, {
            orgId: null,
            actor: operator.actor,
            action: "operator.signed_out",
            target: token.sub,
          });
        }
      },
    },
    logger: {
      error(code, metadata) {
        const error = metadata instanceof Error ? metadata : (metadata as { error?: unknown } | undefined)?.error;
        if (error instanceof SessionEnded) return logger().debug(`Session refused (${code}): revoked or too old`);
        logger().error({ err: error ?? metadata }, `next-auth: ${code}`);
      },
      warn: (code) => logger().warn(`next-auth: ${code}`),
      debug: (code) => logger().debug(`next-auth: ${code}`),
    },
  };
  options = built;
  return built;
}

type RequestHeaders = Record<string, string | undefined> | undefined;

/**
 * next-auth's answer to a sign-in by password or passkey: the session opened (its row says whether
 * a second step is still due; none is after a passkey alone), null for a wrong answer, or a message
 * for the form. `attempt` is given the database and the client's address.
 */
async function answerSignIn(
  failure: string,
  attempt: (db: Database, address: string) => Promise<SignInResult>,
  headers: RequestHeaders,
  config: Config,
  opening: { bothFactors?: boolean } = {},
): Promise<{ id: string; sessionId: string } | null> {
  let result: SignInResult;
  try {
    const address = clientAddress(headers?.["x-forwarded-for"], config.TRUST_PROXY_HOPS);
    result = await attempt(currentInstance().database.db, address);
  } catch (error) {
    // next-auth hands a thrown message to the browser: a fixed one, the error to the log.
    logger().error({ err: error }, failure);
    throw new Error(SIGN_IN_UNAVAILABLE);
  }
  if (result.ok) {
    await tellOfNewDevice(result.userId, headers, config);
    const session = await openSession(currentInstance().database.db, result.userId, now(), opening);
    return { id: result.userId, sessionId: session.id };
  }
  if (result.reason === "sso_required") throw new Error(SSO_REQUIRED_MESSAGE);
  if (result.reason === "throttled") {
    const minutes = Math.ceil(result.retryAfterSeconds / 60);
    throw new Error(`Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`);
  }
  return null;
}

/** Mails the member when this sign-in comes from a network or browser they had not used; never fails the sign-in. */
async function tellOfNewDevice(userId: string, headers: RequestHeaders, config: Config): Promise<void> {
  try {
    const { db } = currentInstance().database;
    const email = await emailOf(db, userId);
    if (!email) return;
    const origin = config.NEXTAUTH_URL?.replace(/\/+$/, "") ?? `http://${headers?.host ?? "localhost"}`;
    const network = clientNetwork(clientAddress(headers?.["x-forwarded-for"], config.TRUST_PROXY_HOPS));
    await noticeSignIn(
      db,
      { userId, email },
      { network, userAgent: headers?.["user-agent"] ?? "" },
      { at: now(), origin },
    );
  } catch (error) {
    logger().warn({ err: error }, "The new-device notice was not queued");
  }
}

/**
 * The session the cookie names, read from the database: whoever gave the right password, and how
 * far their sign-in got; null when there is none (or it was revoked, or its second step expired).
 */
export async function consoleSession(): Promise<ConsoleSession | null> {
  const session = await getServerSession(authOptions());
  if (!session?.user.id) return null;
  return readSession(currentInstance().database.db, session.user.sessionId, session.user.id, now());
}

/**
 * The signed-in user's id, or null: also when the session was revoked, or has passed only the
 * password and still owes its second step (it can do nothing else).
 */
export async function sessionUserId(): Promise<string | null> {
  const session = await consoleSession();
  return session?.stage === "done" ? session.userId : null;
}
