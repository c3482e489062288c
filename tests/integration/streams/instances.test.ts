import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../../lib/accounts/audit.ts";
import { openDatabase } from "../../../lib/db/index.ts";
import { addMember } from "../../../lib/accounts/users.ts";
import { signIn, signOut } from "../../../testing/console.ts";
import { POSTGRES, useTestDatabase } from "../../../testing/databases.ts";
import { FEED_TOKEN, ingest } from "../../../testing/feed.ts";
import { organisationWithKeys } from "../../../testing/organisations.ts";
import { startServer, type RunningServer } from "../../../testing/processes.ts";
import { idsOf, openSse, strictlyIncreasing, type Received, type SseClient } from "../../../testing/sse.ts";
import { tcpProxy } from "../../../testing/tcp-proxy.ts";
import { create, market, prices, score } from "../../../testing/stream-suite.ts";

// Two instances sharing PostgreSQL: limits and sign-out across them, changes across them, a graceful stop,
// a lost database.

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
