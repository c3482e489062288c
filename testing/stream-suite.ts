import { afterAll, beforeAll } from "vitest";
import { apiClient } from "./api.ts";
import { describeEachBackend, type Backend, type TestDatabase, useTestDatabase } from "./databases.ts";
import { FEED_TOKEN, ingest } from "./feed.ts";
import { openDatabase } from "../lib/db/index.ts";
import { organisationOn, type OrganisationWithKeys } from "./organisations.ts";
import { pacer } from "./pace.ts";
import { startServer, type RunningServer } from "./processes.ts";
import { openSse, type SseClient } from "./sse.ts";

// The streams' suite, shared by the files of tests/integration/streams/ that follow a key's
// streams: a server on each database with a short ping and buffer, three organisations, and four
// events (live soccer, tennis and basketball with markets, upcoming soccer). Feed updates to make
// more are below.

export const DELAY_SECONDS = 3;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const kickoff = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

let sequence = 10;
export const next = () => ++sequence;

export const create = (id: string, sport: string, status: string) => ({
  event_id: id,
  sequence: next(),
  event: {
    sport,
    competition: `${sport} cup`,
    home: `${id} home`,
    away: `${id} away`,
    status,
    feed: "official",
    kickoff: kickoff(status === "upcoming" ? 30 : -30),
  },
});

export const market = (eventId: string, type: string, price: number, status = "open") => ({
  id: `${eventId}:${type}`,
  type,
  name: type,
  line: type === "total" ? 2.5 : null,
  status,
  outcomes: [
    { id: `${eventId}:${type}:a`, name: "A", price, status: status === "open" ? "active" : "suspended" },
    { id: `${eventId}:${type}:b`, name: "B", price: 2.2, status: status === "open" ? "active" : "suspended" },
  ],
});

export const score = (id: string, home: number, away = 0) => ({
  event_id: id,
  sequence: next(),
  event: { score: { home, away }, clock: `${10 + home}:00` },
});
export const lineups = (names: string[]) => ({
  home: names.map((name, i) => ({ number: i + 1, name, position: "MF" })),
  away: [{ number: 1, name: "Keeper", position: "GK" }],
});
export const prices = (id: string, type: string, price: number) => ({
  event_id: id,
  sequence: next(),
  markets: [market(id, type, price)],
});

type Keys = OrganisationWithKeys;
type Client = ReturnType<typeof apiClient>;

/** What a file's tests are given, filled in before the first of them runs. */
export type StreamSuite = {
  backend: Backend;
  database: () => TestDatabase;
  server: RunningServer;
  keys: Keys;
  /** Keys of their own for the tests that send many requests, so the others' per-second limits hold. */
  quietKeys: Keys;
  /** The history tests' own: many requests a second, and a sandbox key that only they pace. */
  historyKeys: Keys;
  historyCall: Client;
  historySandboxCall: Client;
  /** A stream of the history's sandbox key, opened at the pace of its calls: its limit is 2 a second. */
  historySandboxOpen: (path: string) => Promise<SseClient>;
  bearer: (key: string) => Record<string, string>;
  production: () => Record<string, string>;
  sandbox: () => Record<string, string>;
  /** Opens a stream, closed when the file's tests end. */
  open: (path: string, headers: Record<string, string>, paused?: boolean) => Promise<SseClient>;
};

/** Registers `tests` on each database, each with a server of its own. */
export function describeStreams(title: string, tests: (suite: StreamSuite) => void): void {
  describeEachBackend(`${title} on $name`, (backend) => {
    const database = useTestDatabase(backend);
    const clients: SseClient[] = [];
    const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
    const suite = {} as StreamSuite;
    Object.assign(suite, {
      backend,
      database,
      bearer,
      production: () => bearer(suite.keys.production.key),
      sandbox: () => bearer(suite.keys.sandbox.key),
      open: async (path: string, headers: Record<string, string>, paused = false) => {
        const client = await openSse(`${suite.server.url}${path}`, { headers, paused });
        clients.push(client);
        return client;
      },
    } satisfies Partial<StreamSuite>);

    beforeAll(async () => {
      const env = database().env;
      // One opening of the database for every organisation (PGlite admits one process).
      const handle = await openDatabase(database().config);
      try {
        const made = (slug: string, plan: string) =>
          organisationOn(handle.db, database().config, slug, { plan, sandboxSport: "soccer" });
        suite.keys = await made("stream-org", "starter");
        suite.quietKeys = await made("token-org", "pro");
        suite.historyKeys = await made("history-org", "enterprise");
      } finally {
        await handle.close();
      }
      suite.server = await startServer({
        ...env,
        FEED_TOKEN,
        SANDBOX_DELAY_SECONDS: String(DELAY_SECONDS),
        STREAM_PING_SECONDS: "1",
        STREAM_BUFFER_BYTES: "65536",
      });
      suite.historyCall = apiClient(suite.server.url, 150);
      const sandboxPace = pacer(2);
      suite.historySandboxCall = apiClient(suite.server.url, 2, sandboxPace);
      suite.historySandboxOpen = (path) => sandboxPace(() => suite.open(path, bearer(suite.historyKeys.sandbox.key)));
      await ingest(suite.server.url, [
        {
          ...create("s-live", "soccer", "live"),
          markets: [market("s-live", "match_winner", 1.8), market("s-live", "total", 1.9)],
        },
        { ...create("t-live", "tennis", "live"), markets: [market("t-live", "match_winner", 1.5)] },
        create("s-next", "soccer", "upcoming"),
        { ...create("b-live", "basketball", "live"), markets: [market("b-live", "match_winner", 1.7)] },
      ]);
    });

    afterAll(async () => {
      for (const client of clients) client.close();
      await suite.server?.stop();
    });

    tests(suite);
  });
}
