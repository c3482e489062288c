import { readFileSync } from "node:fs";
import { send, type Sent } from "./http.ts";
import { recordSecret } from "./logs.ts";
import { generate } from "otplib";

// Signing in to the console through the real server and next-auth's own endpoints, as a browser
// does it: the CSRF cookie and token, then the credentials callback that sets the session cookie.
// The password and the session are recorded as secrets, so that no server log may hold them.

export type SignInAttempt = { error: string | null; session: string | null };

/** The `name=value` pairs of an answer's Set-Cookie headers, ready for a `cookie` header. */
export function cookiesOf(answer: Response | Sent): string[] {
  const cookies =
    answer instanceof Response
      ? answer.headers.getSetCookie()
      : ([] as string[]).concat(answer.headers["set-cookie"] ?? []);
  return cookies.map((cookie) => cookie.split(";", 1)[0]!);
}

/**
 * `session` is the `next-auth.session-token=…` cookie pair, ready for a `cookie` header. `from`
 * is the loopback address the requests leave from (another client, to the server).
 */
export async function signIn(
  url: string,
  email: string,
  password: string,
  headers: Record<string, string> = {},
  from?: string,
): Promise<SignInAttempt> {
  recordSecret(password);
  const csrf = await send(`${url}/api/auth/csrf`, { from });
  const { csrfToken } = JSON.parse(csrf.body) as { csrfToken: string };
  const answer = await send(`${url}/api/auth/callback/credentials`, {
    method: "POST",
    from,
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cookie: cookiesOf(csrf).join("; "),
      ...headers,
    },
    body: new URLSearchParams({ email, password, csrfToken, json: "true" }).toString(),
  });
  const { url: next } = JSON.parse(answer.body) as { url: string };
  const session = cookiesOf(answer).find((c) => c.startsWith("next-auth.session-token=")) ?? null;
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

export type SignInCredentials = { email: string; password: string };

// A server whose standard output is not a terminal (every test's) writes its first start's
// sign-ins to a file only its user can read, and logs that file's path.
const SIGN_INS_WRITTEN = /One-time sign-ins written to ([^\s"]+) \(/;

/** Where a server that seeded an empty database wrote its one-time sign-ins, or null. */
export function signInsFile(serverOutput: string): string | null {
  return SIGN_INS_WRITTEN.exec(serverOutput)?.[1] ?? null;
}

/** The sign-in shown once as `<who> sign-in (shown this once): <email> / <password>`, recorded as a secret. */
function shownSignIn(serverOutput: string, who: "Demo" | "Operator"): SignInCredentials {
  const file = signInsFile(serverOutput);
  if (!file) throw new Error("the server did not seed the demo organisation (the database was not empty)");
  const shown = new RegExp(`^${who} sign-in \\(shown this once\\): (\\S+) / (\\S+)$`, "m").exec(
    readFileSync(file, "utf8"),
  );
  if (!shown) throw new Error(`${file} holds no ${who.toLowerCase()} sign-in`);
  recordSecret(shown[2]);
  return { email: shown[1]!, password: shown[2]! };
}

/** The demo administrator's credentials, shown once by a server that seeded an empty database. */
export function demoSignIn(serverOutput: string): SignInCredentials {
  return shownSignIn(serverOutput, "Demo");
}

/** The first operator's credentials, shown once beside the demo administrator's. */
export function operatorSignIn(serverOutput: string): SignInCredentials {
  return shownSignIn(serverOutput, "Operator");
}

/** Every server action of the build, by exported name (`signUpAction`, …) and id, from its manifest of server references. */
export function serverActions(): { name: string; id: string }[] {
  const manifest = JSON.parse(
    readFileSync(new URL("../.next/server/server-reference-manifest.json", import.meta.url), "utf8"),
  ) as { node: Record<string, { exportedName?: string }> };
  return Object.entries(manifest.node).map(([id, entry]) => ({ name: entry.exportedName ?? id, id }));
}

/** The id of a server action of the build (`signUpAction`, …). */
export function serverActionId(exportedName: string): string {
  const id = serverActions().find((action) => action.name === exportedName)?.id;
  if (!id) throw new Error(`the build has no ${exportedName}`);
  return id;
}

/**
 * Posts a form to a console server action as the browser's form does (React's encoded reply: the
 * state, then the form's fields), from the loopback address `from`.
 */
export async function postAction(
  url: string,
  page: string,
  actionId: string,
  fields: Record<string, string>,
  from?: string,
  cookie?: string,
  headers: Record<string, string> = {},
): Promise<Sent> {
  // As React's encodeReply writes it: the form's fields first, then the arguments that refer to them
  // (the server reads the root as soon as it arrives).
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(`_1_${name}`, value);
  form.set("0", JSON.stringify(["$undefined", "$K1"]));
  const encoded = new Response(form);
  return send(`${url}${page}`, {
    method: "POST",
    from,
    headers: {
      "next-action": actionId,
      accept: "text/x-component",
      "content-type": encoded.headers.get("content-type")!,
      ...(cookie ? { cookie } : {}),
      ...headers,
    },
    body: Buffer.from(await encoded.arrayBuffer()),
  });
}

/**
 * Adds an authenticator app to the signed-in account as its page does, over HTTP: the setup action,
 * then a code computed from the secret it answered. A session held at enrolment (an operator's
 * first sign-in) is signed in afterwards.
 */
export async function enrolAuthenticatorOverHttp(url: string, session: string): Promise<{ secret: string }> {
  const begun = await send(`${url}/console/security`, {
    method: "POST",
    headers: { "next-action": serverActionId("beginTotpAction"), accept: "text/x-component", cookie: session },
    body: "[]",
  });
  const secret = /"secret":"([A-Z2-7]+)"/.exec(begun.body)?.[1];
  const factorId = /"factorId":"([^"]+)"/.exec(begun.body)?.[1];
  if (!secret || !factorId) throw new Error(`no authenticator setup in ${begun.status}: ${begun.body.slice(0, 300)}`);
  const confirmed = await postAction(
    url,
    "/console/security",
    serverActionId("confirmTotpAction"),
    { factorId, code: await generate({ secret, epoch: Math.floor(Date.now() / 1000) }) },
    undefined,
    session,
  );
  if (!/Authenticator app added/.test(confirmed.body))
    throw new Error(`the authenticator was not added: ${confirmed.status}: ${confirmed.body.slice(0, 300)}`);
  return { secret };
}
