import { recordSecret } from "./logs.ts";

// Signing in to the console through the real server and next-auth's own endpoints, as a browser
// does it: the CSRF cookie and token, then the credentials callback that sets the session cookie.

export type SignInAttempt = { error: string | null; session: string | null };

export function cookiesOf(res: Response): string[] {
  return res.headers.getSetCookie().map((cookie) => cookie.split(";", 1)[0]!);
}

/** `session` is the `next-auth.session-token=…` cookie pair, ready for a `cookie` header. */
export async function signIn(
  url: string,
  email: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<SignInAttempt> {
  const csrf = await fetch(`${url}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await fetch(`${url}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookiesOf(csrf).join("; "), ...headers },
    body: new URLSearchParams({ email, password, csrfToken, json: "true" }),
  });
  const { url: next } = (await res.json()) as { url: string };
  const session = cookiesOf(res).find((c) => c.startsWith("next-auth.session-token=")) ?? null;
  recordSecret(password);
  recordSecret(session?.slice(session.indexOf("=") + 1));
  return { error: new URL(next).searchParams.get("error"), session };
}

/** Signs out through next-auth's endpoint, as the console's button does: every session of the user ends. */
export async function signOut(url: string, session: string): Promise<void> {
  const csrf = await fetch(`${url}/api/auth/csrf`, { headers: { cookie: session } });
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const out = await fetch(`${url}/api/auth/signout`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cookie: [session, ...cookiesOf(csrf)].join("; "),
    },
    body: new URLSearchParams({ csrfToken, json: "true" }),
  });
  if (out.status !== 200) throw new Error(`signing out answered ${out.status}`);
  await out.body?.cancel();
}

/** The demo administrator's credentials, printed once by a server that seeded an empty database. */
export function demoSignIn(serverOutput: string): { email: string; password: string } {
  const printed = /Demo sign-in \(shown this once\): ([^\s"]+) \/ ([^\s"]+)/.exec(serverOutput);
  if (!printed) throw new Error("the server did not seed the demo organisation (the database was not empty)");
  return { email: printed[1]!, password: printed[2]! };
}
