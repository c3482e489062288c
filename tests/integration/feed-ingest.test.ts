import { request } from "node:http";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, rowsOf, type DatabaseHandle } from "../../lib/db/index.ts";
import { handleFeedUpdates } from "../../lib/feed/http.ts";
import type { LineResult } from "../../lib/feed/ingest.ts";
import { pruneFeedLines } from "../../lib/feed/ingest-store.ts";
import { seedReferenceData } from "../../seeds/index.ts";
import { BACKENDS, describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { organisationWithKeys } from "../../testing/organisations.ts";
import { startServer, type RunningServer } from "../../testing/processes.ts";

const TOKEN = "feed-token-for-tests-0123456789";
const at = new Date("2026-11-21T15:00:00Z");

type IngestAnswer = {
  status: number;
  body: { data?: { applied: number; duplicate: number; rejected: number; results: LineResult[] }; code?: string };
};

const ndjson = (...lines: unknown[]) =>
  lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line))).join("\n");

const creation = (id: string, sequence = 1) => ({
  event_id: id,
  sequence,
  event: {
    sport: "soccer",
    competition: "Provider Cup",
    home: "Harbour Town",
    away: "River City",
    status: "upcoming",
    feed: "official",
    kickoff: "2026-11-21T18:00:00Z",
  },
});

const market = (id: string, price: number) => ({
  id,
  type: "match_winner",
  name: "Match result",
  line: null,
  status: "open",
  outcomes: [
    { id: `${id}-h`, name: "Harbour Town", price, status: "active" },
    { id: `${id}-d`, name: "Draw", price: 3.4, status: "active" },
    { id: `${id}-a`, name: "River City", price: 4.1, status: "active" },
  ],
});

describeEachBackend("the ingest on $name", (backend) => {
  const database = useTestDatabase(backend);
  let handle: DatabaseHandle;

  beforeAll(async () => {
    handle = await openDatabase(database().config);
    await seedReferenceData(handle.db);
  });
  afterAll(() => handle?.close());

  const post = async (body: string, headers: Record<string, string> = {}): Promise<IngestAnswer> => {
    const response = await handleFeedUpdates(
      new Request("http://local/api/feed/v1/updates", {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/x-ndjson", ...headers },
        body,
      }),
      { db: handle.db, token: TOKEN, now: () => at },
    );
    return { status: response.status, body: await response.json() };
  };

  /** Everything stored about an event: its row and every revision. */
  const stored = async (id: string) => {
    const row = rowsOf(await handle.db.execute(sql`select * from events where id = ${id}`));
    const revisions = rowsOf(
      await handle.db.execute(
        sql`select revision, kind, state from event_revisions where event_id = ${id} order by revision`,
      ),
    );
    return JSON.stringify({ row, revisions });
  };

  it("creates an event from a full update and stores its state as a revision", async () => {
    const answer = await post(ndjson(creation("ing-1")));
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ applied: 1, rejected: 0, duplicate: 0 });
    expect(answer.body.data!.results[0]).toMatchObject({ line: 1, event_id: "ing-1", sequence: 1, status: "applied" });
    const [revision] = rowsOf<{ state: Record<string, unknown> }>(
      await handle.db.execute(sql`select state from event_revisions where event_id = 'ing-1' and kind = 'event'`),
    );
    expect(revision!.state).toMatchObject({
      id: "ing-1",
      sport: "soccer",
      competition: "Provider Cup",
      home: "Harbour Town",
      away: "River City",
      status: "upcoming",
      feed: "official",
      kickoff: "2026-11-21T18:00:00.000Z",
      score: { home: 0, away: 0 },
      updated_at: at.toISOString(),
    });
  });

  it("applies partial updates in sequence, markets and lineups included", async () => {
    const answer = await post(
      ndjson(
        { event_id: "ing-1", sequence: 2, event: { status: "live", clock: "00:01", period: "1st half" } },
        {
          event_id: "ing-1",
          sequence: 3,
          event: { score: { home: 1, away: 0 }, clock: "12:30" },
          markets: [market("ing-1-mw", 1.8)],
        },
        {
          event_id: "ing-1",
          sequence: 4,
          lineups: {
            home: [{ number: 1, name: "A Keeper", position: "GK" }],
            away: [{ number: 9, name: "B Striker", position: "ST" }],
          },
        },
      ),
    );
    expect(answer.body.data).toMatchObject({ applied: 3, rejected: 0 });
    const revisions = answer.body.data!.results.map((r) => r.revision!);
    expect(revisions[1]).toBeGreaterThan(revisions[0]!);
    expect(revisions[2]).toBeGreaterThan(revisions[1]!);
    const [row] = rowsOf<{
      status: string;
      score_home: number;
      feed_sequence: number;
      markets: unknown[];
      lineups: unknown;
    }>(
      await handle.db.execute(
        sql`select status, score_home, feed_sequence::int as feed_sequence, markets, lineups from events where id = 'ing-1'`,
      ),
    );
    expect(row).toMatchObject({ status: "live", score_home: 1, feed_sequence: 4 });
    expect(row!.markets).toHaveLength(1);
    expect(row!.lineups).toMatchObject({ home: [{ name: "A Keeper" }] });
  });

  it("rejects each bad line with its reason and leaves the stored state exactly as it was", async () => {
    const before = await stored("ing-1");
    const answer = await post(
      ndjson(
        "{not json",
        { event_id: "ing-missing", sequence: 1, event: { status: "live" } },
        { event_id: "ing-1", sequence: 5, event: { score: { home: "two", away: 0 } } },
        { event_id: "ing-1", sequence: 2, event: { status: "finished" } },
        { event_id: "ing-1", sequence: 6, event: { status: "upcoming" } },
        { event_id: "ing-1", sequence: 7, event: { sport: "tennis" } },
        { event_id: "ing-1", sequence: 8, markets: [{ ...market("ing-1-bad", 1.5), type: "set_winner" }] },
        { event_id: "ing-1", sequence: 9, markets: [market("ing-1-px", 0.95)] },
        { event_id: "ing-1", sequence: 10, event: { status: "live" }, surprise: true },
        { event_id: "ing-1", sequence: 11 },
      ),
    );
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ applied: 0, duplicate: 0, rejected: 10 });
    expect(answer.body.data!.results.map((r) => r.code)).toEqual([
      "invalid_json",
      "unknown_event",
      "invalid_update",
      "stale_sequence",
      "invalid_transition",
      "sport_mismatch",
      "market_type_not_offered",
      "invalid_update",
      "invalid_update",
      "invalid_update",
    ]);
    const results = answer.body.data!.results;
    expect(results[2]!.errors).toEqual([expect.objectContaining({ path: "event.score.home" })]);
    expect(results[7]!.message).toMatch(/price/);
    expect(results[8]!.message).toMatch(/surprise/);
    expect(await stored("ing-1")).toBe(before);
    expect(await stored("ing-missing")).toBe(JSON.stringify({ row: [], revisions: [] }));
  });

  it("applies a batch's good lines and rejects its bad ones in the same transaction", async () => {
    const answer = await post(
      ndjson(
        { event_id: "ing-1", sequence: 12, event: { clock: "20:00" } },
        { event_id: "ing-1", sequence: 11, event: { clock: "19:00" } },
        creation("ing-2"),
      ),
    );
    expect(answer.body.data!.results.map((r) => r.status)).toEqual(["applied", "rejected", "applied"]);
    const clocks = rowsOf<{ clock: string }>(await handle.db.execute(sql`select clock from events where id = 'ing-1'`));
    expect(clocks[0]!.clock).toBe("20:00");
  });

  it("answers a resent batch's lines as duplicates, each with its revision, and applies nothing again", async () => {
    const batch = ndjson(
      { event_id: "ing-2", sequence: 2, event: { status: "live" } },
      { event_id: "ing-2", sequence: 3, event: { score: { home: 0, away: 1 } } },
    );
    const first = await post(batch);
    expect(first.body.data).toMatchObject({ applied: 2, duplicate: 0, rejected: 0 });
    const after = await stored("ing-2");
    // A provider that timed out sends the same batch again, its JSON spaced and ordered its own way.
    const resent = (
      await post(
        [
          '{"sequence": 2, "event": {"status": "live"}, "event_id": "ing-2"}',
          '{ "event_id": "ing-2", "event": { "score": { "away": 1, "home": 0 } }, "sequence": 3 }',
        ].join("\n"),
      )
    ).body.data!;
    expect(resent).toMatchObject({ applied: 0, duplicate: 2, rejected: 0 });
    expect(resent.results.map((r) => [r.status, r.revision])).toEqual(
      first.body.data!.results.map((r) => ["duplicate", r.revision]),
    );
    expect(await stored("ing-2")).toBe(after);

    // The same sequences with other content were not applied: refused, not taken for a resend.
    const changed = (
      await post(
        ndjson(
          { event_id: "ing-2", sequence: 2, event: { status: "suspended" } },
          { event_id: "ing-2", sequence: 3, event: { score: { home: 1, away: 1 } } },
        ),
      )
    ).body.data!;
    expect(changed).toMatchObject({ applied: 0, duplicate: 0, rejected: 2 });
    expect(changed.results.map((r) => r.code)).toEqual(["stale_sequence", "stale_sequence"]);
    expect(changed.results[0]!.message).toBe(
      "Event ing-2 applied sequence 2 already, with other content; this line was not applied",
    );
    expect(await stored("ing-2")).toBe(after);
  });

  it("remembers applied updates for the retention window, and each event's newest for good", async () => {
    const resend = async () =>
      (
        await post(
          ndjson(
            { event_id: "ing-2", sequence: 2, event: { status: "live" } },
            { event_id: "ing-2", sequence: 3, event: { score: { home: 0, away: 1 } } },
          ),
        )
      ).body.data!.results.map((r) => r.status);
    expect(await pruneFeedLines(handle.db, at)).toBe(0);
    expect(await resend()).toEqual(["duplicate", "duplicate"]);
    // Past the window, only the newest is recognised; the older line is refused as stale.
    expect(await pruneFeedLines(handle.db, new Date(at.getTime() + 1))).toBeGreaterThan(0);
    expect(await resend()).toEqual(["rejected", "duplicate"]);
  });

  it("answers the whole request's problems in the contract's format", async () => {
    const wrongToken = await post(ndjson(creation("ing-3")), { authorization: "Bearer not-the-token" });
    expect(wrongToken.status).toBe(401);
    expect(wrongToken.body.code).toBe("invalid_feed_token");
    const noToken = await post(ndjson(creation("ing-3")), { authorization: "" });
    expect(noToken.body.code).toBe("missing_feed_token");
    const json = await post(ndjson(creation("ing-3")), { "content-type": "application/json" });
    expect([json.status, json.body.code]).toEqual([415, "unsupported_media_type"]);
    const empty = await post("\n\n");
    expect([empty.status, empty.body.code]).toEqual([400, "empty_batch"]);
    expect(await stored("ing-3")).toBe(JSON.stringify({ row: [], revisions: [] }));
  });
});

describeEachBackend("POST /api/feed/v1/updates on the running server on $name", (backend) => {
  const database = useTestDatabase(backend);
  let server: RunningServer;
  let key: string;
  beforeAll(async () => {
    const env = database().env;
    key = (await organisationWithKeys(env, "ingest-org", { plan: "pro", sandboxSport: "soccer" })).production.key;
    server = await startServer({ ...env, FEED_TOKEN: TOKEN });
  });
  afterAll(() => server?.stop());

  const post = (body: string, token = TOKEN) =>
    fetch(`${server.url}/api/feed/v1/updates`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/x-ndjson" },
      body,
    });

  it("applies a batch sent over HTTP and answers line by line", async () => {
    const response = await post(
      ndjson(creation("http-1"), { event_id: "http-1", sequence: 2, event: { status: "live" } }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
    const body = (await response.json()) as IngestAnswer["body"];
    expect(body.data).toMatchObject({ applied: 2, rejected: 0 });
  });

  it("answers a batch once this instance serves it, so a read right after finds it", async () => {
    for (let i = 0; i < 20; i++) {
      const id = `http-seen-${i}`;
      expect((await post(ndjson(creation(id)))).status).toBe(200);
      const read = await fetch(`${server.url}/api/v1/events/${id}`, { headers: { authorization: `Bearer ${key}` } });
      expect(read.status, `event ${id} read right after its batch`).toBe(200);
    }
  });

  it("refuses a wrong token with 401 problem details", async () => {
    const response = await post(ndjson(creation("http-2")), "wrong-token-wrong-token");
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await response.json()).toMatchObject({ status: 401, code: "invalid_feed_token" });
  });

  it("refuses a chunked body as soon as it passes 10 MB, without reading the rest", async () => {
    const url = new URL(`${server.url}/api/feed/v1/updates`);
    const line = Buffer.from(`${JSON.stringify(creation("big"))}\n`.padStart(1024, " "));
    const megabyte = Buffer.concat(Array.from({ length: 1024 }, () => line));
    const offered = 40; // MB, sent a megabyte at a time for as long as the server reads
    const { status, body, sent } = await new Promise<{ status: number; body: string; sent: number }>(
      (resolve, reject) => {
        let sent = 0;
        let answered = false;
        const req = request(url, {
          method: "POST",
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/x-ndjson" },
        });
        req.on("response", (res) => {
          answered = true;
          let body = "";
          res.on("data", (chunk: Buffer) => (body += chunk.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body, sent }));
        });
        req.on("error", (error) => (answered ? undefined : reject(error)));
        const send = () => {
          if (answered || sent >= offered) return void req.end();
          sent++;
          if (req.write(megabyte)) setTimeout(send, 20);
          else req.once("drain", () => setTimeout(send, 20));
        };
        send();
      },
    );
    expect(status).toBe(413);
    expect(JSON.parse(body)).toMatchObject({ status: 413, code: "batch_too_large" });
    // Answered while the client was still sending: the server did not wait for the whole body.
    expect(sent).toBeLessThan(offered);
  });
});

describe("the ingest without FEED_TOKEN", () => {
  const database = useTestDatabase(BACKENDS[0]!);
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(database().env);
  });
  afterAll(() => server?.stop());

  it("is disabled", async () => {
    const response = await fetch(`${server.url}/api/feed/v1/updates`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/x-ndjson" },
      body: ndjson(creation("off-1")),
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ code: "ingest_disabled" });
  });
});
