import { sql } from "drizzle-orm";
import { expect } from "vitest";
import { OPERATOR } from "../lib/accounts/audit.ts";
import { SPORTS, type Sport } from "../lib/db/schema/index.ts";
import { generateKey } from "../lib/keys/format.ts";
import { createSandboxKey, revokeKey } from "../lib/keys/index.ts";
import { updateKey } from "../lib/keys/settings.ts";
import { StreamTokens } from "../lib/keys/stream-token.ts";
import { reviewLicence } from "../lib/accounts/licences.ts";
import { seedReferenceData } from "../seeds/index.ts";
import { recordSecret } from "./logs.ts";
import { FEED_TOKEN, ingest } from "./feed.ts";
import { liveEvent } from "./feed-updates.ts";
import { keyOnOwnPlan, withDatabase } from "./organisations.ts";
import { startServer, type RunningServer } from "./processes.ts";

// The security suite's table of credential cases, and the keys and server it runs them against:
// the same cases run over every operation of the OpenAPI document (security.test.ts) and over
// every tool of the MCP server (security-mcp.test.ts), each refused with the same code.

/** The sport every fixture is of, and that the operations filtering by sport are asked for. */
export const SPORT: Sport = "soccer";
export const EVENT_ID = "sec-live";
/** The sandbox's delay on the suite's server: longer than the suite runs. */
export const SANDBOX_DELAY_SECONDS = 3_600;
/** One of the event's markets (testing/feed-updates.ts names them `<event>-<type>`). */
export const MARKET_ID = `${EVENT_ID}-match_winner`;

// The server is given this secret so that the suite can sign tokens as it does, expired ones included.
const TOKEN_SECRET = "the security suite's secret, 0123456789abcdef";

export type Keys = {
  /** Every sport, limits no case reaches. */
  working: string;
  /** Another organisation's working key, on a plan of tennis only. */
  tennisOnly: string;
  revoked: string;
  /** A sandbox key past its expiry. */
  expired: string;
  /** A working sandbox key of SPORT: it sees the feed as it was SANDBOX_DELAY_SECONDS ago. */
  sandbox: string;
  /** Of an organisation whose licence the operator revoked. */
  licenceRevoked: string;
  /** One request a second. */
  oneASecond: string;
  /** A monthly quota of one, already used. */
  usedUp: string;
  /** Limited to networks the suite's requests (from 127.0.0.1) are not in. */
  elsewhere: string;
  /** Browser stream tokens, signed as the server signs them. */
  tokens: {
    working: string;
    expired: string;
    revoked: string;
    tennis: string;
    /** The allowlisted key's, minted from inside its list: a browser anywhere opens streams with it. */
    elsewhere: string;
    /** The allowlisted key's, minted from an address its list no longer includes (before the list changed). */
    mintedOutside: string;
  };
};

/** What a case needs to know of what it is run against: an operation, or a tool. */
export type Target = {
  stream: boolean;
  /** It reads an event by id or filters by sport, so a key that does not cover the sport is refused. */
  readsASport: boolean;
};

export type Case = {
  refuses: string;
  status: number;
  code: string;
  headers(keys: Keys): Record<string, string>;
  /** Added to the operation's query (a tool's arguments). */
  query?(keys: Keys): string;
  appliesTo?(target: Target): boolean;
  /** The problem's `violated-policies`, for a 429. */
  violated?: string[];
};

export const header = (key: string) => ({ "x-api-key": key });

/** The same key with one character of its random part changed: its checksum no longer matches. */
function mistyped(key: string): string {
  const at = 12;
  return key.slice(0, at) + (key[at] === "a" ? "b" : "a") + key.slice(at + 1);
}

export const CASES: Case[] = [
  { refuses: "a request without a key", status: 401, code: "missing_api_key", headers: () => ({}) },
  { refuses: "a malformed key", status: 401, code: "invalid_api_key", headers: () => header("not-an-api-key") },
  {
    refuses: "a key whose checksum fails",
    status: 401,
    code: "invalid_api_key",
    headers: (keys) => header(mistyped(keys.working)),
  },
  {
    refuses: "a well-formed key no one holds",
    status: 401,
    code: "invalid_api_key",
    headers: () => header(generateKey("production")),
  },
  {
    refuses: "a key in the query string, even beside a working header",
    status: 401,
    code: "invalid_api_key",
    headers: (keys) => header(keys.working),
    query: (keys) => `api_key=${keys.working}`,
  },
  { refuses: "a revoked key", status: 401, code: "key_revoked", headers: (keys) => header(keys.revoked) },
  { refuses: "an expired sandbox key", status: 401, code: "key_expired", headers: (keys) => header(keys.expired) },
  {
    refuses: "a key used from an address outside its IP allowlist",
    status: 403,
    code: "ip_not_allowed",
    headers: (keys) => header(keys.elsewhere),
  },
  {
    refuses: "different keys in X-API-Key and Authorization",
    status: 400,
    code: "conflicting_credentials",
    headers: (keys) => ({ "x-api-key": keys.working, authorization: `Bearer ${keys.tennisOnly}` }),
  },
  {
    refuses: "a key of an organisation whose licence is revoked",
    status: 403,
    code: "licence_inactive",
    headers: (keys) => header(keys.licenceRevoked),
  },
  {
    refuses: `a key whose plan does not cover ${SPORT}`,
    status: 403,
    code: "sport_not_covered",
    headers: (keys) => header(keys.tennisOnly),
    // An operation that neither reads an event nor filters by sport (GET /api/v1/me) has no sport to refuse.
    appliesTo: (target) => target.readsASport,
  },
  {
    refuses: "a stream token where a key is needed",
    status: 401,
    code: "invalid_api_key",
    headers: () => ({}),
    query: (keys) => `token=${keys.tokens.working}`,
    appliesTo: (target) => !target.stream,
  },
  {
    // A token is for a browser's URL; sent as a key (a header), it is refused everywhere, streams included.
    refuses: "a stream token in the Authorization header",
    status: 401,
    code: "invalid_api_key",
    headers: (keys) => ({ authorization: `Bearer ${keys.tokens.working}` }),
  },
  {
    refuses: "a stream token with its signature altered",
    status: 401,
    code: "invalid_api_key",
    headers: () => ({}),
    query: (keys) => `token=${keys.tokens.working.slice(0, -3)}AAA`,
  },
  {
    refuses: "an expired stream token",
    status: 401,
    code: "token_expired",
    headers: () => ({}),
    query: (keys) => `token=${keys.tokens.expired}`,
    appliesTo: (target) => target.stream,
  },
  {
    refuses: "a stream token of a revoked key",
    status: 401,
    code: "key_revoked",
    headers: () => ({}),
    query: (keys) => `token=${keys.tokens.revoked}`,
    appliesTo: (target) => target.stream,
  },
  {
    refuses: "a stream token beside a key",
    status: 400,
    code: "conflicting_credentials",
    headers: (keys) => header(keys.working),
    query: (keys) => `token=${keys.tokens.working}`,
    appliesTo: (target) => target.stream,
  },
  {
    refuses: `a stream token minted for tennis on ${SPORT}`,
    status: 403,
    code: "sport_not_covered",
    headers: () => ({}),
    query: (keys) => `token=${keys.tokens.tennis}`,
    appliesTo: (target) => target.stream,
  },
  {
    refuses: "a stream token minted from an address the key's IP allowlist no longer includes",
    status: 403,
    code: "ip_not_allowed",
    headers: () => ({}),
    query: (keys) => `token=${keys.tokens.mintedOutside}`,
    appliesTo: (target) => target.stream,
  },
  {
    refuses: "a key whose monthly quota is used up",
    status: 429,
    code: "quota_exceeded",
    headers: (keys) => header(keys.usedUp),
    violated: ["month"],
  },
];

/** Quick requests with the one-a-second key: at least one falls in a second already spent. */
export const BURST = 4;

const plan = (code: string, sports: Sport[], limits: { monthlyQuota?: number; requestsPerSecond?: number } = {}) => ({
  code,
  name: `Security ${code}`,
  environment: "production" as const,
  description: "A plan of the security suite.",
  sports,
  monthlyQuota: limits.monthlyQuota ?? 1_000_000,
  requestsPerSecond: limits.requestsPerSecond ?? 1_000,
  concurrentStreams: 20,
  monthlyPriceCents: null,
  ordinal: 200,
});

/** The suite's keys, written to the database `env` names before a server starts on it. */
export function securityKeys(env: Record<string, string>): Promise<Keys> {
  return withDatabase(env, async (db) => {
    await seedReferenceData(db);
    const at = new Date();
    const own = (code: string, sports: Sport[], limits?: Parameters<typeof plan>[2]) =>
      keyOnOwnPlan(db, plan(code, sports, limits), at);
    const working = await own("sec-all", [...SPORTS]);
    const revoked = await own("sec-revoked", [...SPORTS]);
    await revokeKey(db, revoked.keyId, null, { actor: OPERATOR, at });
    const licenceRevoked = await own("sec-unlicensed", [...SPORTS]);
    await reviewLicence(db, licenceRevoked.orgId, "revoke", { actor: OPERATOR, at });
    const usedUp = await own("sec-used-up", [...SPORTS], { monthlyQuota: 1 });
    await db.execute(sql`
      insert into usage_monthly (key_id, month, requests)
      values (${usedUp.keyId}, date_trunc('month', now() at time zone 'utc')::date, 1)`);
    const expired = await createSandboxKey(db, working.orgId, { sport: SPORT }, { actor: OPERATOR, at, ttlDays: 30 });
    await db.execute(
      sql`update api_keys set expires_at = now() - interval '1 minute' where id = ${expired.summary.id}`,
    );
    const sandboxOrg = await own("sec-sandbox", [...SPORTS]);
    const sandbox = await createSandboxKey(
      db,
      sandboxOrg.orgId,
      { sport: SPORT },
      { actor: OPERATOR, at, ttlDays: 30 },
    );
    recordSecret(sandbox.key);
    const elsewhere = await own("sec-elsewhere", [...SPORTS]);
    const allowlist = { allowedIps: ["203.0.113.0/24", "2001:db8::/32"] };
    await updateKey(db, elsewhere.keyId, null, allowlist, { actor: OPERATOR, at });
    const tokens = new StreamTokens(TOKEN_SECRET);
    const inMinutes = (minutes: number) => new Date(at.getTime() + minutes * 60_000);
    const token = (keyId: string, expiresAt: Date, sport: Sport | null = null, mintedFrom = "203.0.113.9") =>
      tokens.mint({ keyId, sport, eventId: null, expiresAt, mintedFrom });
    return {
      tokens: {
        working: token(working.keyId, inMinutes(30)),
        expired: token(working.keyId, inMinutes(-1)),
        revoked: token(revoked.keyId, inMinutes(30)),
        tennis: token(working.keyId, inMinutes(30), "tennis"),
        elsewhere: token(elsewhere.keyId, inMinutes(30)),
        mintedOutside: token(elsewhere.keyId, inMinutes(30), null, "198.51.100.7"),
      },
      elsewhere: elsewhere.key,
      working: working.key,
      tennisOnly: (await own("sec-tennis", ["tennis"])).key,
      revoked: revoked.key,
      expired: expired.key,
      sandbox: sandbox.key,
      licenceRevoked: licenceRevoked.key,
      oneASecond: (await own("sec-one-a-second", [...SPORTS], { requestsPerSecond: 1 })).key,
      usedUp: usedUp.key,
    };
  });
}

/**
 * The server the cases run against, signing tokens as the suite does, with the suite's live event
 * served; `revision` is one its history holds (an answer's `meta.revision`).
 */
export async function securityServer(
  env: Record<string, string>,
  keys: Keys,
): Promise<{ server: RunningServer; revision: number }> {
  // The longest delay: the live event, ingested now, is never in a sandbox key's view while the suite runs.
  const server = await startServer({
    ...env,
    FEED_TOKEN,
    AUTH_SECRET: TOKEN_SECRET,
    SANDBOX_DELAY_SECONDS: String(SANDBOX_DELAY_SECONDS),
  });
  await ingest(server.url, [liveEvent(EVENT_ID, SPORT, "Security league", { home: "Locks", away: "Keys" })]);
  // The view follows the change bus: wait until it serves the event.
  for (let tries = 0; ; tries++) {
    const answer = await fetch(`${server.url}/api/v1/events/${EVENT_ID}`, { headers: header(keys.working) });
    const body = (await answer.json()) as { meta?: { revision: number } };
    if (answer.status === 200) return { server, revision: body.meta!.revision };
    expect(tries, "the ingested event is served").toBeLessThan(200);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
