import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MEMBER_LIMITS } from "../../lib/api/members.ts";
import { SEED } from "../../lib/audit.ts";
import { sql } from "drizzle-orm";
import { openDatabase, rowsOf } from "../../lib/db/index.ts";
import { createOrganisation } from "../../lib/organisations.ts";
import { addMember } from "../../lib/users.ts";
import { seed } from "../../seeds/index.ts";
import { archiveEverything, forgetHistory } from "../../testing/history.ts";
import { apiClient, expectDocumented } from "../../testing/api.ts";
import { signIn, signOut } from "../../testing/console.ts";
import { describeEachBackend, POSTGRES, useTestDatabase } from "../../testing/databases.ts";
import { FEED_TOKEN, ingest } from "../../testing/feed.ts";
import { organisationWithKeys } from "../../testing/organisations.ts";
import { admin, startServer, type RunningServer } from "../../testing/processes.ts";
import { idsOf, openSse, strictlyIncreasing, type Received, type SseClient } from "../../testing/sse.ts";
import { boardStates, eventStates, type BoardItem, type StreamedMarket } from "../../testing/stream-states.ts";
import { tcpProxy } from "../../testing/tcp-proxy.ts";

// The two streams over HTTP with a real SSE parser (eventsource-parser): snapshot then changes,
// resume by header and by query parameter, resyncs with their reasons, heartbeats, the end of an
// event, the board's filters and conflation, the sandbox's delay, limits, revocation, shutdown,
// two instances, and a console member's session. Every message is checked against its schema.
// The one cursor and the past: `/changes` is what the board stream sent, and `as_of` (and a
// market's history) is what a client of the streams held at that revision.

const DELAY_SECONDS = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const kickoff = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

let sequence = 10;
const next = () => ++sequence;

const create = (id: string, sport: string, status: string) => ({
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

const market = (eventId: string, type: string, price: number, status = "open") => ({
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

const score = (id: string, home: number, away = 0) => ({
  event_id: id,
  sequence: next(),
  event: { score: { home, away }, clock: `${10 + home}:00` },
});
const lineups = (names: string[]) => ({
  home: names.map((name, i) => ({ number: i + 1, name, position: "MF" })),
  away: [{ number: 1, name: "Keeper", position: "GK" }],
});
const prices = (id: string, type: string, price: number) => ({
  event_id: id,
  sequence: next(),
  markets: [market(id, type, price)],
});

describeEachBackend("streams on $name", (backend) => {
  const database = useTestDatabase(backend);
  let server: RunningServer;
  let keys: Awaited<ReturnType<typeof organisationWithKeys>>;
  // Keys of their own for the tests that send many requests, so the others' per-second limits hold.
  let quietKeys: typeof keys;
  // The history tests' own: many requests a second, and a sandbox key that only they pace.
  let historyKeys: typeof keys;
  let historyCall: ReturnType<typeof apiClient>;
  let historySandboxCall: ReturnType<typeof apiClient>;
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
  const production = () => bearer(keys.production.key);
  const sandbox = () => bearer(keys.sandbox.key);
  const clients: SseClient[] = [];
  const open = async (path: string, headers: Record<string, string>, paused = false) => {
    const client = await openSse(`${server.url}${path}`, { headers, paused });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    const env = database().env;
    keys = await organisationWithKeys(env, "stream-org", { plan: "starter", sandboxSport: "soccer" });
    quietKeys = await organisationWithKeys(env, "token-org", { plan: "pro", sandboxSport: "soccer" });
    historyKeys = await organisationWithKeys(env, "history-org", { plan: "enterprise", sandboxSport: "soccer" });
    server = await startServer({
      ...env,
      FEED_TOKEN,
      SANDBOX_DELAY_SECONDS: String(DELAY_SECONDS),
      STREAM_PING_SECONDS: "1",
      STREAM_BUFFER_BYTES: "65536",
    });
    historyCall = apiClient(server.url, 150);
    historySandboxCall = apiClient(server.url, 2);
    await ingest(server.url, [
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
    await server?.stop();
  });

  it("starts with a snapshot, then sends each change with increasing ids and only the changed markets", async () => {
    const stream = await open("/api/v1/events/s-live/stream", production());
    expect(stream.status).toBe(200);
    expect(stream.headers["content-type"]).toMatch(/^text\/event-stream/);
    expect(stream.headers["x-request-id"]).toMatch(/^req_/);
    expect(stream.headers["ratelimit"]).toBeDefined();
    const snapshot = await stream.waitFor((m) => m.event === "snapshot");
    expect(snapshot.data).toMatchObject({ sandbox: false, delay_seconds: 0, event: { id: "s-live", status: "live" } });
    expect((snapshot.data.markets as unknown[]).length).toBe(2);
    expect(stream.retries[0]).toBeGreaterThan(0);

    await ingest(server.url, [score("s-live", 1), prices("s-live", "total", 2.05)]);
    const event = await stream.waitFor((m) => m.event === "event");
    expect(event.data.event).toMatchObject({ id: "s-live", score: { home: 1, away: 0 } });
    const markets = await stream.waitFor((m) => m.event === "markets");
    expect(markets.data.markets).toEqual([expect.objectContaining({ id: "s-live:total", type: "total" })]);
    expect(new Date(markets.data.as_of as string).getTime()).toBeLessThanOrEqual(markets.at);
    const ids = idsOf(stream.messages);
    expect(strictlyIncreasing(ids)).toBe(true);
    expect(ids[0]).toBe(snapshot.id);
    stream.close();
  });

  it("resumes after a disconnect with every change missed, in order, none repeated, by header and by query", async () => {
    const first = await open("/api/v1/events/s-live/stream", production());
    const snapshot = await first.waitFor((m) => m.event === "snapshot");
    first.close();
    await first.closed;
    await ingest(server.url, [score("s-live", 2), prices("s-live", "match_winner", 1.6), score("s-live", 3)]);

    // Each resume starts from the same snapshot, so it also replays what the previous one saw live.
    const missed = ["event", "markets", "event"];
    let home = 3;
    for (const resume of [
      () => open("/api/v1/events/s-live/stream", { ...production(), "last-event-id": String(snapshot.id) }),
      () => open(`/api/v1/events/s-live/stream?last_event_id=${snapshot.id}`, production()),
    ]) {
      const stream = await resume();
      const scored = (goals: number) => (m: Received) =>
        m.event === "event" && (m.data.event as { score: { home: number } }).score.home === goals;
      await stream.waitFor(scored(home));
      expect(stream.messages.map((m) => m.event)).toEqual(missed);
      expect(stream.messages.every((m) => m.id! > snapshot.id!)).toBe(true);
      expect(strictlyIncreasing(idsOf(stream.messages))).toBe(true);
      // and then it carries on live
      await ingest(server.url, [score("s-live", ++home)]);
      missed.push("event");
      await stream.waitFor(scored(home));
      expect(stream.messages.map((m) => m.event)).toEqual(missed);
      stream.close();
    }
  });

  it("answers an id it cannot place with a snapshot that says resync and why", async () => {
    for (const id of ["not-a-number", "999999999"]) {
      const stream = await open("/api/v1/events/s-live/stream", { ...production(), "last-event-id": id });
      const snapshot = await stream.waitFor((m) => m.event === "snapshot", 8_000);
      expect(snapshot.data).toMatchObject({ resync: true, reason: "unknown_id" });
      stream.close();
    }
  });

  it("sends a ping comment at least every ping interval", async () => {
    const stream = await open("/api/v1/events/s-next/stream", production());
    await stream.waitFor((m) => m.event === "snapshot");
    await sleep(2_600);
    expect(stream.comments.filter((c) => c === "ping").length).toBeGreaterThanOrEqual(2);
    stream.close();
  });

  it("follows the board with sport and type filters", async () => {
    const board = await open("/api/v1/odds/stream?sport=soccer&type=total", production());
    const snapshot = await board.waitFor((m) => m.event === "snapshot");
    const events = snapshot.data.events as { id: string; markets: { type: string }[] }[];
    expect(events.map((e) => e.id)).toEqual(["s-live"]);
    expect(events[0]!.markets.map((m) => m.type)).toEqual(["total"]);
    await ingest(server.url, [
      prices("t-live", "match_winner", 1.45), // another sport
      prices("s-live", "match_winner", 1.55), // another type
      prices("s-live", "total", 2.1),
    ]);
    const markets = await board.waitFor((m) => m.event === "markets");
    expect(markets.data).toMatchObject({ event_id: "s-live", markets: [{ id: "s-live:total" }] });
    // An event coming into play arrives with all its markets (of the type); one leaving says so.
    await ingest(server.url, [
      { event_id: "s-next", sequence: next(), markets: [market("s-next", "total", 1.7)] },
      { event_id: "s-next", sequence: next(), event: { status: "live" } },
    ]);
    const entry = await board.waitFor((m) => m.event === "event" && (m.data.event as { id: string }).id === "s-next");
    expect(entry.data.markets).toEqual([expect.objectContaining({ id: "s-next:total" })]);
    await sleep(300);
    expect(board.messages.filter((m) => m.event === "markets").length).toBe(1);
    expect(strictlyIncreasing(idsOf(board.messages))).toBe(true);

    const refused = await open("/api/v1/odds/stream?sport=ice-hockey", production());
    expect(refused.status).toBe(403);
    expect(refused.problem).toMatchObject({ code: "sport_not_covered" });
    const typo = await open("/api/v1/odds/stream?type=winner", production());
    expect(typo.status).toBe(400);
    board.close();
  });

  it("gives board clients that open at one revision one snapshot, and a newer one after a change", async () => {
    const isSnapshot = (m: { event: string }) => m.event === "snapshot";
    const first = await open("/api/v1/odds/stream?sport=basketball", production());
    const second = await open("/api/v1/odds/stream?sport=basketball", production());
    const [a, b] = [await first.waitFor(isSnapshot), await second.waitFor(isSnapshot)];
    expect(b.id).toBe(a.id);
    expect(b.data).toEqual(a.data);
    await ingest(server.url, [prices("b-live", "match_winner", 1.65)]);
    await first.waitFor((m) => m.event === "markets");
    const third = await open("/api/v1/odds/stream?sport=basketball", production());
    const c = await third.waitFor(isSnapshot);
    expect(Number(c.id)).toBeGreaterThan(Number(a.id));
    const events = c.data.events as { id: string; markets: { outcomes: { price: number }[] }[] }[];
    expect(events.find((e) => e.id === "b-live")!.markets[0]!.outcomes[0]!.price).toBe(1.65);
    for (const client of [first, second, third]) client.close();
  });

  it("sends a slow board client the latest state, marked conflated, never the backlog", async () => {
    const slow = await open("/api/v1/odds/stream?sport=basketball", production(), true);
    const fast = await open("/api/v1/odds/stream?sport=basketball", production());
    await fast.waitFor((m) => m.event === "snapshot");
    // Far more than the connection's buffer (64 KB here) and the kernel's socket buffers.
    const wide = Array.from({ length: 30 }, (_, i) => ({
      ...market("b-live", "match_winner", 1.7),
      id: `b-live:mw-${i}`,
      name: `Winner ${i} ${"x".repeat(100)}`,
    }));
    let last = 0;
    for (let round = 0; round < 50; round++) {
      const batch = Array.from({ length: 40 }, (_, i) => ({
        event_id: "b-live",
        sequence: next(),
        markets: wide.map((m) => ({
          ...m,
          outcomes: m.outcomes.map((o) => ({ ...o, price: 1.5 + ((round * 40 + i) % 300) / 1000 })),
        })),
      }));
      last = await ingest(server.url, batch);
    }
    await fast.waitFor((m) => m.id === last, 20_000);
    slow.resume();
    const conflated = await slow.waitFor((m) => m.data.conflated === true, 20_000);
    expect(conflated.event).toMatch(/^(event|markets)$/);
    await slow.waitFor((m) => m.id === last, 20_000);
    expect(strictlyIncreasing(idsOf(slow.messages))).toBe(true);
    // Fewer messages than the fast client: the backlog was not sent.
    expect(slow.messages.length).toBeLessThan(fast.messages.length);
    const finalPrice = (client: SseClient) =>
      [...client.messages]
        .reverse()
        .flatMap((m) => (m.data.markets as { id: string; outcomes: { price: number }[] }[] | undefined) ?? [])
        .find((m) => m.id === "b-live:mw-29")?.outcomes[0]?.price;
    expect(finalPrice(slow)).toBe(finalPrice(fast));
    slow.close();
    fast.close();
  });

  it("gives sandbox keys every message the delay after the change, never earlier, and refuses other sports", async () => {
    const stream = await open("/api/v1/events/s-live/stream", sandbox());
    const snapshot = await stream.waitFor((m) => m.event === "snapshot");
    expect(snapshot.data).toMatchObject({ sandbox: true, delay_seconds: DELAY_SECONDS });
    const changedAt = Date.now();
    await ingest(server.url, [score("s-live", 7)]);
    const change = await stream.waitFor(
      (m) => m.event === "event" && (m.data.event as { score: { home: number } }).score.home === 7,
      DELAY_SECONDS * 1000 + 5_000,
    );
    expect(change.at - changedAt).toBeGreaterThanOrEqual(DELAY_SECONDS * 1000);
    expect(change.at - new Date(change.data.as_of as string).getTime()).toBeGreaterThanOrEqual(DELAY_SECONDS * 1000);
    expect((change.data.event as { sandbox: boolean }).sandbox).toBe(true);
    stream.close();

    const other = await open("/api/v1/events/t-live/stream", sandbox());
    expect(other.status).toBe(403);
    expect(other.problem).toMatchObject({ code: "sport_not_covered" });
  });

  it("refuses streams over the key's concurrent limit, without counting them", async () => {
    // The sandbox allows 2 requests a second as well as 2 streams: each pair starts in a fresh second.
    await sleep(1_100);
    const first = await open("/api/v1/odds/stream", sandbox());
    const second = await open("/api/v1/odds/stream", sandbox());
    await first.waitFor((m) => m.event === "snapshot");
    await second.waitFor((m) => m.event === "snapshot");
    const third = await open("/api/v1/odds/stream", sandbox());
    expect(third.status).toBe(429);
    expect(third.problem).toMatchObject({ code: "rate_limited", "violated-policies": ["streams"] });
    expect(third.headers["retry-after"]).toBeDefined();
    first.close();
    second.close();
    await sleep(1_100);
    const again = await open("/api/v1/odds/stream", sandbox());
    expect(again.status).toBe(200);
    // The refused stream was not counted: the month's remaining went down by `again` alone.
    const monthLeft = (client: SseClient) => Number(/"month";r=(\d+)/.exec(String(client.headers["ratelimit"]))![1]);
    expect(monthLeft(second) - monthLeft(again)).toBe(1);
    again.close();
  });

  it("opens both streams with a browser stream token: no header, the key's count and view, its scope and nothing else", async () => {
    const call = apiClient(server.url);
    const mint = async (query: string, key = quietKeys.production.key) => {
      const answer = await call<{ data: { token: string; sport: string | null; event_id: string | null } }>(
        `/api/v1/stream-token?${query}`,
        { key },
      );
      expect(answer.status, query).toBe(200);
      expect(answer.headers.get("cache-control")).toBe("no-store");
      return answer.body.data;
    };
    const soccer = await mint("sport=soccer&ttl=120");
    expect(soccer).toMatchObject({ sport: "soccer", event_id: null, token: expect.stringMatching(/^svc_st_/) });
    const board = await open(`/api/v1/odds/stream?token=${soccer.token}`, { origin: "https://key-holder.example" });
    expect(board.status).toBe(200);
    expect(board.headers["access-control-allow-origin"]).toBe("*");
    const snapshot = await board.waitFor((m) => m.event === "snapshot");
    const sports = (snapshot.data.events as { sport: string }[]).map((e) => e.sport);
    expect(sports.length).toBeGreaterThan(0);
    expect(new Set(sports)).toEqual(new Set(["soccer"]));
    // Opening it counted one request against the key that minted the token.
    const monthLeft = (text: string | null) => Number(/"month";r=(\d+)/.exec(String(text))![1]);
    const after = await call("/api/v1/me", { key: quietKeys.production.key });
    expect(monthLeft(String(board.headers["ratelimit"])) - monthLeft(after.headers.get("ratelimit"))).toBe(1);
    board.close();

    const outside = await open(`/api/v1/odds/stream?sport=tennis&token=${soccer.token}`, {});
    expect(outside.status).toBe(403);
    expect(outside.problem).toMatchObject({ code: "sport_not_covered" });
    const rest = await call(`/api/v1/odds?token=${soccer.token}`);
    expect(rest.status).toBe(401);
    expect(rest.body).toMatchObject({ code: "invalid_api_key", detail: expect.stringMatching(/streams only/) });

    const oneEvent = await mint("event_id=s-live");
    expect(oneEvent).toMatchObject({ sport: "soccer", event_id: "s-live" });
    const followed = await open(`/api/v1/events/s-live/stream?token=${oneEvent.token}`, {});
    expect((await followed.waitFor((m) => m.event === "snapshot")).data).toMatchObject({ event: { id: "s-live" } });
    followed.close();
    for (const path of ["/api/v1/events/s-next/stream", "/api/v1/odds/stream"]) {
      const refused = await open(`${path}?token=${oneEvent.token}`, {});
      expect(refused.problem, path).toMatchObject({ code: "sport_not_covered" });
    }
    // A sandbox key's token sees what the key sees: the feed of the delay ago.
    const delayed = await open(`/api/v1/odds/stream?token=${(await mint("", quietKeys.sandbox.key)).token}`, {});
    expect((await delayed.waitFor((m) => m.event === "snapshot")).data).toMatchObject({
      sandbox: true,
      delay_seconds: DELAY_SECONDS,
    });
    delayed.close();
    for (const query of ["ttl=30", "sport=soccer&event_id=t-live"]) {
      const refused = await call(`/api/v1/stream-token?${query}`, { key: quietKeys.production.key });
      expect(refused.body, query).toMatchObject({ code: "invalid_parameter" });
    }
  });

  it("pages through what changed since a revision exactly as the board stream sent it, from any answer's meta.revision", async () => {
    const call = apiClient(server.url);
    const key = { key: quietKeys.production.key };
    type Changes = {
      data: { id: number; event: string; data: unknown }[];
      meta: { next_since: number; revision: number };
    };
    const board = await open("/api/v1/odds/stream", bearer(quietKeys.production.key));
    const snapshot = await board.waitFor((m) => m.event === "snapshot");
    await ingest(server.url, [
      { ...create("c-live", "soccer", "live"), markets: [market("c-live", "match_winner", 2.4)] },
      score("c-live", 1),
      prices("c-live", "total", 1.95),
      create("c-next", "basketball", "upcoming"),
      prices("t-live", "match_winner", 1.4),
      { event_id: "c-next", sequence: next(), event: { status: "live" } },
    ]);
    await board.waitFor((m) => m.event === "event" && (m.data.event as { id: string }).id === "c-next");
    const streamed = board.messages
      .filter((m) => m.id! > snapshot.id!)
      .map(({ id, event, data }) => ({ id: id!, event, data }));
    // c-live comes into play, then its markets, score and total; a tennis price; c-next comes into play.
    expect(streamed.map((m) => m.event)).toEqual(["event", "markets", "event", "markets", "markets", "event"]);

    const all = await call<Changes>(`/api/v1/changes?since=${snapshot.id}&limit=1000`, key);
    expect(all.body.data).toEqual(streamed);
    // A page at a time, each from the last one's next_since: the same, nothing missed or repeated.
    const paged: unknown[] = [];
    for (let since = snapshot.id!, pages = 0; pages < 20; pages++) {
      const page = await call<Changes>(`/api/v1/changes?since=${since}&limit=2`, key);
      paged.push(...page.body.data);
      if (page.body.data.length === 0) break;
      since = page.body.meta.next_since;
    }
    expect(paged).toEqual(streamed);
    // Every answer's meta.revision is where the changes go on from: here, nothing since.
    const odds = await call<{ meta: { revision: number } }>("/api/v1/odds", key);
    expect(odds.body.meta.revision).toBe(all.body.meta.next_since);
    expect(odds.body.meta.revision).toBeGreaterThanOrEqual(streamed.at(-1)!.id);
    const none = await call<Changes>(`/api/v1/changes?since=${odds.body.meta.revision}`, key);
    expect(none.body).toMatchObject({ data: [], meta: { next_since: odds.body.meta.revision } });
    const soccerOnly = await call<Changes>(`/api/v1/changes?since=${snapshot.id}&sport=soccer`, key);
    expect(soccerOnly.body.data).toEqual(streamed.slice(0, 4));
    const ahead = await call(`/api/v1/changes?since=${odds.body.meta.revision + 1000}`, key);
    expect(ahead.body).toMatchObject({ code: "invalid_parameter" });
    const me = await call<{ data: { history_seconds: number } }>("/api/v1/me", key);
    expect(me.body.data.history_seconds).toBe(24 * 3600);
    board.close();
  });

  // Filled by the first of the history tests, read by the others: a run of changes as the clients
  // of an event's stream and of the board stream held it after each revision.
  const past = {
    eventStream: null as SseClient | null,
    /** The first change's board message: its id and its moment (`as_of`). */
    firstChange: null as Received | null,
    /** The revision of the last change ingested. */
    last: 0,
  };

  it("answers as_of at every revision of a run of changes as the streams' clients held it then", async () => {
    const call = historyCall;
    const key = { key: historyKeys.production.key };
    const boardStream = await open("/api/v1/odds/stream", bearer(historyKeys.production.key));
    const sandboxStream = await open("/api/v1/odds/stream", bearer(historyKeys.sandbox.key));
    await ingest(server.url, [
      {
        ...create("h-live", "soccer", "live"),
        markets: [market("h-live", "match_winner", 1.8), market("h-live", "total", 1.9)],
        lineups: lineups(["Ada", "Bo"]),
      },
      create("h-next", "soccer", "upcoming"),
      { ...create("h-tennis", "tennis", "live"), markets: [market("h-tennis", "match_winner", 1.5)] },
    ]);
    // Once the board has h-tennis, the present holds h-live too: its stream can open.
    await boardStream.waitFor((m) => m.event === "markets" && m.data.event_id === "h-tennis");
    const eventStream = await open("/api/v1/events/h-live/stream", bearer(historyKeys.production.key));
    const snapshot = await eventStream.waitFor((m) => m.event === "snapshot");
    const changes = [
      score("h-live", 1),
      prices("h-live", "match_winner", 1.6),
      prices("h-live", "total", 2.05),
      { event_id: "h-live", sequence: next(), lineups: lineups(["Ada", "Cy"]) },
      {
        event_id: "h-next",
        sequence: next(),
        event: { status: "live" },
        markets: [market("h-next", "match_winner", 2.6)],
      },
      {
        event_id: "h-live",
        sequence: next(),
        event: { status: "suspended" },
        markets: [market("h-live", "match_winner", 1.6, "suspended"), market("h-live", "total", 2.05, "suspended")],
      },
      prices("h-tennis", "match_winner", 1.45),
      {
        event_id: "h-live",
        sequence: next(),
        event: { status: "live" },
        markets: [market("h-live", "match_winner", 1.4)],
      },
      { event_id: "h-tennis", sequence: next(), event: { status: "finished" } },
      score("h-live", 2),
    ];
    let last = 0;
    for (const change of changes) last = await ingest(server.url, [change]);
    await Promise.all([eventStream, boardStream].map((s) => s.waitFor((m) => m.id === last)));
    const events = eventStates(eventStream.messages);
    const board = boardStates(boardStream.messages);
    const changed = boardStream.messages.filter((m) => m.id! > snapshot.id!);
    // Every change but h-live's lineups reached the board; h-next came into play, h-tennis left it.
    expect(changed.map((m) => m.event)).toEqual([
      ...["event", "markets", "markets", "event", "markets", "event", "markets"],
      ...["markets", "event", "markets", "event", "event"],
    ]);
    Object.assign(past, { eventStream, firstChange: changed[0]!, last });

    const revisions = [...new Set([...events.ids, ...changed.map((m) => m.id!)])].sort((a, b) => a - b);
    for (const revision of revisions) {
      const odds = await call<{ data: BoardItem[]; meta: { revision: number } }>(`/api/v1/odds?as_of=${revision}`, key);
      expect(odds.body.meta.revision).toBe(revision);
      expect(odds.body.data, `odds at ${revision}`).toEqual(board.at(revision));
      const then = events.at(revision);
      const event = await call<{ data: unknown; meta: { revision: number } }>(
        `/api/v1/events/h-live?as_of=${revision}`,
        key,
      );
      expect(event.body.data, `h-live at ${revision}`).toEqual(then.event);
      expect(event.body.meta.revision).toBe(revision);
      const lineupsThen = await call(`/api/v1/events/h-live/lineups?as_of=${revision}`, key);
      expect(lineupsThen.body.data, `lineups at ${revision}`).toEqual(then.lineups);
      // The list holds live and upcoming events: h-live while it is not suspended.
      const soccer = await call<{ data: BoardItem[] }>(`/api/v1/events?sport=soccer&as_of=${revision}`, key);
      expect(soccer.body.data.find((e) => e.id === "h-live")).toEqual(
        then.event.status === "live" ? then.event : undefined,
      );
    }
    // Before h-next came into play it was upcoming; the list pages through that moment with the cursor.
    const cameLive = changed.find((m) => m.event === "event" && (m.data.event as BoardItem).id === "h-next")!.id!;
    const list = async (query: string) =>
      (await call<{ data: BoardItem[]; meta: { next_cursor: string | null } }>(`/api/v1/events?${query}`, key)).body;
    const before = await list(`as_of=${cameLive - 1}`);
    expect(before.data.filter((e) => e.id.startsWith("h-")).map((e) => [e.id, e.status])).toEqual([
      ["h-live", "live"],
      ["h-tennis", "live"],
      ["h-next", "upcoming"],
    ]);
    const paged: BoardItem[] = [];
    for (let cursor: string | null = "", pages = 0; cursor !== null && pages < 20; pages++) {
      const page = await list(`limit=2&as_of=${cameLive - 1}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      paged.push(...page.data);
      cursor = page.meta.next_cursor;
    }
    expect(paged).toEqual(before.data);
    // A time is the newest revision recorded at or before it: each change's own moment shows it, and
    // a millisecond earlier shows what was before it.
    for (const message of changed) {
      const moment = new Date(message.data.as_of as string);
      const odds = (asOf: Date) =>
        call<{ data: BoardItem[]; meta: { revision: number } }>(`/api/v1/odds?as_of=${asOf.toISOString()}`, key);
      const then = await odds(moment);
      expect(then.body.meta.revision).toBeGreaterThanOrEqual(message.id!);
      expect(then.body.data).toEqual(board.at(then.body.meta.revision));
      const earlier = await odds(new Date(moment.getTime() - 1));
      expect(earlier.body.meta.revision).toBeLessThan(message.id!);
      expect(earlier.body.data).toEqual(board.at(earlier.body.meta.revision));
    }

    // The sandbox key's board, a delay behind, is the same at every revision its view has reached.
    await sandboxStream.waitFor((m) => m.id === last);
    const sandboxBoard = boardStates(sandboxStream.messages);
    for (const revision of [sandboxBoard.ids[0]!, cameLive, last]) {
      const odds = await historySandboxCall<{ data: BoardItem[]; meta: Record<string, unknown> }>(
        `/api/v1/odds?as_of=${revision}`,
        { key: historyKeys.sandbox.key },
      );
      expect(odds.body.data, `the sandbox's odds at ${revision}`).toEqual(sandboxBoard.at(revision));
      expect(odds.body.meta).toMatchObject({ revision, sandbox: true, delay_seconds: DELAY_SECONDS });
      expect(odds.body.data.every((item) => item.sandbox === true)).toBe(true);
    }
    boardStream.close();
    sandboxStream.close();
  });

  it("refuses a moment later than the key sees: the future, or what a sandbox key's delay holds back", async () => {
    const call = historyCall;
    const key = { key: historyKeys.production.key };
    const { revision: now } = (await call<{ meta: { revision: number } }>("/api/v1/odds", key)).body.meta;
    const inAMinute = new Date(Date.now() + 60_000).toISOString();
    for (const path of [
      `/api/v1/odds?as_of=${inAMinute}`,
      `/api/v1/events?as_of=${now + 1_000}`,
      `/api/v1/events/h-live?as_of=${inAMinute}`,
      `/api/v1/events/h-live/lineups?as_of=${now + 1}`,
      `/api/v1/events/h-live/markets/h-live:total/history?from=${inAMinute}`,
    ]) {
      const refused = await call(path, key);
      expect([refused.status, refused.body], path).toMatchObject([400, { code: "invalid_parameter" }]);
    }
    const malformed = await call("/api/v1/odds?as_of=2026-11-21T15:41:07%2B01:00", key);
    expect(malformed.body).toMatchObject({ code: "invalid_parameter", errors: [{ param: "as_of" }] });

    // A change the sandbox's view has not reached yet: refused at its revision and at this moment,
    // and not in the market's history, where the production key sees it at once.
    const sandboxCall = historySandboxCall;
    const sandbox = { key: historyKeys.sandbox.key };
    const revision = await ingest(server.url, [prices("h-live", "total", 2.4)]);
    past.last = revision;
    for (const asOf of [String(revision), new Date().toISOString()]) {
      const refused = await sandboxCall(`/api/v1/odds?as_of=${asOf}`, sandbox);
      expect([refused.status, refused.body], asOf).toMatchObject([
        400,
        {
          code: "invalid_parameter",
          detail: expect.stringMatching(/^A sandbox key sees the feed as it was 3 seconds ago/),
        },
      ]);
    }
    type History = { data: { points: { revision: number }[] }; meta: { revision: number } };
    const path = "/api/v1/events/h-live/markets/h-live:total/history";
    const delayed = await sandboxCall<History>(path, sandbox);
    expect(delayed.body.data.points.at(-1)!.revision).toBeLessThan(revision);
    expect(delayed.body.meta.revision).toBeLessThan(revision);
    expect((await call<History>(path, key)).body.data.points.at(-1)!.revision).toBe(revision);
  });

  it("gives a market's history as every change of it the event's stream carried, from any moment", async () => {
    const call = historyCall;
    const key = { key: historyKeys.production.key };
    type Point = { at: string; revision: number; status: string; line: number | null; outcomes: unknown[] };
    type History = { data: { event_id: string; market_id: string; points: Point[] } };
    const stream = past.eventStream!;
    await stream.waitFor((m) => m.id === past.last);
    const snapshot = stream.messages[0]!;
    const pointOf = (at: string, revision: number, m: StreamedMarket): Point => ({
      at,
      revision,
      status: m.status,
      line: m.line,
      outcomes: m.outcomes.map(({ id, price, status }) => ({ id, price, status })),
    });
    for (const id of ["h-live:match_winner", "h-live:total"]) {
      const carried = stream.messages
        .filter((m) => m.event === "markets")
        .flatMap((m) =>
          (m.data.markets as StreamedMarket[])
            .filter((c) => c.id === id)
            .map((c) => pointOf(m.data.as_of as string, m.id!, c)),
        );
      expect(carried.length).toBeGreaterThanOrEqual(3);
      const all = await call<History>(`/api/v1/events/h-live/markets/${id}/history`, key);
      expect(all.body.data).toMatchObject({ event_id: "h-live", market_id: id });
      // From its creation: the state the stream's snapshot showed, then exactly what the stream carried.
      const points = all.body.data.points;
      const shown = points.filter((p) => p.revision <= snapshot.id!).at(-1)!;
      const atSnapshot = (snapshot.data.markets as StreamedMarket[]).find((m) => m.id === id)!;
      expect(shown).toEqual(pointOf(shown.at, shown.revision, atSnapshot));
      expect(points.filter((p) => p.revision > snapshot.id!)).toEqual(carried);
      // From just after its first change carried, through its second: that state at `from`, then the second.
      const [first, second] = carried as [Point, Point];
      const from = new Date(Date.parse(first.at) + 1).toISOString();
      const window = await call<History>(
        `/api/v1/events/h-live/markets/${id}/history?from=${from}&to=${second.at}`,
        key,
      );
      expect(window.body.data.points).toEqual([{ ...first, at: from }, second]);
    }

    for (const [path, status, code] of [
      ["/api/v1/events/h-live/markets/h-live:next_goal/history", 404, "not_found"],
      ["/api/v1/events/h-none/markets/h-none:total/history", 404, "not_found"],
      ["/api/v1/events/h-live/markets/h-live:total/history?from=2026-11-21T15:41:07Z", 410, "retention_exceeded"],
      ["/api/v1/events/h-live/markets/h-live:total/history?to=2026-11-21T15:41:07Z", 410, "retention_exceeded"],
    ] as const) {
      const refused = await call(path, key);
      expect([refused.status, refused.body], path).toMatchObject([status, { code }]);
    }
    // A key of soccer only: the first organisation's sandbox key, whose per-second limit these tests leave alone.
    const tennis = await apiClient(server.url)("/api/v1/events/h-tennis/markets/h-tennis:match_winner/history", {
      key: keys.sandbox.key,
    });
    expect([tennis.status, tennis.body]).toMatchObject([403, { code: "sport_not_covered" }]);
  });

  it("ends an event's stream with end once the event is over", async () => {
    const stream = await open("/api/v1/events/t-live/stream", production());
    const snapshot = await stream.waitFor((m) => m.event === "snapshot");
    await ingest(server.url, [
      {
        event_id: "t-live",
        sequence: next(),
        event: { status: "finished" },
        markets: [market("t-live", "match_winner", 1.5, "settled")],
      },
    ]);
    const end = await stream.waitFor((m) => m.event === "end");
    expect(end.data).toMatchObject({ event_id: "t-live", status: "finished" });
    // An EventSource reconnects when the stream closes: not for an hour, and then it is told 204.
    expect(stream.retries.at(-1)).toBeGreaterThanOrEqual(3_600_000);
    const settled = stream.messages.find((m) => m.event === "markets")!;
    expect(settled.data.markets).toEqual([expect.objectContaining({ status: "settled" })]);
    await stream.closed;
    // A stream opened on an event that is over: 204, nothing to follow.
    const late = await open("/api/v1/events/t-live/stream", production());
    expect(late.status).toBe(204);
    await late.closed;
    expect(late.messages).toEqual([]);
    // A client that dropped before the end resumes into what it missed, then end: never a silent gap.
    const resumed = await open("/api/v1/events/t-live/stream", {
      ...production(),
      "last-event-id": String(snapshot.id),
    });
    expect(resumed.status).toBe(200);
    await resumed.closed;
    // `end` carries no id: it closes what the client missed.
    const missed = stream.messages.filter((m) => (m.id === undefined ? m.event === "end" : m.id > snapshot.id!));
    expect(resumed.messages.map((m) => m.event)).toEqual(missed.map((m) => m.event));
    expect(resumed.messages.at(-1)).toMatchObject({ event: "end", data: { status: "finished" } });
    // Resuming from the end itself: nothing missed, 204.
    const caughtUp = await open("/api/v1/events/t-live/stream", {
      ...production(),
      "last-event-id": String(stream.lastId()),
    });
    expect(caughtUp.status).toBe(204);
  });

  it.skipIf(backend.name !== "postgres")(
    "answers the same from the archive once the recent table has let the revisions go: changes, as_of, history, resumption",
    async () => {
      const key = { key: historyKeys.production.key };
      const first = past.firstChange!;
      const paths = [
        `/api/v1/changes?since=${first.id! - 1}&limit=1000`,
        `/api/v1/odds?as_of=${first.id}`,
        `/api/v1/events?as_of=${first.data.as_of as string}`,
        `/api/v1/events/h-live?as_of=${past.last - 1}`,
        `/api/v1/events/h-live/lineups?as_of=${first.id}`,
        `/api/v1/events/h-live/markets/h-live:total/history`,
      ];
      const answers = async () => {
        const out: unknown[] = [];
        for (const path of paths) {
          const answer = await historyCall<{ data: unknown; meta: { revision?: number } }>(path, key);
          out.push([path, answer.status, answer.body.data, answer.body.meta.revision]);
        }
        return out;
      };
      const resumed = async () => {
        const stream = await open("/api/v1/events/h-live/stream", {
          ...bearer(historyKeys.production.key),
          "last-event-id": String(first.id! - 1),
        });
        await stream.waitFor((m) => m.id === past.last);
        stream.close();
        return stream.messages.map(({ id, event, data }) => ({ id, event, data }));
      };
      const before = await answers();
      const replayed = await resumed();
      const handle = await openDatabase(database().config);
      await archiveEverything(handle.db);
      const [held] = rowsOf<{ n: number }>(
        await handle.db.execute(sql`select count(*)::int as n from event_revisions where revision = ${first.id!}`),
      );
      await handle.close();
      // The recent table no longer holds the first change: what follows is read from the archive.
      expect(held!.n).toBe(0);
      expect(await answers()).toEqual(before);
      const again = await resumed();
      expect(again).toEqual(replayed);
      expect(again.filter((m) => m.id !== undefined && m.id >= first.id!).length).toBeGreaterThan(3);
    },
  );

  it.skipIf(backend.name !== "postgres")(
    "replays nothing older than the history kept: resync retention_exceeded",
    async () => {
      const stream = await open("/api/v1/events/s-live/stream", production());
      const snapshot = await stream.waitFor((m) => m.event === "snapshot");
      stream.close();
      await ingest(server.url, [score("s-live", 8), score("s-live", 9)]);
      const handle = await openDatabase(database().config);
      await forgetHistory(handle.db);
      await handle.close();
      const resumed = await open("/api/v1/events/s-live/stream", {
        ...production(),
        "last-event-id": String(snapshot.id),
      });
      const resync = await resumed.waitFor((m) => m.event === "snapshot");
      expect(resync.data).toMatchObject({ resync: true, reason: "retention_exceeded", event: { score: { home: 9 } } });
      resumed.close();
      const changes = await apiClient(server.url)(`/api/v1/changes?since=${snapshot.id}`, {
        key: keys.production.key,
      });
      expect(changes.status).toBe(410);
      expect(changes.body).toMatchObject({ code: "retention_exceeded" });
      // The past the history tests read is gone too: the state at h-live's first change, and its markets since.
      const first = past.firstChange!;
      const moment = first.data.as_of as string;
      for (const path of [
        `/api/v1/odds?as_of=${first.id! - 1}`,
        `/api/v1/events?as_of=${moment}`,
        `/api/v1/events/h-live?as_of=${first.id}`,
        `/api/v1/events/h-live/markets/h-live:total/history?from=${moment}`,
      ]) {
        const refused = await historyCall(path, { key: historyKeys.production.key });
        expect([refused.status, refused.body], path).toMatchObject([410, { code: "retention_exceeded" }]);
      }
      // The present is always kept.
      const now = await historyCall<{ meta: { revision: number } }>("/api/v1/odds", {
        key: historyKeys.production.key,
      });
      const present = await historyCall(`/api/v1/odds?as_of=${now.body.meta.revision}`, {
        key: historyKeys.production.key,
      });
      expect(present.status).toBe(200);
    },
  );

  it.skipIf(backend.name !== "postgres")(
    "ends the streams of a revoked key, and those opened with its tokens, saying why",
    async () => {
      const other = await organisationWithKeys(database().env, "revoked-org", {
        plan: "starter",
        sandboxSport: "soccer",
      });
      const stream = await open("/api/v1/odds/stream", bearer(other.production.key));
      const minted = await apiClient(server.url)<{ data: { token: string } }>("/api/v1/stream-token", {
        key: other.production.key,
      });
      const { token } = minted.body.data;
      const byToken = await open(`/api/v1/odds/stream?token=${token}`, {});
      await stream.waitFor((m) => m.event === "snapshot");
      await byToken.waitFor((m) => m.event === "snapshot");
      await admin(["key", "revoke", "--id", other.production.id], database().env);
      // A stream opened with a token is the key's: it ends with it.
      for (const ended of [stream, byToken]) {
        const error = await ended.waitFor((m) => m.event === "error", 10_000);
        expect(error.data).toMatchObject({ code: "key_revoked", status: 401 });
        await ended.closed;
      }
      const refused = await open(`/api/v1/odds/stream?token=${token}`, {});
      expect(refused.problem).toMatchObject({ code: "key_revoked" });
    },
  );
});

const PAIR_PASSWORD = "a password for the pair's member";

describe.skipIf(!POSTGRES)("streams on two instances sharing PostgreSQL", () => {
  const database = useTestDatabase(POSTGRES!);
  let one: RunningServer;
  let two: RunningServer;
  let key: string;

  beforeAll(async () => {
    const env = { ...database().env, FEED_TOKEN, AUTH_SECRET: "a-secret-both-instances-share-0123456789" };
    const org = await organisationWithKeys(env, "pair-org", { plan: "pro", sandboxSport: "soccer" });
    key = org.production.key;
    const handle = await openDatabase(database().config);
    const member = { orgId: org.orgId, email: "pair@pair-org.test", name: "Pair", role: "viewer" as const };
    await addMember(handle.db, { ...member, password: PAIR_PASSWORD }, SEED);
    await handle.close();
    [one, two] = await Promise.all([startServer(env), startServer(env)]);
    await ingest(one.url, [
      { ...create("p-live", "soccer", "live"), markets: [market("p-live", "match_winner", 1.8)] },
    ]);
  });

  afterAll(async () => {
    await one?.stop();
    await two?.stop();
  });

  it("holds a console member to SESSION_STREAMS streams across both instances", async () => {
    const cookie = (await signIn(one.url, "pair@pair-org.test", PAIR_PASSWORD)).session!;
    const opened: SseClient[] = [];
    try {
      // The default SESSION_STREAMS (4), all on one instance.
      for (let i = 0; i < 4; i++) {
        const stream = await openSse(`${one.url}/api/v1/odds/stream`, { headers: { cookie } });
        opened.push(stream);
        expect(stream.status).toBe(200);
      }
      // The other instance refuses a fifth once it has heard of them (a stream it opens meanwhile
      // is closed again at once).
      await expect
        .poll(
          async () => {
            const stream = await openSse(`${two.url}/api/v1/odds/stream`, { headers: { cookie } });
            stream.close();
            return stream.status === 429 ? stream.problem : stream.status;
          },
          { timeout: 10_000 },
        )
        .toMatchObject({ code: "rate_limited", "violated-policies": ["streams"] });
    } finally {
      for (const stream of opened) stream.close();
    }
  });

  it("ends a member's session stream on the other instance when they sign out on one", async () => {
    const cookie = (await signIn(one.url, "pair@pair-org.test", PAIR_PASSWORD)).session!;
    // The member's streams of the test before are given back on both instances first.
    let stream: SseClient | undefined;
    await expect
      .poll(
        async () => {
          stream = await openSse(`${two.url}/api/v1/odds/stream`, { headers: { cookie } });
          if (stream.status !== 200) stream.close();
          return stream.status;
        },
        { timeout: 10_000 },
      )
      .toBe(200);
    await stream!.waitFor((m) => m.event === "snapshot");
    await signOut(one.url, cookie);
    const error = await stream!.waitFor((m) => m.event === "error", 5_000);
    expect(error.data).toMatchObject({ code: "session_expired", status: 401 });
    await stream!.closed;
  });

  it("delivers a change ingested through one instance to a client of the other", async () => {
    const stream = await openSse(`${two.url}/api/v1/events/p-live/stream`, {
      headers: { authorization: `Bearer ${key}` },
    });
    await stream.waitFor((m) => m.event === "snapshot");
    await ingest(one.url, [score("p-live", 1)]);
    await stream.waitFor((m) => m.event === "event");
    stream.close();
  });

  it("on SIGTERM ends streams with a short retry, and the client resumes on the other instance missing nothing", async () => {
    const stream = await openSse(`${one.url}/api/v1/events/p-live/stream`, {
      headers: { authorization: `Bearer ${key}` },
    });
    await stream.waitFor((m) => m.event === "snapshot");
    await ingest(two.url, [score("p-live", 2)]);
    await stream.waitFor((m) => m.event === "event");
    const stopped = one.stop("SIGTERM");
    await stream.closed;
    expect(stream.retries.at(-1)).toBeLessThanOrEqual(1_000);
    await ingest(two.url, [score("p-live", 3), prices("p-live", "match_winner", 1.6), score("p-live", 4)]);
    const resumed = await openSse(`${two.url}/api/v1/events/p-live/stream`, {
      headers: { authorization: `Bearer ${key}`, "last-event-id": String(stream.lastId()) },
    });
    await resumed.waitFor((m) => m.event === "event" && (m.data.event as { score: { home: number } }).score.home === 4);
    const all: Received[] = [...stream.messages, ...resumed.messages];
    expect(resumed.messages.map((m) => m.event)).toEqual(["event", "markets", "event"]);
    expect(strictlyIncreasing(idsOf(all))).toBe(true);
    resumed.close();
    expect(await stopped).toBe(0);
  });

  it("says stale while the instance cannot reach the database, then clears it and sends what was missed", async () => {
    const url = new URL(database().env.DATABASE_URL!);
    const proxy = await tcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.hostname = "127.0.0.1";
    url.port = String(proxy.port);
    const cutOff = await startServer({
      ...database().env,
      DATABASE_URL: url.toString(),
      FEED_TOKEN,
      AUTH_SECRET: "a-secret-both-instances-share-0123456789",
      STREAM_STALE_SECONDS: "2",
    });
    try {
      const stream = await openSse(`${cutOff.url}/api/v1/events/p-live/stream`, {
        headers: { authorization: `Bearer ${key}` },
      });
      await stream.waitFor((m) => m.event === "snapshot");
      await proxy.cut();
      const stale = await stream.waitFor((m) => m.event === "stale");
      expect(stale.data).toMatchObject({ stale: true, sandbox: false });
      expect(typeof stale.data.since).toBe("string");
      await ingest(two.url, [score("p-live", 5)]);
      await proxy.restore();
      const cleared = await stream.waitFor((m) => m.event === "stale" && m.data.stale === false, 30_000);
      const missed = await stream.waitFor(
        (m) => m.event === "event" && (m.data.event as { score: { home: number } }).score.home === 5,
        30_000,
      );
      expect(stream.messages.indexOf(missed)).toBeGreaterThan(stream.messages.indexOf(stale));
      expect(cleared.at).toBeGreaterThan(stale.at);
      expect(strictlyIncreasing(idsOf(stream.messages))).toBe(true);
      stream.close();
    } finally {
      await cutOff.stop();
      await proxy.close();
    }
  });
});

describeEachBackend("streams for a console member's session on $name", (backend) => {
  const database = useTestDatabase(backend);
  const AUTH_SECRET = "a-secret-for-the-session-streams-0123456789";
  let server: RunningServer;
  let cookie: string;
  let demo: { email: string; password: string };
  const clients: SseClient[] = [];
  const open = async (path: string, headers: Record<string, string>) => {
    const client = await openSse(`${server.url}${path}`, { headers });
    clients.push(client);
    return client;
  };

  const viewerPassword = "a-viewer-password-0123";

  beforeAll(async () => {
    // Before the server holds the database (the embedded one admits one process): the demo
    // organisation (licensed, on the pro plan), and one without a production plan with its viewer.
    const handle = await openDatabase(database().config);
    const seeded = await seed(handle.db, new Date());
    demo = { email: seeded.demoAdmin!.email, password: seeded.demoAdmin!.password };
    const organisation = await createOrganisation(handle.db, { name: "Viewer Org", slug: "viewer-org" }, SEED);
    await addMember(
      handle.db,
      {
        orgId: organisation.id,
        email: "viewer@viewer-org.test",
        name: "Viewer",
        password: viewerPassword,
        role: "viewer",
      },
      SEED,
    );
    await handle.close();
    server = await startServer({
      ...database().env,
      FEED_TOKEN,
      AUTH_SECRET,
      SANDBOX_DELAY_SECONDS: "2",
      SESSION_STREAMS: "2",
    });
    cookie = (await signIn(server.url, demo.email, demo.password)).session!;
    await ingest(server.url, [
      { ...create("m-live", "soccer", "live"), markets: [market("m-live", "match_winner", 1.8)] },
    ]);
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await server?.stop();
  });

  it("opens the board and an event's stream with the session cookie, in real time for a production plan", async () => {
    const board = await open("/api/v1/odds/stream", { cookie });
    expect(board.status).toBe(200);
    const snapshot = await board.waitFor((m) => m.event === "snapshot");
    expect(snapshot.data).toMatchObject({ sandbox: false, delay_seconds: 0 });
    const event = await open("/api/v1/events/m-live/stream", { cookie });
    await event.waitFor((m) => m.event === "snapshot");
    await ingest(server.url, [score("m-live", 1)]);
    await board.waitFor((m) => m.event === "event");
    await event.waitFor((m) => m.event === "event");
    // A member's streams have a limit of their own, and are not a key's.
    const third = await open("/api/v1/odds/stream", { cookie });
    expect(third.status).toBe(429);
    expect(third.problem).toMatchObject({ code: "rate_limited", "violated-policies": ["streams"] });
    board.close();
    event.close();
  });

  it("refuses a cookie that is not a valid session, and a stream with neither key nor cookie", async () => {
    const forged = await open("/api/v1/odds/stream", { cookie: "next-auth.session-token=forged.token.value" });
    expect(forged.status).toBe(401);
    expect(forged.problem).toMatchObject({ code: "session_expired" });
    const anonymous = await open("/api/v1/odds/stream", {});
    expect(anonymous.status).toBe(401);
    // Besides the streams, the cookie reads only what the board shows; the rest of the API wants a key.
    const me = await fetch(`${server.url}/api/v1/me`, { headers: { cookie } });
    expect(me.status).toBe(401);
    expect(((await me.json()) as { code: string }).code).toBe("missing_api_key");
    const forgedOdds = await fetch(`${server.url}/api/v1/odds`, {
      headers: { cookie: "next-auth.session-token=forged.token.value" },
    });
    expect(forgedOdds.status).toBe(401);
    expect(((await forgedOdds.json()) as { code: string }).code).toBe("session_expired");
  });

  it("takes the session cookie from this site's own pages only, never from another origin's", async () => {
    const own = new URL(server.url).origin;
    const odds = (headers: Record<string, string>) =>
      fetch(`${server.url}/api/v1/odds`, { headers: { cookie, ...headers } });
    // The board's own requests, and the address typed into the member's browser.
    for (const headers of [
      { "sec-fetch-site": "same-origin" },
      { "sec-fetch-site": "none" },
      { origin: own },
      {},
    ] as Record<string, string>[]) {
      const answer = await odds(headers);
      expect(answer.status, JSON.stringify(headers)).toBe(200);
      await answer.body?.cancel();
    }
    // Another site, another origin of this site (SameSite=Lax lets the cookie through), an opaque origin.
    for (const headers of [
      { "sec-fetch-site": "cross-site", origin: "https://elsewhere.example" },
      { "sec-fetch-site": "same-site", origin: "http://other.127.0.0.1.nip.io" },
      { origin: "https://elsewhere.example" },
      { origin: "null" },
    ] as Record<string, string>[]) {
      const answer = await odds(headers);
      expect(answer.status, JSON.stringify(headers)).toBe(401);
      const body = (await answer.json()) as { code: string };
      expectDocumented("/api/v1/odds", answer, body);
      expect(body.code).toBe("missing_api_key");
      // And never readable with the cookie: no origin is allowed credentials.
      expect(answer.headers.get("access-control-allow-credentials")).toBeNull();
    }
    const stream = await open("/api/v1/odds/stream", { cookie, "sec-fetch-site": "cross-site" });
    expect(stream.status).toBe(401);
    expect(stream.problem).toMatchObject({ code: "missing_api_key" });
  });

  it("reads the board's first state with the session cookie: the odds, an event, its lineups and a market's history, counted as the member's", async () => {
    for (const path of [
      "/api/v1/odds",
      "/api/v1/events/m-live",
      "/api/v1/events/m-live/lineups",
      "/api/v1/events/m-live/markets/m-live:match_winner/history",
    ]) {
      let answer = await fetch(`${server.url}${path}`, { headers: { cookie } });
      // The member's per-second limit, spent by the requests before: as a client does, wait and retry.
      if (answer.status === 429) {
        await sleep(Number(answer.headers.get("retry-after")) * 1000);
        answer = await fetch(`${server.url}${path}`, { headers: { cookie } });
      }
      expect(answer.status, path).toBe(200);
      const body = (await answer.json()) as { data: unknown; meta: Record<string, unknown> };
      expectDocumented(path, answer, body);
      expect(body.meta).toMatchObject({ sandbox: false, delay_seconds: 0, requests_quota: MEMBER_LIMITS.monthlyQuota });
      expect(body.meta.requests_used).toBeGreaterThan(0);
      if (path === "/api/v1/odds") expect((body.data as { id: string }[]).map((event) => event.id)).toContain("m-live");
    }
  });

  it("gives a member of an organisation without a production plan the sandbox's delayed view", async () => {
    const viewer = (await signIn(server.url, "viewer@viewer-org.test", viewerPassword)).session!;
    // The delayed view has the event once the delay has passed since it was ingested.
    await sleep(2_000);
    const stream = await open("/api/v1/events/m-live/stream", { cookie: viewer });
    const snapshot = await stream.waitFor((m) => m.event === "snapshot", 8_000);
    expect(snapshot.data).toMatchObject({ sandbox: true, delay_seconds: 2 });
    const changedAt = Date.now();
    await ingest(server.url, [score("m-live", 5)]);
    const change = await stream.waitFor(
      (m) => m.event === "event" && (m.data.event as { score: { home: number } }).score.home === 5,
      8_000,
    );
    expect(change.at - changedAt).toBeGreaterThanOrEqual(2_000);
    stream.close();
  });

  // Last: signing out ends every session of the demo member, the other tests' cookie included.
  it("ends a session's open stream when its member signs out, saying the session expired", async () => {
    const session = (await signIn(server.url, demo.email, demo.password)).session!;
    let stream = await open("/api/v1/odds/stream", { cookie: session });
    // The member's per-second limit, spent by the tests before: as a client does, wait and retry.
    if (stream.status === 429) {
      await sleep(Number(stream.headers["retry-after"]) * 1000);
      stream = await open("/api/v1/odds/stream", { cookie: session });
    }
    await stream.waitFor((m) => m.event === "snapshot");
    await signOut(server.url, session);
    const error = await stream.waitFor((m) => m.event === "error", 5_000);
    expect(error.data).toMatchObject({ code: "session_expired", status: 401 });
    await stream.closed;
    // The board's reconnection with the same cookie is refused, not served from a cached session.
    const again = await open("/api/v1/odds/stream", { cookie: session });
    expect(again.status).toBe(401);
    expect(again.problem).toMatchObject({ code: "session_expired" });
  });
});
