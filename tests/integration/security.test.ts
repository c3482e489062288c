import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openApiDocument } from "../../lib/api/openapi.ts";
import { OPERATOR } from "../../lib/audit.ts";
import { SPORTS, type Sport } from "../../lib/db/schema/index.ts";
import { generateKey } from "../../lib/keys/format.ts";
import { StreamTokens } from "../../lib/keys/stream-token.ts";
import { createSandboxKey, revokeKey } from "../../lib/keys/index.ts";
import { updateKey } from "../../lib/keys/settings.ts";
import { reviewLicence } from "../../lib/licences.ts";
import { seedReferenceData } from "../../seeds/index.ts";
import { expectDocumented } from "../../testing/api.ts";
import { describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { FEED_TOKEN, ingest } from "../../testing/feed.ts";
import { liveEvent } from "../../testing/feed-updates.ts";
import { recordCredentials, recordQueryCredentials } from "../../testing/logs.ts";
import { keyOnOwnPlan, withDatabase } from "../../testing/organisations.ts";
import { startServer, type RunningServer } from "../../testing/processes.ts";
import { openSse, responseOf, type SseClient } from "../../testing/sse.ts";

// The security cases every operation of the OpenAPI document shares, streams included, as one
// table: each operation is read from the document, sent a real path (an event that exists, a sport
// the operation filters by) and each credential case, and each answer must be documented for it and
// carry the contract's problem code. Events are the feed's shared data, not an organisation's: no
// operation reads a resource that belongs to an organisation, so there is no "another
// organisation's resource" case to run.

type OpenApiOperation = {
  security?: unknown[];
  parameters?: { name: string; in: string; required?: boolean }[];
  responses: Record<string, { content?: Record<string, unknown> }>;
};
type OpenApiDocument = { security?: unknown[]; paths: Record<string, Record<string, OpenApiOperation>> };

/** The sport every fixture is of, and that the operations filtering by sport are asked for. */
const SPORT: Sport = "soccer";
const EVENT_ID = "sec-live";
// The value each path parameter of the document is given: `{id}` is always an event's id, and
// `{market_id}` one of its markets (testing/feed-updates.ts names them `<event>-<type>`).
const PATH_VALUES: Record<string, string> = { id: EVENT_ID, market_id: `${EVENT_ID}-match_winner` };
// The value each required query parameter is given: `since` the first revision, always kept here.
const QUERY_VALUES: Record<string, string> = { since: "0" };

type Operation = {
  /** "GET /api/v1/events/{id}", as the document names it. */
  label: string;
  method: string;
  /** The path sent, with its query. */
  path: string;
  stream: boolean;
  /** It reads an event by id or filters by sport, so a key that does not cover the sport is refused. */
  readsASport: boolean;
};

/**
 * The operations of the document that need a key. One whose `security` is empty would be public
 * and is left out; the document lists none: the only public /api/v1 answers are the documents
 * (/api/v1/openapi.json, /api/v1/asyncapi.json), which are not among its paths.
 */
function operationsOf(document: OpenApiDocument): Operation[] {
  return Object.entries(document.paths).flatMap(([template, methods]) =>
    Object.entries(methods)
      .filter(([, operation]) => (operation.security ?? document.security ?? []).length > 0)
      .map(([method, operation]) => {
        const parameters = operation.parameters ?? [];
        const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
          const value = PATH_VALUES[name];
          if (value === undefined) throw new Error(`no value for {${name}} of ${template}: add one to PATH_VALUES`);
          return value;
        });
        const bySport = parameters.some((p) => p.in === "query" && p.name === "sport");
        const query = parameters
          .filter((p) => p.in === "query" && p.required)
          .map((p) => {
            const value = QUERY_VALUES[p.name];
            if (value === undefined) throw new Error(`no value for ${p.name} of ${template}: add one to QUERY_VALUES`);
            return `${p.name}=${value}`;
          });
        if (bySport) query.push(`sport=${SPORT}`);
        return {
          label: `${method.toUpperCase()} ${template}`,
          method: method.toUpperCase(),
          path: query.length > 0 ? `${path}?${query.join("&")}` : path,
          stream: Object.keys(operation.responses["200"]?.content ?? {}).includes("text/event-stream"),
          readsASport: bySport || template.includes("{id}"),
        };
      }),
  );
}

// The server is given this secret so that the suite can sign tokens as it does, expired ones included.
const TOKEN_SECRET = "the security suite's secret, 0123456789abcdef";

const OPERATIONS = operationsOf(openApiDocument() as unknown as OpenApiDocument);

type Keys = {
  /** Every sport, limits no case reaches. */
  working: string;
  /** Another organisation's working key, on a plan of tennis only. */
  tennisOnly: string;
  revoked: string;
  /** A sandbox key past its expiry. */
  expired: string;
  /** Of an organisation whose licence the operator revoked. */
  licenceRevoked: string;
  /** One request a second. */
  oneASecond: string;
  /** A monthly quota of one, already used. */
  usedUp: string;
  /** Limited to networks the suite's requests (from 127.0.0.1) are not in. */
  elsewhere: string;
  /** Browser stream tokens, signed as the server signs them. */
  tokens: { working: string; expired: string; revoked: string; tennis: string; elsewhere: string };
};

type Case = {
  refuses: string;
  status: number;
  code: string;
  headers(keys: Keys): Record<string, string>;
  /** Added to the operation's query. */
  query?(keys: Keys): string;
  appliesTo?(operation: Operation): boolean;
  /** The problem's `violated-policies`, for a 429. */
  violated?: string[];
};

const header = (key: string) => ({ "x-api-key": key });

/** The same key with one character of its random part changed: its checksum no longer matches. */
function mistyped(key: string): string {
  const at = 12;
  return key.slice(0, at) + (key[at] === "a" ? "b" : "a") + key.slice(at + 1);
}

const CASES: Case[] = [
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
    appliesTo: (operation) => operation.readsASport,
  },
  {
    refuses: "a stream token where a key is needed",
    status: 401,
    code: "invalid_api_key",
    headers: () => ({}),
    query: (keys) => `token=${keys.tokens.working}`,
    appliesTo: (operation) => !operation.stream,
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
    appliesTo: (operation) => operation.stream,
  },
  {
    refuses: "a stream token of a revoked key",
    status: 401,
    code: "key_revoked",
    headers: () => ({}),
    query: (keys) => `token=${keys.tokens.revoked}`,
    appliesTo: (operation) => operation.stream,
  },
  {
    refuses: "a stream token beside a key",
    status: 400,
    code: "conflicting_credentials",
    headers: (keys) => header(keys.working),
    query: (keys) => `token=${keys.tokens.working}`,
    appliesTo: (operation) => operation.stream,
  },
  {
    refuses: `a stream token minted for tennis on ${SPORT}`,
    status: 403,
    code: "sport_not_covered",
    headers: () => ({}),
    query: (keys) => `token=${keys.tokens.tennis}`,
    appliesTo: (operation) => operation.stream,
  },
  {
    refuses: "a key whose monthly quota is used up",
    status: 429,
    code: "quota_exceeded",
    headers: (keys) => header(keys.usedUp),
    violated: ["month"],
  },
];

const ROWS = OPERATIONS.flatMap((operation) =>
  CASES.filter((c) => c.appliesTo?.(operation) ?? true).map((c) => ({
    name: `${operation.label} refuses ${c.refuses} with ${c.status} ${c.code}`,
    operation,
    case: c,
  })),
);

/** Quick requests with the one-a-second key: at least one falls in a second already spent. */
const BURST = 4;

type Problem = { code: string; "violated-policies"?: string[] };
type Answer = { status: number; headers: Headers; problem: Problem | null; stream: SseClient | null };

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

describeEachBackend("the security of every operation on $name", (backend) => {
  const database = useTestDatabase(backend);
  let server: RunningServer;
  let keys: Keys;

  beforeAll(async () => {
    const env = database().env;
    keys = await withDatabase(env, async (db) => {
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
      const elsewhere = await own("sec-elsewhere", [...SPORTS]);
      const allowlist = { allowedIps: ["203.0.113.0/24", "2001:db8::/32"] };
      await updateKey(db, elsewhere.keyId, null, allowlist, { actor: OPERATOR, at });
      const tokens = new StreamTokens(TOKEN_SECRET);
      const inMinutes = (minutes: number) => new Date(at.getTime() + minutes * 60_000);
      const token = (keyId: string, expiresAt: Date, sport: Sport | null = null) =>
        tokens.mint({ keyId, sport, eventId: null, expiresAt });
      return {
        tokens: {
          working: token(working.keyId, inMinutes(30)),
          expired: token(working.keyId, inMinutes(-1)),
          revoked: token(revoked.keyId, inMinutes(30)),
          tennis: token(working.keyId, inMinutes(30), "tennis"),
          elsewhere: token(elsewhere.keyId, inMinutes(30)),
        },
        elsewhere: elsewhere.key,
        working: working.key,
        tennisOnly: (await own("sec-tennis", ["tennis"])).key,
        revoked: revoked.key,
        expired: expired.key,
        licenceRevoked: licenceRevoked.key,
        oneASecond: (await own("sec-one-a-second", [...SPORTS], { requestsPerSecond: 1 })).key,
        usedUp: usedUp.key,
      };
    });
    server = await startServer({ ...env, FEED_TOKEN, AUTH_SECRET: TOKEN_SECRET });
    await ingest(server.url, [liveEvent(EVENT_ID, SPORT, "Security league", { home: "Locks", away: "Keys" })]);
    // The view follows the change bus: wait until it serves the event.
    const getEvent = OPERATIONS.find((operation) => operation.label === "GET /api/v1/events/{id}")!;
    for (let tries = 0; (await send(getEvent, header(keys.working))).status !== 200; tries++) {
      expect(tries, "the ingested event is served").toBeLessThan(200);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  });
  afterAll(async () => {
    await server?.stop();
  });

  /**
   * Sends `operation` with `headers` (and `query` added to its own), and checks the answer against
   * what the document says of the operation. A stream is opened with the harness's SSE client.
   */
  async function send(operation: Operation, headers: Record<string, string>, query?: string): Promise<Answer> {
    const path = query ? `${operation.path}${operation.path.includes("?") ? "&" : "?"}${query}` : operation.path;
    const documentedPath = path.split("?")[0]!;
    recordCredentials(headers);
    recordQueryCredentials(path);
    if (operation.stream) {
      const client = await openSse(`${server.url}${path}`, { headers });
      const response = responseOf(client);
      expectDocumented(documentedPath, response, client.problem);
      return {
        status: client.status,
        headers: response.headers,
        problem: client.problem as Problem | null,
        stream: client,
      };
    }
    const response = await fetch(`${server.url}${path}`, { method: operation.method, headers });
    const text = await response.text();
    const body: unknown = text ? JSON.parse(text) : null;
    expectDocumented(documentedPath, response, body);
    const problem = response.ok ? null : (body as Problem);
    return { status: response.status, headers: response.headers, problem, stream: null };
  }

  it("runs the table over every operation of the document the server serves", async () => {
    const served = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as OpenApiDocument;
    expect(operationsOf(served).map((o) => o.label)).toEqual(OPERATIONS.map((o) => o.label));
    expect(OPERATIONS.some((o) => o.stream)).toBe(true);
  });

  it.each(OPERATIONS)("$label admits a working key", async (operation) => {
    const answer = await send(operation, header(keys.working));
    expect(answer.status, JSON.stringify(answer.problem)).toBe(200);
    try {
      await answer.stream?.waitFor((message) => message.event === "snapshot");
    } finally {
      answer.stream?.close();
    }
  });

  it.each(OPERATIONS.filter((o) => o.stream))(
    "$label admits a working stream token, with no header",
    async (operation) => {
      const answer = await send(operation, {}, `token=${keys.tokens.working}`);
      expect(answer.status, JSON.stringify(answer.problem)).toBe(200);
      try {
        await answer.stream?.waitFor((message) => message.event === "snapshot");
      } finally {
        answer.stream?.close();
      }
    },
  );

  // A key's server mints tokens for its users' browsers, which are anywhere: the allowlist holds the key, not them.
  it.each(OPERATIONS.filter((o) => o.stream))(
    "$label admits a stream token of a key with an IP allowlist, from outside it",
    async (operation) => {
      const answer = await send(operation, {}, `token=${keys.tokens.elsewhere}`);
      expect(answer.status, JSON.stringify(answer.problem)).toBe(200);
      answer.stream?.close();
    },
  );

  it.each(ROWS)("$name", async ({ operation, case: c }) => {
    const answer = await send(operation, c.headers(keys), c.query?.(keys));
    answer.stream?.close();
    expect(answer.status, JSON.stringify(answer.problem)).toBe(c.status);
    expect(answer.problem).toMatchObject({ code: c.code });
    if (c.status === 401) expect(answer.headers.get("www-authenticate")).toMatch(/^Bearer/);
    if (c.violated) {
      expect(answer.problem).toMatchObject({ "violated-policies": c.violated });
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
  });

  it.each(OPERATIONS)(
    "$label refuses requests beyond the key's per-second limit with 429 rate_limited",
    async (operation) => {
      const answers = await Promise.all(Array.from({ length: BURST }, () => send(operation, header(keys.oneASecond))));
      for (const answer of answers) answer.stream?.close();
      // How many fall in one second depends on the machine's speed; that one at least is refused does not.
      expect(answers.every((answer) => answer.status === 200 || answer.status === 429)).toBe(true);
      const refused = answers.filter((answer) => answer.status === 429);
      expect(refused.length).toBeGreaterThanOrEqual(1);
      for (const answer of refused) {
        expect(answer.problem).toMatchObject({ code: "rate_limited", "violated-policies": ["second"] });
        expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      }
    },
  );
});
