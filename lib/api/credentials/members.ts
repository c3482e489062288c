import type { ApiKeyRecord } from "../../keys/lookup.ts";
import { sessionToken } from "./session-viewer.ts";
import { ApiError } from "../request/errors.ts";
import type { MemberLimits } from "./member-entitlement.ts";
import type { ApiRequest, Member, SessionReader } from "../request/types.ts";

// Console members read the board's endpoints with their session cookie. They are metered as keys
// are, under a principal of their own per member (across instances, by the same meter), with
// these limits, and see what the organisation's keys may see.

/** A member's limits on the board's endpoints; streams: SESSION_STREAMS. */
export const MEMBER_LIMITS = { requestsPerSecond: 10, monthlyQuota: 20_000 } as const;

export function memberLimits(sessionStreams: number): MemberLimits {
  return { ...MEMBER_LIMITS, concurrentStreams: sessionStreams };
}

// A member's page reads several endpoints at once, and a script can loop: each lookup costs
// database reads, so its answer is kept briefly. A removed member or a changed plan takes effect
// within this time.
const SESSION_CACHE_MS = 5_000;
const SESSION_CACHE_MAX = 10_000;
// A session token is well under this; a longer cookie is read but not kept, so that forged ones
// cannot fill memory.
const SESSION_TOKEN_MAX = 2_048;

/**
 * Session lookups by token, each kept for a few seconds (a refused token too). `forget` drops a
 * member's (null: everyone's) once their sessions are revoked, so a revoked cookie is refused at
 * once, not a few seconds later.
 */
export function cachedSessions(read: SessionReader): SessionReader & { forget(userId: string | null): void } {
  const cache = new Map<string, { member: Promise<Member | null>; at: number; userId?: string | null }>();
  const reader = (token: string, at: Date) => {
    const now = Date.now();
    if (token.length > SESSION_TOKEN_MAX) return read(token, at);
    const cached = cache.get(token);
    if (cached && now - cached.at < SESSION_CACHE_MS) {
      return cached.member.then((member) => (member && member.key.expiresAt! <= at ? null : member));
    }
    if (cached) cache.delete(token);
    else if (cache.size >= SESSION_CACHE_MAX) cache.delete(cache.keys().next().value!);
    const member = read(token, at);
    const entry: { member: Promise<Member | null>; at: number; userId?: string | null } = { member, at: now };
    cache.set(token, entry);
    member.then(
      (found) => (entry.userId = found?.userId ?? null),
      // A failed read (the database) is not kept: the next request tries again.
      () => cache.delete(token),
    );
    return member;
  };
  const forget = (userId: string | null) => {
    for (const [token, entry] of cache) {
      // A read still under way may have read the session before it was revoked.
      if (userId === null || entry.userId === undefined || entry.userId === userId) cache.delete(token);
    }
  };
  return Object.assign(reader, { forget });
}

/**
 * The session cookie of a request that sends no key (a key always wins over a cookie), from one of
 * this site's own pages only. SameSite=Lax (next-auth's) keeps the cookie off other sites'
 * requests but not off a top-level navigation, nor off another origin of the same site (another
 * port or subdomain); such a request is answered as one without credentials. Browsers say where
 * a request comes from in Sec-Fetch-Site; those without it send Origin on every CORS request.
 */
export function sessionCookieOf(request: ApiRequest): string | undefined {
  if (request.header("authorization") !== undefined || request.header("x-api-key") !== undefined) return undefined;
  const cookie = request.header("cookie");
  if (cookie === undefined || !fromOwnPages(request)) return undefined;
  return sessionToken(cookie);
}

function fromOwnPages(request: ApiRequest): boolean {
  const site = request.header("sec-fetch-site");
  // "none": the member typed the address or opened a bookmark.
  if (site !== undefined) return site === "same-origin" || site === "none";
  const origin = request.header("origin");
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === request.header("host");
  } catch {
    return false; // "null" (a sandboxed frame, a redirect across origins) or malformed
  }
}

/** 401 for a session cookie that is no longer a session. */
export function sessionExpired(): ApiError {
  return new ApiError("session_expired", "The console session is not valid any more; sign in again.", {
    headers: { "www-authenticate": 'Bearer error="invalid_token"' },
  });
}

/** The 429 of a request over a limit, worded for a key or a member. */
export function overLimit(
  member: boolean,
  admission: { code: "rate_limited" | "quota_exceeded"; quota: number; over: "key" | "organisation" },
  key: ApiKeyRecord,
): string {
  if (admission.over === "organisation") {
    // The plan's limits are the organisation's, shared by its keys and its members' reads.
    return admission.code === "quota_exceeded"
      ? `The organisation used its plan's monthly quota of ${admission.quota} requests, which its keys and its members' reads share; it starts again at the next month (UTC).`
      : `Over the organisation's limit of ${key.pool?.requestsPerSecond ?? 0} requests per second, which its keys and its members' reads share.`;
  }
  const who = member ? "Your console session" : "The key";
  return admission.code === "quota_exceeded"
    ? `${who} used its monthly ${member ? "allowance" : "quota"} of ${admission.quota} requests; it starts again at the next month (UTC).${member ? " API keys have their own quotas." : ""}`
    : `Over ${member ? "your console session's" : "the key's"} limit of ${key.requestsPerSecond} requests per second.`;
}
