import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../lib/db/index.ts";
import { SPORTS } from "../../lib/db/schema/index.ts";
import { apiClient, checkedAnswers } from "../../testing/api.ts";
import { BACKENDS, POSTGRES, type Backend, useTestDatabase } from "../../testing/databases.ts";
import { FEED_TOKEN, ingest } from "../../testing/feed.ts";
import { organisationWithKeys } from "../../testing/organisations.ts";
import { admin, startServer, type RunningServer } from "../../testing/processes.ts";

// The public API over HTTP, on both entry points (our node:http server and Next's route handlers)
// and both databases: every endpoint, parameter and error code of the contract. Every answer is
// checked against the OpenAPI document as it arrives (testing/api.ts).

const DELAY_SECONDS = 3;
const UPCOMING = 120; // more than one page of 100
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const kickoff = (minutes: number) => new Date(Date.UTC(2026, 11, 1, 12, 0) + minutes * 60_000).toISOString();

const creation = (id: string, sport: string, status: string, at: string, extra: Record<string, unknown> = {}) => ({
  event_id: id,
  sequence: 1,
  event: {
    sport,
    competition: `${sport} league`,
    home: `${id} home`,
    away: `${id} away`,
    status,
    feed: "official",
    kickoff: at,
    ...extra,
  },
});

const market = (id: string, type: string, names: string[], status = "open") => ({
  id,
  type,
  name: type.replaceAll("_", " "),
  line: type === "total" ? 2.5 : null,
  status,
  outcomes: names.map((name, i) => ({
    id: `${id}-${i}`,
    name,
    price: 1.5 + i * 0.75,
    status: status === "open" ? "active" : "suspended",
  })),
});

// Two events share each kickoff, so the list's second key (id) decides their order.
const upcomingIds = Array.from({ length: UPCOMING }, (_, i) => `up-${String(i).padStart(3, "0")}`);
const FIXTURES = [
  ...upcomingIds.map((id, i) => creation(id, "soccer", "upcoming", kickoff(Math.floor(i / 2) * 15))),
  {
    ...creation("live-soc", "soccer", "live", kickoff(-60), {
      score: { home: 1, away: 0 },
      clock: "55:10",
      period: "2nd half",
    }),
    markets: [
      market("live-soc:mw", "match_winner", ["Home", "Draw", "Away"]),
      market("live-soc:tot", "total", ["Over", "Under"]),
    ],
  },
  {
    ...creation("live-ten", "tennis", "live", kickoff(-30), { period: "Set 2" }),
    markets: [market("live-ten:mw", "match_winner", ["P1", "P2"]), market("live-ten:set", "set_winner", ["P1", "P2"])],
  },
  {
    ...creation("live-bb", "basketball", "live", kickoff(-20)),
    markets: [market("live-bb:mw", "match_winner", ["H", "A"])],
  },
  {
    ...creation("live-cs2", "cs2", "live", kickoff(-10)),
    markets: [market("live-cs2:map", "map_winner", ["T1", "T2"])],
  },
  {
    ...creation("susp-soc", "soccer", "suspended", kickoff(-90)),
    markets: [market("susp-soc:mw", "match_winner", ["H", "D", "A"], "suspended")],
  },
  creation("fin-soc", "soccer", "finished", kickoff(-300)),
  creation("canc-soc", "soccer", "cancelled", kickoff(30)),
  creation("up-ten", "tennis", "upcoming", kickoff(5)),
  {
    event_id: "up-000",
    sequence: 2,
    lineups: {
      home: [
        { number: 1, name: "A. Keeper", position: "GK" },
        { number: 9, name: "B. Striker", position: "ST" },
      ],
      away: [{ number: 10, name: "C. Playmaker", position: "CAM" }],
    },
  },
];

type Entry = { backend: Backend; entry: "node" | "next" };
const ENTRIES: Entry[] = BACKENDS.flatMap((backend) =>
  backend.name === "pglite"
    ? [
        { backend, entry: "node" as const },
        { backend, entry: "next" as const },
      ]
    : [{ backend, entry: "node" as const }],
);

type Keys = Awaited<ReturnType<typeof organisationWithKeys>>;
type EventBody = { id: string; sport: string; status: string; kickoff: string; sandbox: boolean };

// PostgreSQL's suite counts as skipped, with the reason, when TEST_DATABASE_URL is not set.
const SUITES: (Entry & { skipped?: string })[] = POSTGRES
  ? ENTRIES
  : [
      ...ENTRIES,
      {
        backend: { name: "postgres", create: () => Promise.reject(new Error("no PostgreSQL")) },
        entry: "node",
        skipped: "TEST_DATABASE_URL is not set",
      },
    ];

for (const { backend, entry, skipped } of SUITES) {
  const title = `the API on ${backend.name} through ${entry}`;
  (skipped ? describe.skip : describe)(skipped ? `${title} (skipped: ${skipped})` : title, () => {
    const database = useTestDatabase(backend);
    let server: RunningServer;
    let starter: Keys; // soccer, basketball, tennis; sandbox key on soccer
    let enterprise: Keys; // every sport; sandbox key on tennis
    let gone: Keys; // sandbox key expired, production key revoked
    let full: Keys; // sandbox key with 999 of its 1,000 requests used this month
    let fast: ReturnType<typeof apiClient>; // paced for production keys
    let sandboxPaced: ReturnType<typeof apiClient>; // 2 requests a second, the sandbox limit
    let fixturesVisibleToSandboxAt = 0;
    let checkedBefore = 0;

    beforeAll(async () => {
      checkedBefore = checkedAnswers.count;
      const env = database().env;
      starter = await organisationWithKeys(env, "starter-org", { plan: "starter", sandboxSport: "soccer" });
      enterprise = await organisationWithKeys(env, "big-org", { plan: "enterprise", sandboxSport: "tennis" });
      gone = await organisationWithKeys(env, "gone-org", { plan: "pro", sandboxSport: "soccer" });
      full = await organisationWithKeys(env, "full-org", { plan: "starter", sandboxSport: "soccer" });
      await admin(["key", "revoke", "--id", gone.production.id], env);
      const handle = await openDatabase(database().config);
      await handle.db.execute(
        sql`update api_keys set expires_at = now() - interval '1 minute' where id = ${gone.sandbox.id}`,
      );
      await handle.db.execute(sql`
      insert into usage_monthly (key_id, month, requests)
      values (${full.sandbox.id}, date_trunc('month', now() at time zone 'utc')::date, 999)`);
      await handle.close();

      server = await startServer({
        ...env,
        FEED_TOKEN,
        SANDBOX_DELAY_SECONDS: String(DELAY_SECONDS),
        API_ENTRY: entry,
      });
      fast = apiClient(server.url, 9);
      sandboxPaced = apiClient(server.url, 2);
      await ingest(server.url, FIXTURES);
      fixturesVisibleToSandboxAt = Date.now() + DELAY_SECONDS * 1000 + 200;
      // The view follows the change bus: wait until it shows the last fixture.
      for (let i = 0; i < 100; i++) {
        const answer = await fast("/api/v1/events/up-000/lineups", { key: enterprise.production.key });
        if ((answer.body.data as { home: unknown[] }).home.length > 0) break;
        await sleep(50);
      }
    });
    afterAll(async () => {
      await server?.stop();
    });

    describe("GET /api/v1/me", () => {
      it("describes a production key, with meta and no-store", async () => {
        const first = await fast("/api/v1/me", { key: starter.production.key });
        expect(first.status).toBe(200);
        expect(first.headers.get("cache-control")).toBe("no-store");
        expect(first.body.data).toMatchObject({
          key: starter.production.key,
          environment: "production",
          sports: ["soccer", "basketball", "tennis"],
          expires_at: null,
          plan: "starter",
          delay_seconds: 0,
          limits: { requests_per_month: 100_000, requests_per_second: 10 },
        });
        expect(first.body.meta).toMatchObject({ sandbox: false, delay_seconds: 0, requests_quota: 100_000 });
        const data = first.body.data as Record<string, unknown>;
        // A few hundred requests in the month so far do not reach 100 000 before it ends.
        expect(data.usage).toEqual({
          requests_used: first.body.meta.requests_used,
          requests_quota: 100_000,
          resets_at: data.quota_resets_at,
          projected_exhaustion_at: null,
        });
        const second = await fast("/api/v1/me", { key: starter.production.key });
        expect(second.body.meta.requests_used).toBe((first.body.meta.requests_used as number) + 1);
      });

      it("describes a sandbox key: one sport, an expiry, no plan, the delay", async () => {
        const answer = await sandboxPaced("/api/v1/me", { key: starter.sandbox.key });
        expect(answer.status).toBe(200);
        const data = answer.body.data as Record<string, unknown>;
        expect(data).toMatchObject({
          environment: "sandbox",
          sports: ["soccer"],
          plan: null,
          delay_seconds: DELAY_SECONDS,
        });
        expect(Date.parse(data.expires_at as string)).toBeGreaterThan(Date.now() + 29 * 86_400_000);
        expect(answer.body.meta).toMatchObject({ sandbox: true, delay_seconds: DELAY_SECONDS, requests_quota: 1_000 });
      });
    });

    // The pipeline decides these the same behind either entry: the Next entry runs what its adapter
    // could change (every operation, HTTP), the node entry the rest.
    const pipelineOnly = entry === "next" ? " (node entry; the Next entry serves the same pipeline)" : "";

    describe.skipIf(pipelineOnly !== "")(`authentication${pipelineOnly}`, () => {
      it("accepts Authorization: Bearer in any case of the scheme, and both headers with the same key", async () => {
        const variants: Record<string, string>[] = [
          { authorization: `Bearer ${enterprise.production.key}` },
          { authorization: `bearer ${enterprise.production.key}` },
          { authorization: `Bearer ${enterprise.production.key}`, "x-api-key": enterprise.production.key },
        ];
        for (const headers of variants) {
          expect((await fast("/api/v1/me", { headers })).status).toBe(200);
        }
      });

      it("refuses different keys in the two headers, without counting either", async () => {
        const before = await fast("/api/v1/me", { key: enterprise.production.key });
        const answer = await fast("/api/v1/me", {
          headers: { authorization: `Bearer ${enterprise.production.key}`, "x-api-key": starter.production.key },
        });
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({ code: "conflicting_credentials" });
        const after = await fast("/api/v1/me", { key: enterprise.production.key });
        expect(after.body.meta.requests_used).toBe((before.body.meta.requests_used as number) + 1);
      });

      it("answers 401 with the contract's codes", async () => {
        const missing = await fast("/api/v1/events");
        expect(missing.status).toBe(401);
        expect(missing.body).toMatchObject({ code: "missing_api_key" });
        expect(missing.headers.get("www-authenticate")).toBe("Bearer");

        const key = enterprise.production.key;
        const flipped = key.slice(0, 10) + (key[10] === "a" ? "b" : "a") + key.slice(11); // checksum fails
        for (const bad of ["nonsense", flipped, "svc_sk_" + "A".repeat(32), `${key}x`]) {
          const answer = await fast("/api/v1/events", { key: bad });
          expect(answer.status, bad).toBe(401);
          expect(answer.body).toMatchObject({ code: "invalid_api_key" });
        }
        const basic = await fast("/api/v1/events", { headers: { authorization: "Basic dXNlcjpwYXNz" } });
        expect(basic.body).toMatchObject({ code: "invalid_api_key" });

        expect((await fast("/api/v1/events", { key: gone.production.key })).body).toMatchObject({
          code: "key_revoked",
        });
        expect((await fast("/api/v1/events", { key: gone.sandbox.key })).body).toMatchObject({ code: "key_expired" });
      });

      it("never accepts a key in the query string, even beside a valid header", async () => {
        for (const query of [`api_key=${starter.production.key}`, `key=x`, `token=${starter.production.key}`]) {
          const answer = await fast(`/api/v1/me?${query}`, { key: starter.production.key });
          expect(answer.status).toBe(401);
          expect(answer.body).toMatchObject({ code: "invalid_api_key" });
          expect((answer.body as unknown as { detail: string }).detail).toMatch(/header/);
        }
      });
    });

    describe("GET /api/v1/events", () => {
      it("lists live and upcoming events of the key's sports by default, in kickoff then id order", async () => {
        const answer = await fast("/api/v1/events?limit=100", { key: starter.production.key });
        expect(answer.status).toBe(200);
        const events = answer.body.data as EventBody[];
        expect(events).toHaveLength(100);
        expect(new Set(events.map((e) => e.status))).toEqual(new Set(["live", "upcoming"]));
        expect(events.every((e) => ["soccer", "basketball", "tennis"].includes(e.sport))).toBe(true);
        expect(events.every((e) => e.sandbox === false)).toBe(true);
        const order = events.map((e) => [Date.parse(e.kickoff), e.id] as const);
        expect(order).toEqual([...order].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : 1)));
        expect(answer.body.meta.next_cursor).toEqual(expect.any(String));
      });

      it("filters by every sport and status value", async () => {
        const expected: Record<string, number> = { soccer: UPCOMING + 1, tennis: 2, basketball: 1, cs2: 1 };
        for (const sport of SPORTS) {
          const answer = await fast(`/api/v1/events?sport=${sport}&limit=100`, { key: enterprise.production.key });
          expect(answer.status).toBe(200);
          const events = answer.body.data as EventBody[];
          expect(events.every((e) => e.sport === sport)).toBe(true);
          const total = events.length + (answer.body.meta.next_cursor ? UPCOMING + 1 - 100 : 0);
          expect(total, sport).toBe(expected[sport] ?? 0);
        }
        const live = await fast("/api/v1/events?status=live", { key: enterprise.production.key });
        expect((live.body.data as EventBody[]).map((e) => e.id).sort()).toEqual([
          "live-bb",
          "live-cs2",
          "live-soc",
          "live-ten",
        ]);
        const upcoming = await fast("/api/v1/events?status=upcoming&sport=tennis", { key: enterprise.production.key });
        expect((upcoming.body.data as EventBody[]).map((e) => e.id)).toEqual(["up-ten"]);
      });

      it("pages through more than 100 events without loss or repeat", async () => {
        for (const limit of [7, 100]) {
          const seen: string[] = [];
          let cursor: string | null = null;
          let pages = 0;
          do {
            const query: string = `sport=soccer&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
            const answer = await fast(`/api/v1/events?${query}`, { key: enterprise.production.key });
            expect(answer.status).toBe(200);
            const page = answer.body.data as EventBody[];
            expect(page.length).toBeLessThanOrEqual(limit);
            seen.push(...page.map((e) => e.id));
            cursor = answer.body.meta.next_cursor as string | null;
            pages++;
          } while (cursor);
          expect(pages).toBe(Math.ceil((UPCOMING + 1) / limit));
          expect(new Set(seen).size).toBe(seen.length);
          expect(seen.sort()).toEqual([...upcomingIds, "live-soc"].sort());
        }
      });

      it("defaults to 50 a page and refuses limits outside 1 to 100", async () => {
        const page = await fast("/api/v1/events", { key: enterprise.production.key });
        expect(page.body.data).toHaveLength(50);
        expect((await fast("/api/v1/events?limit=1", { key: enterprise.production.key })).body.data).toHaveLength(1);
        for (const limit of ["0", "101", "abc", "2.5", ""]) {
          const answer = await fast(`/api/v1/events?limit=${limit}`, { key: enterprise.production.key });
          expect(answer.status, limit).toBe(400);
          expect(answer.body).toMatchObject({ code: "invalid_parameter", errors: [{ param: "limit" }] });
        }
      });

      it("takes a limit only in plain decimal digits, not every number JavaScript reads", async () => {
        const forms = [
          "0x10",
          "0X1A",
          "0b11",
          "0o17",
          "1e1",
          "5e0",
          "%205",
          "+5",
          "5%20",
          "%2B5",
          "05",
          "5.0",
          "5.",
          "%095",
        ];
        for (const limit of forms) {
          const answer = await fast(`/api/v1/events?limit=${limit}`, { key: enterprise.production.key });
          expect(answer.status, limit).toBe(400);
          expect(answer.body, limit).toMatchObject({
            code: "invalid_parameter",
            detail: "limit: must be a whole number from 1 to 100, in decimal digits",
            errors: [{ param: "limit", message: "must be a whole number from 1 to 100, in decimal digits" }],
          });
        }
        expect((await fast("/api/v1/events?limit=abc", { key: enterprise.production.key })).body).toMatchObject({
          errors: [{ param: "limit", message: "must be a whole number from 1 to 100, in decimal digits" }],
        });
        expect((await fast("/api/v1/events?limit=10", { key: enterprise.production.key })).body.data).toHaveLength(10);
      });

      it("refuses a cursor it did not give out, a bad value, a repeated or an unknown parameter", async () => {
        const cases: [string, string, string][] = [
          ["cursor=garbage", "invalid_parameter", "cursor"],
          ["status=finished", "invalid_parameter", "status"],
          ["sport=curling", "invalid_parameter", "sport"],
          ["sport=soccer&sport=tennis", "invalid_parameter", "sport"],
          ["page=2", "unknown_parameter", "page"],
          ["status=live&offset=10", "unknown_parameter", "offset"],
        ];
        for (const [query, code, param] of cases) {
          const answer = await fast(`/api/v1/events?${query}`, { key: enterprise.production.key });
          expect(answer.status, query).toBe(400);
          expect(answer.body, query).toMatchObject({ code, errors: [{ param }] });
        }
      });

      it("answers 403 for a sport the plan does not cover", async () => {
        const answer = await fast("/api/v1/events?sport=cs2", { key: starter.production.key });
        expect(answer.status).toBe(403);
        expect(answer.body).toMatchObject({ code: "sport_not_covered" });
      });
    });

    describe("GET /api/v1/events/{id}", () => {
      it("serves one event in any state, the same object as in the list", async () => {
        const listed = (await fast("/api/v1/events?status=live&sport=soccer", { key: starter.production.key })).body
          .data as EventBody[];
        const one = await fast("/api/v1/events/live-soc", { key: starter.production.key });
        expect(one.status).toBe(200);
        expect(one.body.data).toEqual(listed.find((e) => e.id === "live-soc"));
        expect(Object.keys(one.body.data as object)).toEqual([
          "id",
          "sport",
          "competition",
          "home",
          "away",
          "status",
          "feed",
          "kickoff",
          "score",
          "clock",
          "period",
          "stats",
          "updated_at",
          "sandbox",
        ]);
        expect(one.body.data).toMatchObject({ score: { home: 1, away: 0 }, clock: "55:10", period: "2nd half" });
        for (const id of ["fin-soc", "canc-soc", "susp-soc"]) {
          expect((await fast(`/api/v1/events/${id}`, { key: starter.production.key })).status, id).toBe(200);
        }
      });

      it("answers 404 for an unknown event, 400 for an impossible id, 403 for a sport not covered", async () => {
        const unknown = await fast("/api/v1/events/no-such-event", { key: starter.production.key });
        expect(unknown.status).toBe(404);
        expect(unknown.body).toMatchObject({ code: "not_found" });
        const impossible = await fast("/api/v1/events/bad%20id", { key: starter.production.key });
        expect(impossible.body).toMatchObject({ code: "invalid_parameter", errors: [{ param: "id" }] });
        const other = await fast("/api/v1/events/live-cs2", { key: starter.production.key });
        expect(other.status).toBe(403);
        expect(other.body).toMatchObject({ code: "sport_not_covered" });
        const extra = await fast("/api/v1/events/live-soc?sport=soccer", { key: starter.production.key });
        expect(extra.body).toMatchObject({ code: "unknown_parameter" });
      });
    });

    describe("GET /api/v1/events/{id}/lineups", () => {
      it("serves both sides once published, empty sides before", async () => {
        const published = await fast("/api/v1/events/up-000/lineups", { key: starter.production.key });
        expect(published.body.data).toEqual({
          event_id: "up-000",
          home: [
            { number: 1, name: "A. Keeper", position: "GK" },
            { number: 9, name: "B. Striker", position: "ST" },
          ],
          away: [{ number: 10, name: "C. Playmaker", position: "CAM" }],
          sandbox: false,
        });
        const pending = await fast("/api/v1/events/up-001/lineups", { key: starter.production.key });
        expect(pending.body.data).toEqual({ event_id: "up-001", home: [], away: [], sandbox: false });
        expect((await fast("/api/v1/events/nope/lineups", { key: starter.production.key })).status).toBe(404);
        expect((await fast("/api/v1/events/live-cs2/lineups", { key: starter.production.key })).status).toBe(403);
      });
    });

    describe("GET /api/v1/odds", () => {
      type Board = (EventBody & { markets: { id: string; type: string; status: string }[] })[];

      it("serves every event in play with its markets, suspended ones included", async () => {
        const answer = await fast("/api/v1/odds", { key: enterprise.production.key });
        expect(answer.status).toBe(200);
        const board = answer.body.data as Board;
        expect(board.map((e) => e.id)).toEqual(["susp-soc", "live-soc", "live-ten", "live-bb", "live-cs2"]);
        expect(board.find((e) => e.id === "live-soc")!.markets.map((m) => m.id)).toEqual([
          "live-soc:mw",
          "live-soc:tot",
        ]);
        expect(board.find((e) => e.id === "susp-soc")!.markets.every((m) => m.status === "suspended")).toBe(true);
        expect(answer.body.meta).not.toHaveProperty("next_cursor");
      });

      it("filters by sport and by market type; a type a sport does not offer leaves its events without markets", async () => {
        const tennis = (await fast("/api/v1/odds?sport=tennis", { key: enterprise.production.key })).body.data as Board;
        expect(tennis.map((e) => e.id)).toEqual(["live-ten"]);
        const sets = (await fast("/api/v1/odds?type=set_winner", { key: starter.production.key })).body.data as Board;
        expect(sets.map((e) => e.id)).toEqual(["susp-soc", "live-soc", "live-ten", "live-bb"]);
        expect(sets.find((e) => e.id === "live-ten")!.markets.map((m) => m.type)).toEqual(["set_winner"]);
        expect(sets.find((e) => e.id === "live-soc")!.markets).toEqual([]);
        const bogus = await fast("/api/v1/odds?type=first_scorer", { key: starter.production.key });
        expect(bogus.body).toMatchObject({ code: "invalid_parameter", errors: [{ param: "type" }] });
        expect((await fast("/api/v1/odds?sport=cs2", { key: starter.production.key })).status).toBe(403);
        expect((await fast("/api/v1/odds?limit=5", { key: starter.production.key })).body).toMatchObject({
          code: "unknown_parameter",
        });
      });

      it("is gzipped for clients that accept it, and plain otherwise", async () => {
        const gzipped = await fast("/api/v1/odds", {
          key: enterprise.production.key,
          headers: { "accept-encoding": "gzip" },
        });
        expect(gzipped.headers.get("content-encoding")).toBe("gzip");
        const plain = await fast("/api/v1/odds", {
          key: enterprise.production.key,
          headers: { "accept-encoding": "identity" },
        });
        expect(plain.headers.get("content-encoding")).toBeNull();
        expect(gzipped.body.data).toEqual(plain.body.data);
        // An explicit coding wins over `*`, wherever each stands (RFC 9110 12.5.3).
        for (const [acceptEncoding, coding] of [
          ["*;q=0, gzip", "gzip"],
          ["gzip;q=0, *", null],
          ["br, *;q=0.5", "gzip"],
          ["br;q=1, gzip;q=0, *;q=1", null],
        ] as const) {
          const answer = await fast("/api/v1/odds", {
            key: enterprise.production.key,
            headers: { "accept-encoding": acceptEncoding },
          });
          // (Through Next, its own compression may pick deflate where `*` allows it.)
          if (coding) expect(answer.headers.get("content-encoding"), acceptEncoding).toBe(coding);
          else expect(answer.headers.get("content-encoding"), acceptEncoding).not.toBe("gzip");
        }
      });
    });

    describe("HTTP", () => {
      it("answers HEAD like GET without a body, and 405 with Allow for other methods", async () => {
        const head = await fast("/api/v1/events", { key: enterprise.production.key, method: "HEAD" });
        expect(head.status).toBe(200);
        expect(head.body).toBeNull();
        // Next sends no length for HEAD; ours sends the GET's.
        if (entry === "node") expect(Number(head.headers.get("content-length"))).toBeGreaterThan(1000);
        for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
          const answer = await fast("/api/v1/events", { key: enterprise.production.key, method });
          expect(answer.status, method).toBe(405);
          expect(answer.headers.get("allow")).toBe("GET, HEAD");
          expect(answer.body).toMatchObject({ code: "method_not_allowed" });
        }
      });

      it("answers 404 for an unknown path to a known key, and counts it", async () => {
        const before = await fast("/api/v1/me", { key: enterprise.production.key });
        const answer = await fast("/api/v1/fixtures", { key: enterprise.production.key });
        expect(answer.status).toBe(404);
        expect(answer.body).toMatchObject({ code: "not_found" });
        const after = await fast("/api/v1/me", { key: enterprise.production.key });
        expect(after.body.meta.requests_used).toBe((before.body.meta.requests_used as number) + 2);
        expect((await fast("/api/v1/fixtures")).status).toBe(401);
      });

      it("answers 304 to If-None-Match while nothing changed, and counts it", async () => {
        const first = await fast("/api/v1/events?sport=soccer", { key: enterprise.production.key });
        const etag = first.headers.get("etag");
        expect(etag).toMatch(/^W\/"/);
        const again = await fast("/api/v1/events?sport=soccer", {
          key: enterprise.production.key,
          headers: { "if-none-match": etag! },
        });
        expect(again.status).toBe(304);
        expect(again.headers.get("etag")).toBe(etag);
        const after = await fast("/api/v1/events?sport=soccer", { key: enterprise.production.key });
        expect(after.headers.get("etag")).toBe(etag);
        expect(after.body.meta.requests_used).toBe((first.body.meta.requests_used as number) + 2);
      });

      it("carries the rate-limit headers, and refuses beyond the per-second limit without counting", async () => {
        const answer = await fast("/api/v1/me", { key: starter.production.key });
        expect(answer.headers.get("ratelimit-policy")).toBe('"second";q=10;w=1, "month";q=100000;w=2592000');
        expect(answer.headers.get("ratelimit")).toMatch(/^"second";r=\d+;t=1, "month";r=\d+;t=\d+$/);

        await sleep(1000 - (Date.now() % 1000) + 20); // a fresh second for the sandbox key's 2/s
        const burst = await Promise.all(
          Array.from({ length: 5 }, () =>
            fetch(`${server.url}/api/v1/me`, { headers: { "x-api-key": enterprise.sandbox.key } }).then(async (r) => ({
              status: r.status,
              retryAfter: r.headers.get("retry-after"),
              second: r.headers.get("date"),
              body: (await r.json()) as {
                code?: string;
                "violated-policies"?: string[];
                meta?: { requests_used: number };
              },
            })),
          ),
        );
        const refused = burst.filter((r) => r.status === 429);
        const admitted = burst.filter((r) => r.status === 200);
        // A busy machine may spread the burst over two seconds: at most two admitted in each.
        const admittedPerSecond = Map.groupBy(admitted, (r) => r.second);
        expect(Math.max(...[...admittedPerSecond.values()].map((rs) => rs.length))).toBe(2);
        expect(refused.length).toBeGreaterThanOrEqual(1);
        expect(admitted.length + refused.length).toBe(5);
        for (const r of refused) {
          expect(r.body).toMatchObject({ code: "rate_limited", "violated-policies": ["second"] });
          expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
        }
        await sleep(1000);
        const next = await sandboxPaced("/api/v1/me", { key: enterprise.sandbox.key });
        expect(next.body.meta.requests_used).toBe(Math.max(...admitted.map((r) => r.body.meta!.requests_used)) + 1);
      });
    });

    it("admits a key's last request of the month, then answers 429 quota_exceeded until the month turns", async () => {
      const last = await sandboxPaced("/api/v1/me", { key: full.sandbox.key });
      expect(last.status).toBe(200);
      expect(last.body.meta).toMatchObject({ requests_used: 1_000, requests_quota: 1_000 });
      expect(last.headers.get("ratelimit")).toMatch(/"month";r=0;/);
      const now = new Date();
      const untilNextMonth = (Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime()) / 1000;
      for (let i = 0; i < 2; i++) {
        const refused = await sandboxPaced("/api/v1/events", { key: full.sandbox.key });
        expect(refused.status).toBe(429);
        expect(refused.body).toMatchObject({ code: "quota_exceeded", "violated-policies": ["month"] });
        expect(Math.abs(Number(refused.headers.get("retry-after")) - untilNextMonth)).toBeLessThan(5);
      }
    });

    describe.skipIf(pipelineOnly !== "")(`the sandbox view${pipelineOnly}`, () => {
      it("covers the key's one sport only", async () => {
        await sleep(Math.max(0, fixturesVisibleToSandboxAt - Date.now()));
        const list = await sandboxPaced("/api/v1/events?limit=100", { key: starter.sandbox.key });
        expect((list.body.data as EventBody[]).every((e) => e.sport === "soccer" && e.sandbox === true)).toBe(true);
        expect(list.body.meta).toMatchObject({ sandbox: true, delay_seconds: DELAY_SECONDS });
        const other = await sandboxPaced("/api/v1/events?sport=tennis", { key: starter.sandbox.key });
        expect(other.status).toBe(403);
        expect(other.body).toMatchObject({ code: "sport_not_covered" });
        expect((await sandboxPaced("/api/v1/events/live-ten", { key: starter.sandbox.key })).status).toBe(403);
        const odds = await sandboxPaced("/api/v1/odds", { key: starter.sandbox.key });
        expect((odds.body.data as EventBody[]).map((e) => e.id)).toEqual(["susp-soc", "live-soc"]);
      });

      it(`sees an event as it was ${DELAY_SECONDS} s earlier, while a production key sees the present`, async () => {
        await sleep(Math.max(0, fixturesVisibleToSandboxAt - Date.now()));
        const sandboxBefore = await sandboxPaced("/api/v1/events/up-002", { key: starter.sandbox.key });
        expect(sandboxBefore.body.data).toMatchObject({ status: "upcoming", sandbox: true });

        const sentAt = Date.now();
        await ingest(server.url, [
          { event_id: "up-002", sequence: 2, event: { status: "live", clock: "00:01", period: "1st half" } },
        ]);
        let production: EventBody | undefined;
        for (let i = 0; i < 40 && production?.status !== "live"; i++) {
          production = (await fast("/api/v1/events/up-002", { key: starter.production.key })).body.data as EventBody;
          if (production.status !== "live") await sleep(25);
        }
        expect(production).toMatchObject({ status: "live", sandbox: false });

        // The sandbox sees the change only once it is DELAY_SECONDS old, never earlier.
        let seenLiveAt = 0;
        while (Date.now() - sentAt < (DELAY_SECONDS + 3) * 1000) {
          const answer = await sandboxPaced("/api/v1/events/up-002", { key: starter.sandbox.key });
          const status = (answer.body.data as EventBody).status;
          if (status === "live") {
            seenLiveAt = Date.now();
            break;
          }
          expect(status).toBe("upcoming");
        }
        expect(seenLiveAt).toBeGreaterThan(0);
        expect(seenLiveAt - sentAt).toBeGreaterThanOrEqual(DELAY_SECONDS * 1000);
        const list = await sandboxPaced("/api/v1/events?status=live", { key: starter.sandbox.key });
        expect((list.body.data as EventBody[]).map((e) => e.id)).toContain("up-002");
      });

      it("does not know an event created less than the delay ago", async () => {
        await ingest(server.url, [creation("brand-new", "soccer", "upcoming", kickoff(1_000))]);
        await sleep(300);
        expect((await fast("/api/v1/events/brand-new", { key: starter.production.key })).status).toBe(200);
        const answer = await sandboxPaced("/api/v1/events/brand-new", { key: starter.sandbox.key });
        expect(answer.status).toBe(404);
        expect(answer.body).toMatchObject({ code: "not_found" });
      });
    });

    it.runIf(backend.name === "postgres")(
      "refuses a key on the next request after it is revoked elsewhere",
      async () => {
        expect((await fast("/api/v1/me", { key: starter.production.key })).status).toBe(200);
        await admin(["key", "revoke", "--id", starter.production.id], database().env);
        const answer = await fast("/api/v1/me", { key: starter.production.key });
        expect(answer.status).toBe(401);
        expect(answer.body).toMatchObject({ code: "key_revoked" });
      },
    );

    it.runIf(backend.name === "postgres")("answers 503 with Retry-After when a key cannot be checked", async () => {
      // A key not yet cached needs the database: take the database away under the running server.
      const postgres = (await import("postgres")).default(process.env.TEST_DATABASE_URL!, {
        max: 1,
        onnotice: () => {},
      });
      const name = new URL(database().env.DATABASE_URL!).pathname.slice(1);
      await postgres.unsafe(`alter database "${name}" allow_connections false`);
      await postgres.unsafe(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}'`);
      try {
        const answer = await fast("/api/v1/me", { key: full.production.key });
        expect(answer.status).toBe(503);
        expect(answer.body).toMatchObject({ code: "unavailable" });
        expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
      } finally {
        await postgres.unsafe(`alter database "${name}" allow_connections true`);
        await postgres.end();
      }
    });

    it("checked every answer against the OpenAPI document", () => {
      expect(checkedAnswers.count - checkedBefore).toBeGreaterThan(100);
    });
  });
}
