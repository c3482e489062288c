import { OPERATOR } from "../lib/accounts/audit.ts";
import { INVITATION_LIMITS, SIGN_UP_LIMITS } from "../lib/accounts/sign-up-limits.ts";
import { SIGN_IN_LIMITS } from "../lib/accounts/sign-in.ts";
import { randomBase62 } from "../lib/ids.ts";
import { addMember } from "../lib/accounts/users.ts";
import { postAction, serverActionId, signIn } from "../testing/console.ts";
import { send } from "../testing/http.ts";
import { recordSecret } from "../testing/logs.ts";
import { withDatabase } from "../testing/organisations.ts";
import { rawExchange, requestHead, sendChunkedUntilAnswered } from "../testing/raw-http.ts";
import type { Finding } from "./report.ts";
import type { CheckResult } from "./checks.ts";

// The console's sign-in and sign-up attacked from outside, as a script would: next-auth's
// endpoints with bodies too large and methods it does not expect, malformed session cookies, an
// open redirect after sign-in, a lockout of a chosen member, and a sign-up flood. Different
// client addresses are different loopback addresses (127.0.0.2, …), which the server sees as peers.

export type ConsoleTarget = { baseUrl: string; member: { email: string; password: string } };

/** A console member of the organisation, made before the server starts (PGlite is one process's). */
export async function consoleMember(
  env: Record<string, string>,
  orgId: string,
): Promise<{ email: string; password: string }> {
  const credentials = { email: "member@abuse.example", password: randomBase62(24) };
  recordSecret(credentials.password);
  await withDatabase(env, (db) =>
    addMember(db, { orgId, name: "Abuse Member", role: "admin", ...credentials }, OPERATOR),
  );
  return credentials;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export async function consoleAbuse(target: ConsoleTarget): Promise<CheckResult> {
  const { baseUrl, member } = target;
  const findings: Finding[] = [];
  const figures: Record<string, string | number> = {};
  const finding = (problem: string, detail?: string) => findings.push({ check: "console", problem, detail });

  // next-auth's credentials callback, fetched instead of posted.
  const callback = await send(`${baseUrl}/api/auth/callback/credentials`);
  figures["GET /api/auth/callback/credentials"] = callback.status;
  if (callback.status >= 500) finding(`GET /api/auth/callback/credentials answered ${callback.status}`);

  // Auth bodies: a declared megabyte, then an undeclared one sent in chunks.
  const big = `csrfToken=x&email=a%40b.example&password=${"p".repeat(1_000_000)}`;
  const declared = await send(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: big,
  });
  const chunked = await rawExchange(
    baseUrl,
    (socket) =>
      sendChunkedUntilAnswered(
        socket,
        requestHead("POST", "/api/auth/callback/credentials", [
          ["Host", new URL(baseUrl).host],
          ["Content-Type", "application/x-www-form-urlencoded"],
          ["Transfer-Encoding", "chunked"],
          ["Connection", "close"],
        ]),
        big,
      ),
    30_000,
  );
  figures["auth bodies of 1 MB, declared and chunked"] = `${declared.status}, ${chunked.status ?? "no answer"}`;
  if (declared.status !== 413) finding(`a declared 1 MB sign-in body answered ${declared.status}, not 413`);
  if (chunked.status !== 413) finding(`a chunked 1 MB sign-in body answered ${chunked.status ?? "nothing"}, not 413`);

  // A malformed session cookie.
  for (const where of ["/console", "/console/sign-in", "/api/auth/session", "/api/v1/odds", "/api/v1/odds/stream"]) {
    const answer = await send(`${baseUrl}${where}`, { headers: { cookie: "next-auth.session-token=%" } });
    if (answer.status >= 500) finding(`a session cookie of "%" made ${where} answer ${answer.status}`);
  }

  // The open redirect after sign-in.
  const signedIn = await signIn(baseUrl, member.email, member.password, {}, "127.0.0.1");
  if (!signedIn.session) throw new Error(`the member could not sign in: ${signedIn.error}`);
  for (const next of [
    "/%09/evil.example",
    "//evil.example",
    "/%5Cevil.example",
    "/.//evil.example",
    "/%2e//evil.example",
    "/./%5Cevil.example",
  ]) {
    const answer = await send(`${baseUrl}/console/sign-in?next=${next}`, { headers: { cookie: signedIn.session } });
    const location = String(answer.headers.location ?? "");
    if (location && new URL(location, baseUrl).origin !== baseUrl) {
      finding(`after sign-in, ?next=${next} sends the member to ${new URL(location, baseUrl).origin}`);
    } else if (/^[/\\][/\\]/.test(location) || /^[/\\][/\\]/.test(safeDecode(location))) {
      // A browser reads `//host` (or `/\host`) as another host, whatever URL parsing here says.
      finding(`after sign-in, ?next=${next} answers Location: ${location}`);
    }
  }

  // A lockout: an attacker's wrong passwords for the member's e-mail from its own address, then
  // the member, from theirs.
  for (let i = 0; i < SIGN_IN_LIMITS.perEmailAndAddress + 1; i++) {
    await signIn(baseUrl, member.email, `wrong password ${i}`, {}, "127.0.0.2");
  }
  const locked = await signIn(baseUrl, member.email, member.password, {}, "127.0.0.1");
  figures["member's sign-in after an attacker's failures"] = locked.session ? "signed in" : String(locked.error);
  if (!locked.session) finding(`the member was locked out by another address's failures: ${locked.error}`);

  // A sign-up flood from one address. Valid forms (only those count), with the member's own
  // e-mail, so that each is refused after it is counted and the database is left as it was.
  const signUp = serverActionId("signUpAction");
  const validSignUp = (from: string, i: number) =>
    postAction(
      baseUrl,
      "/console/sign-up",
      signUp,
      { organisation: `Flood ${from} ${i}`, name: "Flood", email: member.email, password: randomBase62(20) },
      from,
    );
  let refusedAfter: number | null = null;
  for (let i = 0; i < SIGN_UP_LIMITS.perNetwork + 5 && refusedAfter === null; i++) {
    const answer = await validSignUp("127.0.0.3", i);
    if (answer.status >= 500) finding(`a sign-up attempt answered ${answer.status}`, answer.body.slice(0, 200));
    if (answer.body.includes("Too many sign-ups")) refusedAfter = i;
  }
  figures["sign-up attempts from one address before refusal"] = refusedAfter ?? "never refused";
  if (refusedAfter === null) {
    finding(`${SIGN_UP_LIMITS.perNetwork + 5} sign-up attempts from one address were all let through`);
  }

  // Invalid sign-ups from many addresses (no password: no hash) must not use up everyone's sign-ups.
  for (let address = 0; address < 15; address++) {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        postAction(
          baseUrl,
          "/console/sign-up",
          signUp,
          { organisation: `Invalid ${address}-${i}`, name: "Flood", email: `invalid-${address}-${i}@abuse.example` },
          `127.0.0.${10 + address}`,
        ),
      ),
    );
  }
  const fresh = await validSignUp("127.0.0.40", 0);
  const freshRefused = fresh.body.includes("Too many sign-ups");
  figures["a valid sign-up after 300 invalid ones from 15 addresses"] = freshRefused ? "refused" : "let through";
  if (freshRefused) finding("300 invalid sign-ups from 15 addresses locked a fresh address's valid sign-up out");

  // Made-up invitation tokens from one address: throttled, as sign-ups are.
  const accept = serverActionId("acceptInvitationAction");
  let acceptRefusedAfter: number | null = null;
  for (let i = 0; i < INVITATION_LIMITS.perNetwork + 5 && acceptRefusedAfter === null; i++) {
    const answer = await postAction(
      baseUrl,
      `/console/invite/made-up-${i}`,
      accept,
      {
        token: `made-up-${randomBase62(20)}`,
        name: "Guess",
        email: `guess-${i}@abuse.example`,
        password: randomBase62(20),
      },
      "127.0.0.41",
    );
    if (answer.status >= 500) finding(`an invitation accept answered ${answer.status}`, answer.body.slice(0, 200));
    if (answer.body.includes("Too many attempts")) acceptRefusedAfter = i;
  }
  figures["made-up invitation accepts from one address before refusal"] = acceptRefusedAfter ?? "never refused";
  if (acceptRefusedAfter === null) {
    finding(
      `${INVITATION_LIMITS.perNetwork + 5} accepts of made-up invitation tokens from one address were all let through`,
    );
  }
  return { findings, figures };
}
