import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "../lib/accounts/audit.ts";
import { openDatabase } from "../lib/db/index.ts";
import { revokeKey } from "../lib/keys/index.ts";
import { apiClient, checkedAnswers } from "./api.ts";
import { BACKENDS, POSTGRES, type Backend, type TestDatabase, useTestDatabase } from "./databases.ts";
import { FEED_TOKEN, ingest } from "./feed.ts";
import { organisationOn, type OrganisationWithKeys } from "./organisations.ts";
import { startServer, type RunningServer } from "./processes.ts";

// The public API's suite, shared by its files (tests/integration/api/, one per operation): each
// file runs on both entry points (our node:http server and Next's route handlers) over PGlite and
// through the node entry over PostgreSQL, against one set of fixtures and four organisations. Every
// answer is checked against the OpenAPI document as it arrives (testing/api.ts).

export const DELAY_SECONDS = 3;
export const UPCOMING = 120; // more than one page of 100
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const kickoff = (minutes: number) => new Date(Date.UTC(2026, 11, 1, 12, 0) + minutes * 60_000).toISOString();

export const creation = (
  id: string,
  sport: string,
  status: string,
  at: string,
  extra: Record<string, unknown> = {},
) => ({
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

export const market = (id: string, type: string, names: string[], status = "open") => ({
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
export const upcomingIds = Array.from({ length: UPCOMING }, (_, i) => `up-${String(i).padStart(3, "0")}`);
export const FIXTURES = [
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

export type Keys = OrganisationWithKeys;
export type EventBody = { id: string; sport: string; status: string; kickoff: string; sandbox: boolean };
type Client = ReturnType<typeof apiClient>;

/** What a file's tests are given: the running server, the organisations' keys, paced clients. */
export type ApiSuite = {
  backend: Backend;
  entry: "node" | "next";
  database: () => TestDatabase;
  server: RunningServer;
  /** soccer, basketball, tennis; sandbox key on soccer */
  starter: Keys;
  /** every sport; sandbox key on tennis */
  enterprise: Keys;
  /** sandbox key expired, production key revoked */
  gone: Keys;
  /** sandbox key with 999 of its 1,000 requests used this month */
  full: Keys;
  /** paced for production keys */
  fast: Client;
  /** 2 requests a second, the sandbox limit */
  sandboxPaced: Client;
  /** When the fixtures are older than the sandbox's delay. */
  fixturesVisibleToSandboxAt: number;
};

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

/**
 * Registers `tests` once for each backend and entry, each with a server of its own. `nodeOnly`: for
 * what the pipeline decides the same behind either entry (the Next entry runs what its adapter could
 * change: every operation, HTTP).
 */
export function describeApi(title: string, tests: (api: ApiSuite) => void, options: { nodeOnly?: boolean } = {}): void {
  for (const { backend, entry, skipped } of SUITES) {
    if (options.nodeOnly && entry === "next") continue;
    const full = `${title} on ${backend.name} through ${entry}`;
    (skipped ? describe.skip : describe)(skipped ? `${full} (skipped: ${skipped})` : full, () => {
      const database = useTestDatabase(backend);
      // Filled in before the first test runs; the tests read it only then.
      const api = {
        backend,
        entry,
        database,
      } as ApiSuite;
      let checkedBefore = 0;

      beforeAll(async () => {
        checkedBefore = checkedAnswers.count;
        const env = database().env;
        // One opening of the database for every organisation: PGlite admits one process, and each
        // opening costs a second on a busy machine.
        const handle = await openDatabase(database().config);
        try {
          const made = (slug: string, plan: string, sandboxSport: string) =>
            organisationOn(handle.db, database().config, slug, { plan, sandboxSport });
          api.starter = await made("starter-org", "starter", "soccer");
          api.enterprise = await made("big-org", "enterprise", "tennis");
          api.gone = await made("gone-org", "pro", "soccer");
          api.full = await made("full-org", "starter", "soccer");
          await revokeKey(handle.db, api.gone.production.id, null, { actor: OPERATOR, at: new Date() });
          await handle.db.execute(
            sql`update api_keys set expires_at = now() - interval '1 minute' where id = ${api.gone.sandbox.id}`,
          );
          await handle.db.execute(sql`
          insert into usage_monthly (key_id, month, requests)
          values (${api.full.sandbox.id}, date_trunc('month', now() at time zone 'utc')::date, 999)`);
        } finally {
          await handle.close();
        }

        api.server = await startServer({
          ...env,
          FEED_TOKEN,
          SANDBOX_DELAY_SECONDS: String(DELAY_SECONDS),
          API_ENTRY: entry,
        });
        api.fast = apiClient(api.server.url, 9);
        api.sandboxPaced = apiClient(api.server.url, 2);
        await ingest(api.server.url, FIXTURES);
        api.fixturesVisibleToSandboxAt = Date.now() + DELAY_SECONDS * 1000 + 200;
        // The view follows the change bus: wait until it shows the last fixture.
        for (let i = 0; i < 100; i++) {
          const answer = await api.fast("/api/v1/events/up-000/lineups", { key: api.enterprise.production.key });
          if ((answer.body.data as { home: unknown[] }).home.length > 0) break;
          await sleep(50);
        }
      });
      afterAll(async () => {
        await api.server?.stop();
      });

      tests(api);

      it("checked every answer against the OpenAPI document", () => {
        expect(checkedAnswers.count - checkedBefore).toBeGreaterThan(1);
      });
    });
  }
}
