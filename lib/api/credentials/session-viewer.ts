import { decode } from "next-auth/jwt";
import { readSession } from "../../accounts/factors/gate.ts";
import type { Database } from "../../db/index.ts";
import { consoleAccess } from "../../console/access.ts";
import { sessionActive, sessionEndsAt } from "../../accounts/sessions.ts";
import type { ApiKeyRecord } from "../../keys/lookup.ts";
import { memberEntitlement, type MemberLimits } from "./member-entitlement.ts";

// The console's board follows the same streams as API clients, with the member's session cookie
// instead of a key. The cookie is next-auth's JWT; it is decoded here with next-auth's own code,
// so the fast node:http path needs nothing of Next's request pipeline.

const SESSION_COOKIES = ["__Secure-next-auth.session-token", "next-auth.session-token"];

/** The session token of a request's Cookie header, if it carries one. */
export function sessionToken(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(";")) {
    const at = part.indexOf("=");
    if (at === -1) continue;
    const name = part.slice(0, at).trim();
    if (!SESSION_COOKIES.includes(name)) continue;
    try {
      return decodeURIComponent(part.slice(at + 1).trim());
    } catch {
      return undefined; // a malformed escape (`%`) is no session, not a server error
    }
  }
  return undefined;
}

/**
 * The member of a session token and what they may read (lib/api/credentials/member-entitlement.ts). Valid
 * until the session expires. Null when the token is not a valid session or the member has no
 * organisation.
 */
export async function sessionViewer(
  db: Database,
  token: string,
  secret: string,
  at: Date,
  limits: MemberLimits,
): Promise<{ key: ApiKeyRecord; userId: string } | null> {
  let payload: Awaited<ReturnType<typeof decode>>;
  try {
    payload = await decode({ token, secret });
  } catch {
    return null;
  }
  if (!payload) return null;
  const userId = payload.sub;
  const idleEnd = typeof payload.exp === "number" ? new Date(payload.exp * 1000) : null;
  if (!userId || !idleEnd || idleEnd <= at) return null;
  // Revoked (sign-out, password reset) or past its absolute lifetime: refused as the console refuses it.
  if (!(await sessionActive(db, userId, payload.signed_in_at, at))) return null;
  // A session that has passed only the password reads nothing until its second step is done.
  if ((await readSession(db, payload.sid, userId, at))?.stage !== "done") return null;
  const absoluteEnd = sessionEndsAt(payload.signed_in_at as number);
  const expires = absoluteEnd < idleEnd ? absoluteEnd : idleEnd;
  const access = await consoleAccess(db, userId);
  if (!access) return null;
  const { organisation } = access;
  const member = { userId, orgId: organisation.id, planCode: organisation.planCode, expiresAt: expires };
  return { userId, key: await memberEntitlement(db, member, limits, at) };
}
