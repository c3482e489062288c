import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { getServerSession } from "next-auth";
import { recordAudit } from "@/lib/audit";
import { authSecret } from "@/lib/auth/secret";
import { now } from "@/lib/clock";
import { loadConfig } from "@/lib/config";
import { consoleAccess } from "@/lib/console/access";
import { clientAddress, signInWithPassword } from "@/lib/console/sign-in";
import { getDatabase } from "@/lib/db";

export const SIGN_IN_PAGE = "/console/sign-in";

let options: NextAuthOptions | undefined;

/**
 * next-auth's configuration, built on first use rather than at import, so `next build` neither
 * reads the configuration nor writes a secret. The session is a signed JWT cookie that carries
 * the user's id and nothing else; roles and organisations are read from the database each time.
 */
export function authOptions(): NextAuthOptions {
  if (options) return options;
  const config = loadConfig();
  // next-auth 4 takes its own address from NEXTAUTH_URL, or from the Host header when told to trust
  // it; without either it assumes localhost:3000 and warns. Our server is reached by whatever name.
  if (!config.NEXTAUTH_URL) process.env.AUTH_TRUST_HOST ??= "1";
  const built: NextAuthOptions = {
    secret: authSecret(config),
    session: { strategy: "jwt", maxAge: 8 * 60 * 60 },
    pages: { signIn: SIGN_IN_PAGE, error: SIGN_IN_PAGE },
    providers: [
      CredentialsProvider({
        name: "e-mail and password",
        credentials: { email: { type: "email" }, password: { type: "password" } },
        async authorize(credentials, req) {
          const { db } = await getDatabase();
          const forwardedFor = (req.headers as Record<string, string | undefined> | undefined)?.["x-forwarded-for"];
          const result = await signInWithPassword(
            db,
            {
              email: String(credentials?.email ?? ""),
              password: String(credentials?.password ?? ""),
              address: clientAddress(forwardedFor, config.TRUST_PROXY_HOPS),
            },
            now(),
          );
          if (result.ok) return { id: result.userId };
          if (result.reason === "throttled") {
            const minutes = Math.ceil(result.retryAfterSeconds / 60);
            // next-auth hands a thrown message to the sign-in form as its error.
            throw new Error(`Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`);
          }
          return null;
        },
      }),
    ],
    callbacks: {
      // Only the user's id goes into the cookie: no name, e-mail, role or organisation.
      jwt: ({ token, user }) => ({ sub: user?.id ?? token.sub }),
      session: ({ session, token }) => ({ expires: session.expires, user: { id: token.sub ?? "" } }),
    },
    events: {
      async signOut({ token }) {
        if (!token?.sub) return;
        const { db } = await getDatabase();
        const access = await consoleAccess(db, token.sub);
        if (access) {
          await recordAudit(db, {
            orgId: access.organisation.id,
            actor: access.actor,
            action: "user.signed_out",
            target: access.user.id,
          });
        }
      },
    },
  };
  options = built;
  return built;
}

/** The signed-in user's id from the session cookie, or null. */
export async function sessionUserId(): Promise<string | null> {
  const session = await getServerSession(authOptions());
  return session?.user.id || null;
}
