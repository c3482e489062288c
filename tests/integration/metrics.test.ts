import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { FEED_TOKEN, ingest } from "../../testing/feed.ts";
import { organisationWithKeys } from "../../testing/organisations.ts";
import { startServer, type RunningServer } from "../../testing/processes.ts";
import { openSse } from "../../testing/sse.ts";

// GET /metrics: the Prometheus text format, only for the bearer of METRICS_TOKEN, with values that
// move with the traffic; off when METRICS_TOKEN is unset.

const METRICS_TOKEN = "metrics-token-for-the-tests-0123456789";

/** The value of one series of a scrape, or undefined when the scrape does not have it. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return undefined;
}

describeEachBackend("metrics on $name", (backend) => {
  const database = useTestDatabase(backend);
  let server: RunningServer;
  let key: string;

  const scrape = async () => {
    const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    return response.text();
  };

  beforeAll(async () => {
    const env = database().env;
    key = (await organisationWithKeys(env, "metrics-org", { plan: "pro", sandboxSport: "soccer" })).production.key;
    server = await startServer({ ...env, FEED_TOKEN, METRICS_TOKEN });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("refuses a scrape without the token, or with another one, in the problem format", async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: "Bearer not-the-metrics-token-0123456789" }];
    for (const headers of attempts) {
      const response = await fetch(`${server.url}/metrics`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(await response.json()).toMatchObject({ status: 401, code: "invalid_metrics_token" });
    }
  });

  it("counts requests by route and status, and shows streams, the feed's lag, the meter, the pool and the process", async () => {
    const before = await scrape();
    const listed = (text: string) => sample(text, "api_requests_total", { route: "listEvents", status: "200" }) ?? 0;
    const unknownKey = (text: string) =>
      sample(text, "api_requests_total", { route: "listEvents", status: "401" }) ?? 0;
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${server.url}/api/v1/events`, { headers: { authorization: `Bearer ${key}` } });
      expect(response.status).toBe(200);
    }
    expect((await fetch(`${server.url}/api/v1/events`)).status).toBe(401);

    await ingest(server.url, [
      {
        event_id: "m-live",
        sequence: 1,
        event: {
          sport: "soccer",
          competition: "Metrics cup",
          home: "Home",
          away: "Away",
          status: "live",
          feed: "official",
          kickoff: new Date(Date.now() - 600_000).toISOString(),
        },
      },
    ]);
    const stream = await openSse(`${server.url}/api/v1/events/m-live/stream`, {
      headers: { authorization: `Bearer ${key}` },
    });
    await stream.waitFor((m) => m.event === "snapshot");
    await ingest(server.url, [{ event_id: "m-live", sequence: 2, event: { score: { home: 1, away: 0 } } }]);
    await stream.waitFor((m) => m.event === "event");

    const after = await scrape();
    expect(listed(after) - listed(before)).toBe(3);
    expect(unknownKey(after) - unknownKey(before)).toBe(1);
    expect(sample(after, "api_request_duration_seconds_count", { route: "listEvents" })).toBeGreaterThanOrEqual(3);
    expect(sample(after, "stream_subscribers", { view: "production", kind: "event" })).toBe(1);
    expect(sample(after, "stream_opened_total")).toBeGreaterThanOrEqual(1);
    expect(sample(after, "stream_writes_total")).toBeGreaterThanOrEqual(1);
    expect(sample(after, "feed_change_delivery_seconds_count")).toBeGreaterThanOrEqual(2);
    expect(sample(after, "meter_journal_bytes", { part: "all" })).toBeGreaterThan(0);
    expect(sample(after, "meter_flush_lag_seconds")).toBeGreaterThanOrEqual(0);
    expect(sample(after, "database_pool_connections", { state: "size" })).toBeGreaterThanOrEqual(1);
    if (backend.name === "postgres") {
      expect(sample(after, "database_pool_connections", { state: "open" })).toBeGreaterThanOrEqual(1);
    }
    // The first request of a key read it from the database; the ingest wrote outside any request.
    expect(sample(after, "database_queries_total", { origin: "request" })).toBeGreaterThanOrEqual(1);
    expect(sample(after, "database_queries_total", { origin: "other" })).toBeGreaterThanOrEqual(1);
    expect(sample(after, "nodejs_eventloop_lag_seconds")).toBeGreaterThanOrEqual(0);
    expect(sample(after, "process_resident_memory_bytes")).toBeGreaterThan(0);
    // A scrape shows no secret: neither the key nor the metrics token.
    expect(after).not.toContain(key);
    expect(after).not.toContain(METRICS_TOKEN);

    stream.close();
    await expect
      .poll(async () => sample(await scrape(), "stream_subscribers", { view: "production", kind: "event" }))
      .toBe(0);
  });
});

describe("metrics without METRICS_TOKEN", () => {
  const database = useTestDatabase(BACKENDS[0]!);
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer(database().env);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("are not served at all", async () => {
    const response = await fetch(`${server.url}/metrics`, {
      headers: { authorization: "Bearer anything-at-all-0123456789" },
    });
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain("api_requests_total");
  });
});
