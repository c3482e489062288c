import { readFileSync } from "node:fs";
import path from "node:path";
import { OPERATOR } from "../lib/audit.ts";
import { SIGN_UP_LIMITS } from "../lib/console/sign-up-limits.ts";
import { SIGN_IN_LIMITS } from "../lib/console/sign-in.ts";
import { randomBase62 } from "../lib/ids.ts";
import { addMember } from "../lib/users.ts";
import { signIn } from "../testing/console.ts";
import { send, type Sent } from "../testing/http.ts";
import { recordSecret } from "../testing/logs.ts";
import { withDatabase } from "../testing/organisations.ts";
import { rawExchange, requestHead, writeDrained } from "../testing/raw-http.ts";
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

/** The id of the sign-up server action, from the build's manifest of server references. */
function signUpActionId(): string {
  const manifest = JSON.parse(
    readFileSync(path.join(import.meta.dirname, "..", ".next", "server", "server-reference-manifest.json"), "utf8"),
  ) as { node: Record<string, { exportedName?: string }> };
  const id = Object.entries(manifest.node).find(([, entry]) => entry.exportedName === "signUpAction")?.[0];
  if (!id) throw new Error("the build has no signUpAction");
  return id;
}

/** A sign-up as the browser's form posts it (React's encoded reply: the state, then the form). */
function signUpAttempt(baseUrl: string, actionId: string, from: string, i: number): Promise<Sent> {
  const form = new FormData();
  form.set("0", JSON.stringify(["$undefined", "$K1"]));
  form.set("1_organisation", `Flood ${i}`);
  form.set("1_name", "Flood");
  form.set("1_email", `flood-${i}@abuse.example`);
  // Too short: refused after the throttle, so the flood creates nothing.
  form.set("1_password", "short");
  const encoded = new Response(form);
  return encoded.arrayBuffer().then((body) =>
    send(`${baseUrl}/console/sign-up`, {
      method: "POST",
      from,
      headers: {
        "next-action": actionId,
        accept: "text/x-component",
        "content-type": encoded.headers.get("content-type")!,
      },
      body: Buffer.from(body),
    }),
  );
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
    async (socket) => {
      const head = requestHead("POST", "/api/auth/callback/credentials", [
        ["Host", new URL(baseUrl).host],
        ["Content-Type", "application/x-www-form-urlencoded"],
        ["Transfer-Encoding", "chunked"],
        ["Connection", "close"],
      ]);
      // Stops writing once the server answers: writing on would reset the connection, and the answer with it.
      let answered = false;
      socket.once("data", () => (answered = true));
      await writeDrained(socket, head);
      for (let at = 0; at < big.length && !answered; at += 16_384) {
        const part = big.slice(at, at + 16_384);
        if (!(await writeDrained(socket, `${part.length.toString(16)}\r\n${part}\r\n`))) return;
      }
      if (!answered) await writeDrained(socket, "0\r\n\r\n");
    },
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

  // A sign-up flood from one address.
  const actionId = signUpActionId();
  let refusedAfter: number | null = null;
  for (let i = 0; i < SIGN_UP_LIMITS.perNetwork + 5 && refusedAfter === null; i++) {
    const answer = await signUpAttempt(baseUrl, actionId, "127.0.0.3", i);
    if (answer.status >= 500) finding(`a sign-up attempt answered ${answer.status}`, answer.body.slice(0, 200));
    if (answer.body.includes("Too many sign-ups")) refusedAfter = i;
  }
  figures["sign-up attempts from one address before refusal"] = refusedAfter ?? "never refused";
  if (refusedAfter === null) {
    finding(`${SIGN_UP_LIMITS.perNetwork + 5} sign-up attempts from one address were all let through`);
  }
  return { findings, figures };
}
