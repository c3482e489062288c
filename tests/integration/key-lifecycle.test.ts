import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "../../lib/accounts/audit.ts";
import { openDatabase, type DatabaseHandle } from "../../lib/db/index.ts";
import { GUESSES_PER_WINDOW } from "../../lib/api/credentials/guesses.ts";
import { generateKey } from "../../lib/keys/format.ts";
import { updateKey } from "../../lib/keys/settings.ts";
import { adminCli } from "../../testing/admin.ts";
import { apiClient } from "../../testing/api.ts";
import { BACKENDS, POSTGRES, useTestDatabase } from "../../testing/databases.ts";
import { FEED_TOKEN, ingest } from "../../testing/feed.ts";
import { liveEvent } from "../../testing/feed-updates.ts";
import { recordSecret } from "../../testing/logs.ts";
import { organisationWithKeys, productionKeys, withDatabase, type CreatedKey } from "../../testing/organisations.ts";
import { startServer, type RunningServer } from "../../testing/processes.ts";
import { openSse } from "../../testing/sse.ts";

// A key's lifecycle as the API applies it, over HTTP: its name, scope, IP allowlist and expiry on
// both entries, and a roll while the server runs. The rules themselves: key-rules.test.ts.

type Problem = { code: string; detail: string };

// A key's settings as the API applies them, on both entries (node:http and Next's route handlers).
describe.each(["node", "next"] as const)("a key's settings over HTTP through %s", (entry) => {
  const database = useTestDatabase(BACKENDS[0]!);
  let server: RunningServer;
  let call: ReturnType<typeof apiClient>;
  let keys: { full: CreatedKey; scoped: CreatedKey; ended: CreatedKey; limited: CreatedKey };

  beforeAll(async () => {
    const env = database().env;
    const org = await organisationWithKeys(env, `settings-${entry}`, { plan: "starter", sandboxSport: "soccer" });
    keys = await withDatabase(env, async (db) => {
      const now = new Date();
      const [scoped, ended, limited] = await productionKeys(db, org.orgId, 3, now);
      await updateKey(db, scoped!.id, null, { name: "Tennis only", sports: ["tennis"] }, { actor: OPERATOR, at: now });
      const allowlist = "198.51.100.0/24\n2001:db8::/32";
      await updateKey(db, limited!.id, null, { allowedIps: allowlist }, { actor: OPERATOR, at: now });
      // An expiry that passed: set where no rule looks, as a clock an hour on would see it.
      await db.execute(sql`update api_keys set expires_at = now() - interval '1 minute' where id = ${ended!.id}`);
      return { full: org.production, scoped: scoped!, ended: ended!, limited: limited! };
    });
    // One load balancer in front, as the suite presents it: X-Forwarded-For says who the client is.
    const proxied = { TRUST_PROXY_HOPS: "1", NEXTAUTH_URL: "http://127.0.0.1" };
    server = await startServer({ ...env, ...proxied, FEED_TOKEN, API_ENTRY: entry });
    call = apiClient(server.url, 9);
    await ingest(server.url, [liveEvent("set-soc", "soccer", "Settings league", { home: "A", away: "B" })]);
    // The view follows the change bus: wait until it serves the event.
    for (let tries = 0; (await call("/api/v1/events/set-soc", { key: keys.full.key })).status !== 200; tries++) {
      expect(tries, "the ingested event is served").toBeLessThan(200);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("describes the key with its name and its scope in /me", async () => {
    const me = await call<{ data: Record<string, unknown> }>("/api/v1/me", { key: keys.scoped.key });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({
      name: "Tennis only",
      sports: ["tennis"],
      plan: "starter",
      expires_at: null,
      last_used_at: null,
    });
  });

  it("refuses a sport of the plan outside the key's scope with 403 sport_not_covered", async () => {
    const tennis = await call("/api/v1/events?sport=tennis", { key: keys.scoped.key });
    expect(tennis.status).toBe(200);
    const soccer = await call<Problem>("/api/v1/events?sport=soccer", { key: keys.scoped.key });
    expect(soccer.status).toBe(403);
    expect(soccer.body).toMatchObject({ code: "sport_not_covered", detail: /limited to tennis \(its sport scope/ });
    const event = await call<Problem>("/api/v1/events/set-soc", { key: keys.scoped.key });
    expect(event.body).toMatchObject({ code: "sport_not_covered" });
  });

  it("serves a key with an IP allowlist to a client in it, the client being who the load balancer saw", async () => {
    const from = (forwardedFor: string) =>
      call<{ data: Record<string, unknown> }>("/api/v1/me", {
        key: keys.limited.key,
        headers: { "x-forwarded-for": forwardedFor },
      });
    const inside = await from("198.51.100.7");
    expect(inside.status).toBe(200);
    expect(inside.body.data).toMatchObject({ allowed_ips: ["198.51.100.0/24", "2001:db8::/32"] });
    expect((await from("203.0.113.5, 2001:db8::7")).status).toBe(200);
    // A key without a list, from anywhere.
    const me = await call<{ data: Record<string, unknown> }>("/api/v1/me", {
      key: keys.scoped.key,
      headers: { "x-forwarded-for": "203.0.113.5" },
    });
    expect(me.body.data).toMatchObject({ allowed_ips: null });
  });

  it("refuses a key with an IP allowlist from elsewhere with 403 ip_not_allowed, not counted", async () => {
    const from = (headers: Record<string, string>) =>
      call<Problem & { meta?: { requests_used: number } }>("/api/v1/me", { key: keys.limited.key, headers });
    const before = (await from({ "x-forwarded-for": "198.51.100.7" })).body.meta!.requests_used;
    // The client's own claim before the load balancer's entry is not who it is.
    for (const forwardedFor of ["203.0.113.5", "198.51.100.7, 203.0.113.5", "2001:db9::1"]) {
      const answer = await from({ "x-forwarded-for": forwardedFor });
      expect(answer.status, forwardedFor).toBe(403);
      expect(answer.body).toMatchObject({ code: "ip_not_allowed", detail: /came from (203\.0\.113\.5|2001:db9::1)/ });
    }
    // No X-Forwarded-For: the load balancer's own address (this machine) is not in the list either.
    expect((await from({})).body).toMatchObject({ code: "ip_not_allowed" });
    const after = (await from({ "x-forwarded-for": "198.51.100.7" })).body.meta!.requests_used;
    expect(after).toBe(before + 1);
  });

  it("refuses to open a stream for a key with an IP allowlist from elsewhere, and opens it from inside", async () => {
    const open = (forwardedFor: string) =>
      openSse(`${server.url}/api/v1/events/set-soc/stream`, {
        headers: { "x-api-key": keys.limited.key, "x-forwarded-for": forwardedFor },
      });
    const refused = await open("203.0.113.5");
    refused.close();
    expect(refused.status).toBe(403);
    expect(refused.problem).toMatchObject({ code: "ip_not_allowed" });
    const opened = await open("198.51.100.7");
    try {
      expect(opened.status).toBe(200);
      await opened.waitFor((message) => message.event === "snapshot");
    } finally {
      opened.close();
    }
  });

  it("refuses a production key past its expiry with 401 key_expired", async () => {
    const answer = await call<Problem>("/api/v1/me", { key: keys.ended.key });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: "key_expired", detail: /^This key expired at .*use its successor/ });
  });
});

// A roll while the server runs, on PostgreSQL so that the CLI works on the database the server
// uses: the old key is served through the overlap and refused once it ends. No server clock can be
// moved from outside, so the overlap's end is brought forward (as the rules allow) to a moment
// a few seconds on, which is what an hour later looks like to the key.
describe.runIf(POSTGRES)("a rolled key over HTTP on postgres", () => {
  const database = useTestDatabase(POSTGRES!);
  let server: RunningServer;
  let handle: DatabaseHandle;
  let call: ReturnType<typeof apiClient>;
  let old: CreatedKey;
  const cli = adminCli(() => handle.db);

  beforeAll(async () => {
    const env = database().env;
    old = (await organisationWithKeys(env, "rolling", { plan: "starter", sandboxSport: "soccer" })).production;
    server = await startServer({ ...env, FEED_TOKEN });
    handle = await openDatabase(database().config);
    call = apiClient(server.url, 9);
  });
  afterAll(async () => {
    await server?.stop();
    await handle?.close();
  });

  type Me = { data: { expires_at: string | null; name: string | null; last_used_at: string | null } };
  /** /me with `key` until its expiry reads `expiresAt`: the change has reached the server. */
  async function expiryServed(key: string, expiresAt: string) {
    for (let tries = 0; ; tries++) {
      const me = await call<Me>("/api/v1/me", { key });
      expect(me.status).toBe(200);
      if (me.body.data.expires_at === expiresAt) return;
      expect(tries, "the change reaches the server").toBeLessThan(100);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it("serves the old key through the overlap and refuses it with 401 key_expired once it ends, the successor on", async () => {
    const firstUse = Date.now();
    expect((await call("/api/v1/me", { key: old.key })).status).toBe(200);
    // The meter flushes every 100 ms on PostgreSQL: the use is recorded before the roll makes the server read the key again.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const rolled = await cli.json<{ key: string; id: string; predecessor: { expiresAt: string } }>([
      "key",
      "roll",
      "--id",
      old.id,
      "--overlap",
      "1h",
    ]);
    recordSecret(rolled.key);
    // Cached before the roll, the old key is read again at once: it now says when it ends.
    await expiryServed(old.key, rolled.predecessor.expiresAt);
    expect(Date.parse(rolled.predecessor.expiresAt) - Date.now()).toBeGreaterThan(59 * 60_000);
    // Read again, the old key says when it was last used: the minute of its first request (or a later one).
    const lastUsed = Date.parse((await call<Me>("/api/v1/me", { key: old.key })).body.data.last_used_at!);
    expect(lastUsed % 60_000).toBe(0);
    expect(lastUsed).toBeGreaterThanOrEqual(Math.floor(firstUse / 60_000) * 60_000);
    expect(lastUsed).toBeLessThanOrEqual(Date.now());
    expect((await call("/api/v1/events", { key: old.key })).status).toBe(200);
    expect((await call<Me>("/api/v1/me", { key: rolled.key })).body.data).toMatchObject({ expires_at: null });

    const end = new Date(Date.now() + 3_000).toISOString();
    await cli.json(["key", "update", "--id", old.id, "--expires", end]);
    await expiryServed(old.key, end);
    expect((await call("/api/v1/events", { key: old.key })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Date.parse(end) - Date.now() + 50));
    for (const path of ["/api/v1/me", "/api/v1/events"]) {
      const answer = await call<Problem>(path, { key: old.key });
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ code: "key_expired", detail: /use its successor/ });
    }
    expect((await call("/api/v1/events", { key: rolled.key })).status).toBe(200);
  });
});

// An allowlist changed while the key's streams are open, on PostgreSQL so that the change is made
// beside the running server and heard on the change bus as the console's would be.
describe.runIf(POSTGRES)("keys changed and created while the server runs, on postgres", () => {
  const database = useTestDatabase(POSTGRES!);
  let server: RunningServer;
  let handle: DatabaseHandle;
  let call: ReturnType<typeof apiClient>;
  let key: CreatedKey;
  let orgId: string;

  beforeAll(async () => {
    const env = database().env;
    const org = await organisationWithKeys(env, "allowlist-open", { plan: "starter", sandboxSport: "soccer" });
    key = org.production;
    orgId = org.orgId;
    server = await startServer({ ...env, TRUST_PROXY_HOPS: "1", NEXTAUTH_URL: "http://127.0.0.1", FEED_TOKEN });
    handle = await openDatabase(database().config);
    call = apiClient(server.url, 9);
    await ingest(server.url, [liveEvent("allow-soc", "soccer", "Allowlist league", { home: "A", away: "B" })]);
    for (let tries = 0; (await call("/api/v1/events/allow-soc", { key: key.key })).status !== 200; tries++) {
      expect(tries, "the ingested event is served").toBeLessThan(200);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  });
  afterAll(async () => {
    await server?.stop();
    await handle?.close();
  });

  it("serves a key created just now to an address that sent invented keys beyond any budget", async () => {
    const from = { "x-forwarded-for": "192.0.2.50" };
    for (let i = 0; i <= GUESSES_PER_WINDOW + 10; i++) {
      const answer = await call<Problem>("/api/v1/me", { key: generateKey("production"), headers: from });
      expect(answer.status).toBe(401);
    }
    const [created] = await productionKeys(handle.db, orgId, 1, new Date(), "created after guesses");
    // The key's creation reaches the server on the bus within moments; never a 429 for the address.
    const statuses: number[] = [];
    for (let tries = 0; statuses.at(-1) !== 200; tries++) {
      expect(tries, `statuses: ${statuses.join(" ")}`).toBeLessThan(100);
      statuses.push((await call("/api/v1/me", { key: created!.key, headers: from })).status);
      if (statuses.at(-1) !== 200) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(statuses.filter((status) => status === 429)).toEqual([]);
  });

  it("ends the streams whose address the new list leaves out, and refuses tokens minted from there", async () => {
    const open = (forwardedFor: string) =>
      openSse(`${server.url}/api/v1/events/allow-soc/stream`, {
        headers: { "x-api-key": key.key, "x-forwarded-for": forwardedFor },
      });
    const mint = async (forwardedFor: string) => {
      const minted = await call<{ data: { token: string } }>("/api/v1/stream-token?ttl=600", {
        key: key.key,
        headers: { "x-forwarded-for": forwardedFor },
      });
      expect(minted.status).toBe(200);
      return minted.body.data.token;
    };
    const withToken = (token: string) => openSse(`${server.url}/api/v1/events/allow-soc/stream?token=${token}`);
    const outsideToken = await mint("203.0.113.5");
    const insideToken = await mint("198.51.100.7");
    const streams = {
      outside: open("203.0.113.5"),
      inside: open("198.51.100.7"),
      outsideToken: withToken(outsideToken),
      insideToken: withToken(insideToken),
    };
    const opened = Object.fromEntries(
      await Promise.all(Object.entries(streams).map(async ([name, stream]) => [name, await stream] as const)),
    );
    try {
      for (const stream of Object.values(opened)) await stream.waitFor((message) => message.event === "snapshot");
      await updateKey(handle.db, key.id, null, { allowedIps: "198.51.100.0/24" }, { actor: OPERATOR, at: new Date() });

      for (const name of ["outside", "outsideToken"]) {
        const ending = await opened[name]!.waitFor((message) => message.event === "error");
        expect(ending.data, name).toMatchObject({ code: "ip_not_allowed" });
        await opened[name]!.closed;
      }
      // Ended in the same pass as the others, had they been: nothing came to end them.
      for (const name of ["inside", "insideToken"]) {
        expect(
          opened[name]!.messages.filter((message) => message.event === "error"),
          name,
        ).toEqual([]);
      }
      // A token minted before the change from an address the list now leaves out opens nothing.
      const refused = await withToken(outsideToken);
      refused.close();
      expect(refused.status).toBe(403);
      expect(refused.problem).toMatchObject({ code: "ip_not_allowed" });
      const admitted = await withToken(insideToken);
      admitted.close();
      expect(admitted.status).toBe(200);
    } finally {
      for (const stream of Object.values(opened)) stream.close();
    }
  });
});
