import { afterAll, beforeAll, expect, it } from "vitest";
import { MEMBER_LIMITS } from "../../../lib/api/credentials/members.ts";
import { SEED } from "../../../lib/accounts/audit.ts";
import { openDatabase } from "../../../lib/db/index.ts";
import { createOrganisation } from "../../../lib/accounts/organisations.ts";
import { addMember } from "../../../lib/accounts/users.ts";
import { seed } from "../../../seeds/index.ts";
import { expectDocumented } from "../../../testing/api.ts";
import { signIn, signOut } from "../../../testing/console.ts";
import { describeEachBackend, useTestDatabase } from "../../../testing/databases.ts";
import { FEED_TOKEN, ingest } from "../../../testing/feed.ts";
import { startServer, type RunningServer } from "../../../testing/processes.ts";
import { openSse, type SseClient } from "../../../testing/sse.ts";
import { create, market, score, sleep } from "../../../testing/stream-suite.ts";

// A console member's session streams: the cookie from this site only, the member's view and counts, the end
// at sign-out.

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
