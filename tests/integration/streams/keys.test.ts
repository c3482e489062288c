import { expect, it } from "vitest";
import { apiClient } from "../../../testing/api.ts";
import { ingest } from "../../../testing/feed.ts";
import { organisationWithKeys } from "../../../testing/organisations.ts";
import { admin } from "../../../testing/processes.ts";
import { idsOf, strictlyIncreasing, type Received, type SseClient } from "../../../testing/sse.ts";
import { DELAY_SECONDS, describeStreams, market, next, prices, score, sleep } from "../../../testing/stream-suite.ts";

// A key's streams: an event's and the board's, resuming, resyncs, pings, filters, conflation, the sandbox's
// delay, limits, browser stream tokens, the end of an event, revocation. Every message is checked against
// its schema.

describeStreams("the streams of a key", (suite) => {
  it("starts with a snapshot, then sends each change with increasing ids and only the changed markets", async () => {
    const stream = await suite.open("/api/v1/events/s-live/stream", suite.production());
    expect(stream.status).toBe(200);
    expect(stream.headers["content-type"]).toMatch(/^text\/event-stream/);
    expect(stream.headers["x-request-id"]).toMatch(/^req_/);
    expect(stream.headers["ratelimit"]).toBeDefined();
    const snapshot = await stream.waitFor((m) => m.event === "snapshot");
    expect(snapshot.data).toMatchObject({ sandbox: false, delay_seconds: 0, event: { id: "s-live", status: "live" } });
    expect((snapshot.data.markets as unknown[]).length).toBe(2);
    expect(stream.retries[0]).toBeGreaterThan(0);

    await ingest(suite.server.url, [score("s-live", 1), prices("s-live", "total", 2.05)]);
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
    const first = await suite.open("/api/v1/events/s-live/stream", suite.production());
    const snapshot = await first.waitFor((m) => m.event === "snapshot");
    first.close();
    await first.closed;
    await ingest(suite.server.url, [score("s-live", 2), prices("s-live", "match_winner", 1.6), score("s-live", 3)]);

    // Each resume starts from the same snapshot, so it also replays what the previous one saw live.
    const missed = ["event", "markets", "event"];
    let home = 3;
    for (const resume of [
      () => suite.open("/api/v1/events/s-live/stream", { ...suite.production(), "last-event-id": String(snapshot.id) }),
      () => suite.open(`/api/v1/events/s-live/stream?last_event_id=${snapshot.id}`, suite.production()),
    ]) {
      const stream = await resume();
      const scored = (goals: number) => (m: Received) =>
        m.event === "event" && (m.data.event as { score: { home: number } }).score.home === goals;
      await stream.waitFor(scored(home));
      expect(stream.messages.map((m) => m.event)).toEqual(missed);
      expect(stream.messages.every((m) => m.id! > snapshot.id!)).toBe(true);
      expect(strictlyIncreasing(idsOf(stream.messages))).toBe(true);
      // and then it carries on live
      await ingest(suite.server.url, [score("s-live", ++home)]);
      missed.push("event");
      await stream.waitFor(scored(home));
      expect(stream.messages.map((m) => m.event)).toEqual(missed);
      stream.close();
    }
  });

  it("answers an id it cannot place with a snapshot that says resync and why", async () => {
    for (const id of ["not-a-number", "999999999"]) {
      const stream = await suite.open("/api/v1/events/s-live/stream", { ...suite.production(), "last-event-id": id });
      const snapshot = await stream.waitFor((m) => m.event === "snapshot", 8_000);
      expect(snapshot.data).toMatchObject({ resync: true, reason: "unknown_id" });
      stream.close();
    }
  });

  it("sends a ping comment at least every ping interval", async () => {
    const stream = await suite.open("/api/v1/events/s-next/stream", suite.production());
    await stream.waitFor((m) => m.event === "snapshot");
    await sleep(2_600);
    expect(stream.comments.filter((c) => c === "ping").length).toBeGreaterThanOrEqual(2);
    stream.close();
  });

  it("follows the board with sport and type filters", async () => {
    const board = await suite.open("/api/v1/odds/stream?sport=soccer&type=total", suite.production());
    const snapshot = await board.waitFor((m) => m.event === "snapshot");
    const events = snapshot.data.events as { id: string; markets: { type: string }[] }[];
    expect(events.map((e) => e.id)).toEqual(["s-live"]);
    expect(events[0]!.markets.map((m) => m.type)).toEqual(["total"]);
    await ingest(suite.server.url, [
      prices("t-live", "match_winner", 1.45), // another sport
      prices("s-live", "match_winner", 1.55), // another type
      prices("s-live", "total", 2.1),
    ]);
    const markets = await board.waitFor((m) => m.event === "markets");
    expect(markets.data).toMatchObject({ event_id: "s-live", markets: [{ id: "s-live:total" }] });
    // An event coming into play arrives with all its markets (of the type); one leaving says so.
    await ingest(suite.server.url, [
      { event_id: "s-next", sequence: next(), markets: [market("s-next", "total", 1.7)] },
      { event_id: "s-next", sequence: next(), event: { status: "live" } },
    ]);
    const entry = await board.waitFor((m) => m.event === "event" && (m.data.event as { id: string }).id === "s-next");
    expect(entry.data.markets).toEqual([expect.objectContaining({ id: "s-next:total" })]);
    await sleep(300);
    expect(board.messages.filter((m) => m.event === "markets").length).toBe(1);
    expect(strictlyIncreasing(idsOf(board.messages))).toBe(true);

    const refused = await suite.open("/api/v1/odds/stream?sport=ice-hockey", suite.production());
    expect(refused.status).toBe(403);
    expect(refused.problem).toMatchObject({ code: "sport_not_covered" });
    const typo = await suite.open("/api/v1/odds/stream?type=winner", suite.production());
    expect(typo.status).toBe(400);
    board.close();
  });

  it("gives board clients that open at one revision one snapshot, and a newer one after a change", async () => {
    const isSnapshot = (m: { event: string }) => m.event === "snapshot";
    const first = await suite.open("/api/v1/odds/stream?sport=basketball", suite.production());
    const second = await suite.open("/api/v1/odds/stream?sport=basketball", suite.production());
    const [a, b] = [await first.waitFor(isSnapshot), await second.waitFor(isSnapshot)];
    expect(b.id).toBe(a.id);
    expect(b.data).toEqual(a.data);
    await ingest(suite.server.url, [prices("b-live", "match_winner", 1.65)]);
    await first.waitFor((m) => m.event === "markets");
    const third = await suite.open("/api/v1/odds/stream?sport=basketball", suite.production());
    const c = await third.waitFor(isSnapshot);
    expect(Number(c.id)).toBeGreaterThan(Number(a.id));
    const events = c.data.events as { id: string; markets: { outcomes: { price: number }[] }[] }[];
    expect(events.find((e) => e.id === "b-live")!.markets[0]!.outcomes[0]!.price).toBe(1.65);
    for (const client of [first, second, third]) client.close();
  });

  it("sends a slow board client the latest state, marked conflated, never the backlog", async () => {
    const slow = await suite.open("/api/v1/odds/stream?sport=basketball", suite.production(), true);
    const fast = await suite.open("/api/v1/odds/stream?sport=basketball", suite.production());
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
      last = await ingest(suite.server.url, batch);
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
    const stream = await suite.open("/api/v1/events/s-live/stream", suite.sandbox());
    const snapshot = await stream.waitFor((m) => m.event === "snapshot");
    expect(snapshot.data).toMatchObject({ sandbox: true, delay_seconds: DELAY_SECONDS });
    const changedAt = Date.now();
    await ingest(suite.server.url, [score("s-live", 7)]);
    const change = await stream.waitFor(
      (m) => m.event === "event" && (m.data.event as { score: { home: number } }).score.home === 7,
      DELAY_SECONDS * 1000 + 5_000,
    );
    expect(change.at - changedAt).toBeGreaterThanOrEqual(DELAY_SECONDS * 1000);
    expect(change.at - new Date(change.data.as_of as string).getTime()).toBeGreaterThanOrEqual(DELAY_SECONDS * 1000);
    expect((change.data.event as { sandbox: boolean }).sandbox).toBe(true);
    stream.close();

    const other = await suite.open("/api/v1/events/t-live/stream", suite.sandbox());
    expect(other.status).toBe(403);
    expect(other.problem).toMatchObject({ code: "sport_not_covered" });
  });

  it("refuses streams over the key's concurrent limit, without counting them", async () => {
    // The sandbox allows 2 requests a second as well as 2 streams: each pair starts in a fresh second.
    await sleep(1_100);
    const first = await suite.open("/api/v1/odds/stream", suite.sandbox());
    const second = await suite.open("/api/v1/odds/stream", suite.sandbox());
    await first.waitFor((m) => m.event === "snapshot");
    await second.waitFor((m) => m.event === "snapshot");
    const third = await suite.open("/api/v1/odds/stream", suite.sandbox());
    expect(third.status).toBe(429);
    expect(third.problem).toMatchObject({ code: "rate_limited", "violated-policies": ["streams"] });
    expect(third.headers["retry-after"]).toBeDefined();
    first.close();
    second.close();
    await sleep(1_100);
    const again = await suite.open("/api/v1/odds/stream", suite.sandbox());
    expect(again.status).toBe(200);
    // The refused stream was not counted: the month's remaining went down by `again` alone.
    const monthLeft = (client: SseClient) => Number(/"month";r=(\d+)/.exec(String(client.headers["ratelimit"]))![1]);
    expect(monthLeft(second) - monthLeft(again)).toBe(1);
    again.close();
  });

  it("opens both streams with a browser stream token: no header, the key's count and view, its scope and nothing else", async () => {
    const call = apiClient(suite.server.url);
    const mint = async (query: string, key = suite.quietKeys.production.key) => {
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
    const board = await suite.open(`/api/v1/odds/stream?token=${soccer.token}`, {
      origin: "https://key-holder.example",
    });
    expect(board.status).toBe(200);
    expect(board.headers["access-control-allow-origin"]).toBe("*");
    const snapshot = await board.waitFor((m) => m.event === "snapshot");
    const sports = (snapshot.data.events as { sport: string }[]).map((e) => e.sport);
    expect(sports.length).toBeGreaterThan(0);
    expect(new Set(sports)).toEqual(new Set(["soccer"]));
    // Opening it counted one request against the key that minted the token.
    const monthLeft = (text: string | null) => Number(/"month";r=(\d+)/.exec(String(text))![1]);
    const after = await call("/api/v1/me", { key: suite.quietKeys.production.key });
    expect(monthLeft(String(board.headers["ratelimit"])) - monthLeft(after.headers.get("ratelimit"))).toBe(1);
    board.close();

    const outside = await suite.open(`/api/v1/odds/stream?sport=tennis&token=${soccer.token}`, {});
    expect(outside.status).toBe(403);
    expect(outside.problem).toMatchObject({ code: "sport_not_covered" });
    const rest = await call(`/api/v1/odds?token=${soccer.token}`);
    expect(rest.status).toBe(401);
    expect(rest.body).toMatchObject({ code: "invalid_api_key", detail: expect.stringMatching(/streams only/) });

    const oneEvent = await mint("event_id=s-live");
    expect(oneEvent).toMatchObject({ sport: "soccer", event_id: "s-live" });
    const followed = await suite.open(`/api/v1/events/s-live/stream?token=${oneEvent.token}`, {});
    expect((await followed.waitFor((m) => m.event === "snapshot")).data).toMatchObject({ event: { id: "s-live" } });
    followed.close();
    for (const path of ["/api/v1/events/s-next/stream", "/api/v1/odds/stream"]) {
      const refused = await suite.open(`${path}?token=${oneEvent.token}`, {});
      expect(refused.problem, path).toMatchObject({ code: "sport_not_covered" });
    }
    // A sandbox key's token sees what the key sees: the feed of the delay ago.
    const delayed = await suite.open(
      `/api/v1/odds/stream?token=${(await mint("", suite.quietKeys.sandbox.key)).token}`,
      {},
    );
    expect((await delayed.waitFor((m) => m.event === "snapshot")).data).toMatchObject({
      sandbox: true,
      delay_seconds: DELAY_SECONDS,
    });
    delayed.close();
    for (const query of ["ttl=30", "sport=soccer&event_id=t-live"]) {
      const refused = await call(`/api/v1/stream-token?${query}`, { key: suite.quietKeys.production.key });
      expect(refused.body, query).toMatchObject({ code: "invalid_parameter" });
    }
  });

  it("ends an event's stream with end once the event is over", async () => {
    const stream = await suite.open("/api/v1/events/t-live/stream", suite.production());
    const snapshot = await stream.waitFor((m) => m.event === "snapshot");
    await ingest(suite.server.url, [
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
    const late = await suite.open("/api/v1/events/t-live/stream", suite.production());
    expect(late.status).toBe(204);
    await late.closed;
    expect(late.messages).toEqual([]);
    // A client that dropped before the end resumes into what it missed, then end: never a silent gap.
    const resumed = await suite.open("/api/v1/events/t-live/stream", {
      ...suite.production(),
      "last-event-id": String(snapshot.id),
    });
    expect(resumed.status).toBe(200);
    await resumed.closed;
    // `end` carries no id: it closes what the client missed.
    const missed = stream.messages.filter((m) => (m.id === undefined ? m.event === "end" : m.id > snapshot.id!));
    expect(resumed.messages.map((m) => m.event)).toEqual(missed.map((m) => m.event));
    expect(resumed.messages.at(-1)).toMatchObject({ event: "end", data: { status: "finished" } });
    // Resuming from the end itself: nothing missed, 204.
    const caughtUp = await suite.open("/api/v1/events/t-live/stream", {
      ...suite.production(),
      "last-event-id": String(stream.lastId()),
    });
    expect(caughtUp.status).toBe(204);
  });

  it.skipIf(suite.backend.name !== "postgres")(
    "ends the streams of a revoked key, and those opened with its tokens, saying why",
    async () => {
      const other = await organisationWithKeys(suite.database().env, "revoked-org", {
        plan: "starter",
        sandboxSport: "soccer",
      });
      const stream = await suite.open("/api/v1/odds/stream", suite.bearer(other.production.key));
      const minted = await apiClient(suite.server.url)<{ data: { token: string } }>("/api/v1/stream-token", {
        key: other.production.key,
      });
      const { token } = minted.body.data;
      const byToken = await suite.open(`/api/v1/odds/stream?token=${token}`, {});
      await stream.waitFor((m) => m.event === "snapshot");
      await byToken.waitFor((m) => m.event === "snapshot");
      await admin(["key", "revoke", "--id", other.production.id], suite.database().env);
      // A stream opened with a token is the key's: it ends with it.
      for (const ended of [stream, byToken]) {
        const error = await ended.waitFor((m) => m.event === "error", 10_000);
        expect(error.data).toMatchObject({ code: "key_revoked", status: 401 });
        await ended.closed;
      }
      const refused = await suite.open(`/api/v1/odds/stream?token=${token}`, {});
      expect(refused.problem).toMatchObject({ code: "key_revoked" });
    },
  );
});
