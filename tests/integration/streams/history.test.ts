import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { openDatabase, rowsOf } from "../../../lib/db/index.ts";
import { archiveEverything, forgetHistory } from "../../../testing/history.ts";
import { apiClient } from "../../../testing/api.ts";
import { ingest } from "../../../testing/feed.ts";
import { boardStates, eventStates, type BoardItem, type StreamedMarket } from "../../../testing/stream-states.ts";
import {
  create,
  DELAY_SECONDS,
  describeStreams,
  lineups,
  market,
  next,
  prices,
  score,
} from "../../../testing/stream-suite.ts";

// The one cursor and the past: `/changes` is what the board stream sent, and `as_of` (and a market's
// history) is what a client of the streams held at that revision; the same from the archive, and a resync
// once the history is gone.

describeStreams("the streams' history", (suite) => {
  it("pages through what changed since a revision exactly as the board stream sent it, from any answer's meta.revision", async () => {
    const call = apiClient(suite.server.url);
    const key = { key: suite.quietKeys.production.key };
    type Changes = {
      data: { id: number; event: string; data: unknown }[];
      meta: { next_since: number; revision: number };
    };
    // Events of this attempt's own: a retry starts from nothing an earlier attempt left.
    const [live, upcoming] = [`c${next()}-live`, `c${next()}-next`];
    const board = await suite.open("/api/v1/odds/stream", suite.bearer(suite.quietKeys.production.key));
    const snapshot = await board.waitFor((m) => m.event === "snapshot");
    await ingest(suite.server.url, [
      { ...create(live, "soccer", "live"), markets: [market(live, "match_winner", 2.4)] },
      score(live, 1),
      prices(live, "total", 1.95),
      create(upcoming, "basketball", "upcoming"),
      prices("t-live", "match_winner", 1.4),
      { event_id: upcoming, sequence: next(), event: { status: "live" } },
    ]);
    await board.waitFor((m) => m.event === "event" && (m.data.event as { id: string }).id === upcoming);
    const streamed = board.messages
      .filter((m) => m.id! > snapshot.id!)
      .map(({ id, event, data }) => ({ id: id!, event, data }));
    // The live event comes into play, then its markets, score and total; a tennis price (the suite's
    // own event); the upcoming one comes into play.
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
    expect(me.body.data.history_seconds).toBe(7 * 86_400);
    board.close();
  });

  /**
   * A run of changes of events of its own (a retry makes new ones), as the clients of the live
   * event's stream and of the board streams (production and sandbox) held it after each revision.
   */
  async function runOfChanges() {
    const p = `h${next()}`;
    const [live, upcoming, tennis] = [`${p}-live`, `${p}-next`, `${p}-tennis`];
    const boardStream = await suite.open("/api/v1/odds/stream", suite.bearer(suite.historyKeys.production.key));
    const sandboxStream = await suite.historySandboxOpen("/api/v1/odds/stream");
    await ingest(suite.server.url, [
      {
        ...create(live, "soccer", "live"),
        markets: [market(live, "match_winner", 1.8), market(live, "total", 1.9)],
        lineups: lineups(["Ada", "Bo"]),
      },
      create(upcoming, "soccer", "upcoming"),
      { ...create(tennis, "tennis", "live"), markets: [market(tennis, "match_winner", 1.5)] },
    ]);
    // Once the board has the tennis event, the present holds the live one too: its stream can open.
    await boardStream.waitFor((m) => m.event === "markets" && m.data.event_id === tennis);
    const eventStream = await suite.open(
      `/api/v1/events/${live}/stream`,
      suite.bearer(suite.historyKeys.production.key),
    );
    const snapshot = await eventStream.waitFor((m) => m.event === "snapshot");
    const changes = [
      score(live, 1),
      prices(live, "match_winner", 1.6),
      prices(live, "total", 2.05),
      { event_id: live, sequence: next(), lineups: lineups(["Ada", "Cy"]) },
      {
        event_id: upcoming,
        sequence: next(),
        event: { status: "live" },
        markets: [market(upcoming, "match_winner", 2.6)],
      },
      {
        event_id: live,
        sequence: next(),
        event: { status: "suspended" },
        markets: [market(live, "match_winner", 1.6, "suspended"), market(live, "total", 2.05, "suspended")],
      },
      prices(tennis, "match_winner", 1.45),
      {
        event_id: live,
        sequence: next(),
        event: { status: "live" },
        markets: [market(live, "match_winner", 1.4)],
      },
      { event_id: tennis, sequence: next(), event: { status: "finished" } },
      score(live, 2),
    ];
    let last = 0;
    for (const change of changes) last = await ingest(suite.server.url, [change]);
    await Promise.all([eventStream, boardStream].map((s) => s.waitFor((m) => m.id === last)));
    const changed = boardStream.messages.filter((m) => m.id! > snapshot.id!);
    return { p, live, upcoming, tennis, boardStream, sandboxStream, eventStream, snapshot, changed, last };
  }

  it("answers as_of at every revision of a run of changes as the streams' clients held it then", async () => {
    const call = suite.historyCall;
    const key = { key: suite.historyKeys.production.key };
    const { p, live, upcoming, boardStream, sandboxStream, eventStream, changed, last } = await runOfChanges();
    const events = eventStates(eventStream.messages);
    const board = boardStates(boardStream.messages);
    // Every change but the live event's lineups reached the board; the upcoming one came into play,
    // the tennis one left it.
    expect(changed.map((m) => m.event)).toEqual([
      ...["event", "markets", "markets", "event", "markets", "event", "markets"],
      ...["markets", "event", "markets", "event", "event"],
    ]);

    const revisions = [...new Set([...events.ids, ...changed.map((m) => m.id!)])].sort((a, b) => a - b);
    for (const revision of revisions) {
      const odds = await call<{ data: BoardItem[]; meta: { revision: number } }>(`/api/v1/odds?as_of=${revision}`, key);
      expect(odds.body.meta.revision).toBe(revision);
      expect(odds.body.data, `odds at ${revision}`).toEqual(board.at(revision));
      const then = events.at(revision);
      const event = await call<{ data: unknown; meta: { revision: number } }>(
        `/api/v1/events/${live}?as_of=${revision}`,
        key,
      );
      expect(event.body.data, `${live} at ${revision}`).toEqual(then.event);
      expect(event.body.meta.revision).toBe(revision);
      const lineupsThen = await call(`/api/v1/events/${live}/lineups?as_of=${revision}`, key);
      expect(lineupsThen.body.data, `lineups at ${revision}`).toEqual(then.lineups);
      // The list holds live and upcoming events: the live one while it is not suspended.
      const soccer = await call<{ data: BoardItem[] }>(`/api/v1/events?sport=soccer&as_of=${revision}`, key);
      expect(soccer.body.data.find((e) => e.id === live)).toEqual(
        then.event.status === "live" ? then.event : undefined,
      );
    }
    // Before the upcoming one came into play it was; the list pages through that moment with the cursor.
    const cameLive = changed.find((m) => m.event === "event" && (m.data.event as BoardItem).id === upcoming)!.id!;
    const list = async (query: string) =>
      (await call<{ data: BoardItem[]; meta: { next_cursor: string | null } }>(`/api/v1/events?${query}`, key)).body;
    const before = await list(`as_of=${cameLive - 1}`);
    expect(before.data.filter((e) => e.id.startsWith(`${p}-`)).map((e) => [e.id, e.status])).toEqual([
      [live, "live"],
      [`${p}-tennis`, "live"],
      [upcoming, "upcoming"],
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
      const odds = await suite.historySandboxCall<{ data: BoardItem[]; meta: Record<string, unknown> }>(
        `/api/v1/odds?as_of=${revision}`,
        { key: suite.historyKeys.sandbox.key },
      );
      expect(odds.body.data, `the sandbox's odds at ${revision}`).toEqual(sandboxBoard.at(revision));
      expect(odds.body.meta).toMatchObject({ revision, sandbox: true, delay_seconds: DELAY_SECONDS });
      expect(odds.body.data.every((item) => item.sandbox === true)).toBe(true);
    }
    boardStream.close();
    sandboxStream.close();
  });

  it("refuses a moment later than the key sees: the future, or what a sandbox key's delay holds back", async () => {
    const call = suite.historyCall;
    const key = { key: suite.historyKeys.production.key };
    // An event of its own, once the sandbox's view holds it.
    const live = `r${next()}-live`;
    const sandboxStream = await suite.historySandboxOpen("/api/v1/odds/stream");
    await ingest(suite.server.url, [
      { ...create(live, "soccer", "live"), markets: [market(live, "match_winner", 1.8), market(live, "total", 1.9)] },
    ]);
    await sandboxStream.waitFor((m) => m.event === "markets" && m.data.event_id === live);
    sandboxStream.close();
    const { revision: now } = (await call<{ meta: { revision: number } }>("/api/v1/odds", key)).body.meta;
    const inAMinute = new Date(Date.now() + 60_000).toISOString();
    for (const path of [
      `/api/v1/odds?as_of=${inAMinute}`,
      `/api/v1/events?as_of=${now + 1_000}`,
      `/api/v1/events/${live}?as_of=${inAMinute}`,
      `/api/v1/events/${live}/lineups?as_of=${now + 1}`,
      `/api/v1/events/${live}/markets/${live}:total/history?from=${inAMinute}`,
    ]) {
      const refused = await call(path, key);
      expect([refused.status, refused.body], path).toMatchObject([400, { code: "invalid_parameter" }]);
    }
    const malformed = await call("/api/v1/odds?as_of=2026-11-21T15:41:07%2B01:00", key);
    expect(malformed.body).toMatchObject({ code: "invalid_parameter", errors: [{ param: "as_of" }] });

    // A change the sandbox's view has not reached yet: refused at its revision and at this moment,
    // and not in the market's history, where the production key sees it at once.
    const sandboxCall = suite.historySandboxCall;
    const sandbox = { key: suite.historyKeys.sandbox.key };
    const revision = await ingest(suite.server.url, [prices(live, "total", 2.4)]);
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
    const path = `/api/v1/events/${live}/markets/${live}:total/history`;
    const delayed = await sandboxCall<History>(path, sandbox);
    expect(delayed.body.data.points.at(-1)!.revision).toBeLessThan(revision);
    expect(delayed.body.meta.revision).toBeLessThan(revision);
    expect((await call<History>(path, key)).body.data.points.at(-1)!.revision).toBe(revision);
  });

  it("gives a market's history as every change of it the event's stream carried, from any moment", async () => {
    const call = suite.historyCall;
    const key = { key: suite.historyKeys.production.key };
    type Point = { at: string; revision: number; status: string; line: number | null; outcomes: unknown[] };
    type History = { data: { event_id: string; market_id: string; points: Point[] } };
    const run = await runOfChanges();
    const { live, tennis, eventStream: stream } = run;
    // The sandbox's view past the run, so that a sandbox key knows the tennis event (and is refused it).
    await run.sandboxStream.waitFor((m) => m.id === run.last);
    run.boardStream.close();
    run.sandboxStream.close();
    // A third change of the total after the stream's snapshot.
    const last = await ingest(suite.server.url, [prices(live, "total", 2.4)]);
    await stream.waitFor((m) => m.id === last);
    const snapshot = stream.messages[0]!;
    const pointOf = (at: string, revision: number, m: StreamedMarket): Point => ({
      at,
      revision,
      status: m.status,
      line: m.line,
      outcomes: m.outcomes.map(({ id, price, status }) => ({ id, price, status })),
    });
    for (const id of [`${live}:match_winner`, `${live}:total`]) {
      const carried = stream.messages
        .filter((m) => m.event === "markets")
        .flatMap((m) =>
          (m.data.markets as StreamedMarket[])
            .filter((c) => c.id === id)
            .map((c) => pointOf(m.data.as_of as string, m.id!, c)),
        );
      expect(carried.length).toBeGreaterThanOrEqual(3);
      const all = await call<History>(`/api/v1/events/${live}/markets/${id}/history`, key);
      expect(all.body.data).toMatchObject({ event_id: live, market_id: id });
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
        `/api/v1/events/${live}/markets/${id}/history?from=${from}&to=${second.at}`,
        key,
      );
      expect(window.body.data.points).toEqual([{ ...first, at: from }, second]);
    }

    for (const [path, status, code] of [
      [`/api/v1/events/${live}/markets/${live}:next_goal/history`, 404, "not_found"],
      ["/api/v1/events/h-none/markets/h-none:total/history", 404, "not_found"],
      [`/api/v1/events/${live}/markets/${live}:total/history?from=2026-11-21T15:41:07Z`, 410, "retention_exceeded"],
      [`/api/v1/events/${live}/markets/${live}:total/history?to=2026-11-21T15:41:07Z`, 410, "retention_exceeded"],
    ] as const) {
      const refused = await call(path, key);
      expect([refused.status, refused.body], path).toMatchObject([status, { code }]);
    }
    // A key of soccer only: the first organisation's sandbox key, whose per-second limit these tests leave alone.
    const ofTennis = await apiClient(suite.server.url)(
      `/api/v1/events/${tennis}/markets/${tennis}:match_winner/history`,
      { key: suite.keys.sandbox.key },
    );
    expect([ofTennis.status, ofTennis.body]).toMatchObject([403, { code: "sport_not_covered" }]);
    stream.close();
  });

  it.skipIf(suite.backend.name !== "postgres")(
    "answers the same from the archive once the recent table has let the revisions go: changes, as_of, history, resumption",
    async () => {
      const key = { key: suite.historyKeys.production.key };
      // A run of its own, in the recent table until this test archives it.
      const { live, changed, last, ...streams } = await runOfChanges();
      for (const stream of [streams.boardStream, streams.sandboxStream, streams.eventStream]) stream.close();
      const first = changed[0]!;
      const paths = [
        `/api/v1/changes?since=${first.id! - 1}&limit=1000`,
        `/api/v1/odds?as_of=${first.id}`,
        `/api/v1/events?as_of=${first.data.as_of as string}`,
        `/api/v1/events/${live}?as_of=${last - 1}`,
        `/api/v1/events/${live}/lineups?as_of=${first.id}`,
        `/api/v1/events/${live}/markets/${live}:total/history`,
      ];
      const answers = async () => {
        const out: unknown[] = [];
        for (const path of paths) {
          const answer = await suite.historyCall<{ data: unknown; meta: { revision?: number } }>(path, key);
          out.push([path, answer.status, answer.body.data, answer.body.meta.revision]);
        }
        return out;
      };
      const resumed = async () => {
        const stream = await suite.open(`/api/v1/events/${live}/stream`, {
          ...suite.bearer(suite.historyKeys.production.key),
          "last-event-id": String(first.id! - 1),
        });
        await stream.waitFor((m) => m.id === last);
        stream.close();
        return stream.messages.map(({ id, event, data }) => ({ id, event, data }));
      };
      const before = await answers();
      const replayed = await resumed();
      const handle = await openDatabase(suite.database().config);
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

  it.skipIf(suite.backend.name !== "postgres")(
    "replays nothing older than the history kept: resync retention_exceeded",
    async () => {
      // A run of its own, whose past this test has the history forget.
      const { live, changed, ...streams } = await runOfChanges();
      for (const stream of [streams.boardStream, streams.sandboxStream, streams.eventStream]) stream.close();
      const stream = await suite.open(`/api/v1/events/${live}/stream`, suite.production());
      const snapshot = await stream.waitFor((m) => m.event === "snapshot");
      stream.close();
      await ingest(suite.server.url, [score(live, 8), score(live, 9)]);
      const handle = await openDatabase(suite.database().config);
      await forgetHistory(handle.db);
      await handle.close();
      const resumed = await suite.open(`/api/v1/events/${live}/stream`, {
        ...suite.production(),
        "last-event-id": String(snapshot.id),
      });
      const resync = await resumed.waitFor((m) => m.event === "snapshot");
      expect(resync.data).toMatchObject({ resync: true, reason: "retention_exceeded", event: { score: { home: 9 } } });
      resumed.close();
      const changes = await apiClient(suite.server.url)(`/api/v1/changes?since=${snapshot.id}`, {
        key: suite.keys.production.key,
      });
      expect(changes.status).toBe(410);
      expect(changes.body).toMatchObject({ code: "retention_exceeded" });
      // The run's past is gone too: the state at its first change, and the live event's markets since.
      const first = changed[0]!;
      const moment = first.data.as_of as string;
      for (const path of [
        `/api/v1/odds?as_of=${first.id! - 1}`,
        `/api/v1/events?as_of=${moment}`,
        `/api/v1/events/${live}?as_of=${first.id}`,
        `/api/v1/events/${live}/markets/${live}:total/history?from=${moment}`,
      ]) {
        const refused = await suite.historyCall(path, { key: suite.historyKeys.production.key });
        expect([refused.status, refused.body], path).toMatchObject([410, { code: "retention_exceeded" }]);
      }
      // The present is always kept.
      const now = await suite.historyCall<{ meta: { revision: number } }>("/api/v1/odds", {
        key: suite.historyKeys.production.key,
      });
      const present = await suite.historyCall(`/api/v1/odds?as_of=${now.body.meta.revision}`, {
        key: suite.historyKeys.production.key,
      });
      expect(present.status).toBe(200);
    },
  );
});
