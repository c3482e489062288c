import { afterAll, beforeAll, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { openDatabase } from "../../lib/db/index.ts";
import { statusMinutes } from "../../lib/db/schema/index.ts";
import type { ViewFollower } from "../../lib/feed/views.ts";
import { emptyHistogram, observe } from "../../lib/ops/status/figures.ts";
import { StatusRecorder, type RecordedViews } from "../../lib/ops/status/recorder.ts";
import { describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { admin, runAdmin, startServer, type RunningServer } from "../../testing/processes.ts";
import { tcpProxy } from "../../testing/tcp-proxy.ts";

// The public status page on a scripted history: two hours of minutes from an instance before this
// one, one of them with readiness failing and one with the soccer feed stale, and an incident an
// operator opened and updated with the CLI. The page and its JSON must say exactly that.

type StatusJson = {
  status: string;
  database_reachable: boolean;
  components: { id: string; state: string; availability: Record<string, number | null> }[];
  latency: Record<string, number | null>;
  incidents: { id: string; state: string; components: string[]; updates: unknown[] }[];
};

const sparse = (values: number[]) => {
  const histogram = emptyHistogram();
  for (const value of values) observe(histogram, value);
  return Object.fromEntries(histogram.flatMap((count, i) => (count ? [[String(i), count]] : [])));
};

describeEachBackend("the status page on $name", (backend) => {
  const database = useTestDatabase(backend);
  let server: RunningServer;
  let incidentId: string;
  const started = Date.now();
  const minuteAgo = (n: number) => new Date(Math.floor(started / 60_000) * 60_000 - n * 60_000);

  beforeAll(async () => {
    const handle = await openDatabase(database().config);
    await handle.db.insert(statusMinutes).values(
      Array.from({ length: 120 }, (_, i) => ({
        minute: minuteAgo(i + 2),
        instance: "earlier",
        ready: i !== 30,
        feeds: { soccer: i !== 40 },
        rest: sparse([2, 3, 3, 4, 250]),
        streamLag: sparse([15, 20]),
      })),
    );
    await handle.close();
    const opened = await admin<{ id: string }>(
      [
        "incident",
        "open",
        "--title",
        "Soccer prices late",
        "--components",
        "feed:soccer,streams",
        "--text",
        "Looking into it",
      ],
      database().env,
    );
    incidentId = opened.id;
    await admin(
      ["incident", "update", "--id", incidentId, "--state", "identified", "--text", "A provider is slow"],
      database().env,
    );
    server = await startServer(database().env);
  });
  afterAll(() => server?.stop());

  it("serves /status.json to anyone, with each component's availability from the minutes recorded", async () => {
    const response = await fetch(`${server.url}/status.json`, { headers: { origin: "https://dashboard.example" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("cache-control")).toBe("public, max-age=30");
    const report = (await response.json()) as StatusJson;
    const component = (id: string) => report.components.find((c) => c.id === id)!;
    // One bad minute of 120 (this instance may have added its own first minute, a good one).
    for (const id of ["api", "streams", "console"]) {
      expect(component(id).availability["24h"]).toBeGreaterThanOrEqual(99.16);
      expect(component(id).availability["24h"]).toBeLessThan(99.18);
    }
    // Readiness failed one minute and the feed was stale another: two bad minutes for soccer.
    expect(component("feed:soccer").availability["24h"]).toBeGreaterThanOrEqual(98.33);
    expect(component("feed:soccer").availability["24h"]).toBeLessThan(98.35);
    expect(component("api").state).toBe("operational");
    expect(component("streams").state).toBe("degraded");
    expect(report).toMatchObject({ status: "degraded", database_reachable: true });
    expect(report.latency.rest_p50_ms).toBeGreaterThanOrEqual(3);
    expect(report.latency.rest_p50_ms).toBeLessThan(3.4);
    expect(report.latency.rest_p95_ms).toBeGreaterThanOrEqual(250);
    expect(report.latency.stream_lag_p95_ms).toBeGreaterThanOrEqual(20);
    expect(report.incidents).toEqual([
      expect.objectContaining({ id: incidentId, state: "identified", components: ["feed:soccer", "streams"] }),
    ]);
    expect(report.incidents[0]!.updates).toHaveLength(2);
  });

  it("draws the same on /status, for people", async () => {
    const page = await (await fetch(`${server.url}/status`)).text();
    expect(page).toContain("Some systems degraded");
    expect(page).toContain("Soccer prices late");
    expect(page).toContain("A provider is slow");
    expect(page).toMatch(/99\.17 %/);
  });

  it.runIf(backend.name === "postgres")(
    "answers while the database is away, saying so, from its last reading",
    async () => {
      const url = new URL(database().env.DATABASE_URL!);
      const proxy = await tcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
      url.hostname = "127.0.0.1";
      url.port = String(proxy.port);
      const cutOff = await startServer({ ...database().env, DATABASE_URL: url.toString() });
      try {
        const read = async () => (await (await fetch(`${cutOff.url}/status.json`)).json()) as StatusJson;
        const before = await read();
        expect(before.database_reachable).toBe(true);
        await proxy.cut();
        // Readiness is checked once a second at most: the next check finds the database away.
        await expect.poll(async () => (await read()).database_reachable, { timeout: 15_000 }).toBe(false);
        const during = await read();
        expect(during).toMatchObject({ status: "down", database_reachable: false });
        expect(during.components.find((c) => c.id === "api")).toMatchObject({
          state: "down",
          availability: before.components.find((c) => c.id === "api")!.availability,
        });
        expect(during.incidents).toEqual(before.incidents);
        const page = await (await fetch(`${cutOff.url}/status`)).text();
        expect(page).toContain("cannot reach its database");
        await proxy.restore();
        await expect.poll(async () => (await read()).database_reachable, { timeout: 15_000 }).toBe(true);
      } finally {
        await cutOff.stop();
        await proxy.close();
      }
    },
    60_000,
  );

  it.runIf(backend.name === "postgres")("takes an incident's resolution from the CLI while it runs", async () => {
    await admin(["incident", "resolve", "--id", incidentId, "--text", "Back to normal"], database().env);
    const listed = await admin<{ id: string; state: string }[]>(["incident", "list"], database().env);
    expect(listed).toEqual([expect.objectContaining({ id: incidentId, state: "resolved" })]);
    const refused = await runAdmin(
      ["incident", "update", "--id", incidentId, "--text", "again", "--json"],
      database().env,
    );
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ error: { code: "conflict" } });
  });
});

// One instance's recorder against a real database, with a feed and a clock the test moves: what
// it writes of each minute, and that minutes the database could not take are written later.
describeEachBackend("the status recorder on $name", (backend) => {
  const database = useTestDatabase(backend);

  it("writes each minute once it is over: readiness at every sample, each live sport's freshness, its latencies", async () => {
    const handle = await openDatabase(database().config);
    try {
      let clock = Date.parse("2026-11-26T10:00:05Z");
      let ready = false;
      const followers: ViewFollower[] = [];
      const events = [
        { event: { sport: "soccer", status: "live", period: "2nd half", updated_at: "2026-11-26T10:00:00Z" } },
        { event: { sport: "tennis", status: "live", period: "Set 2", updated_at: "2026-11-26T09:56:00Z" } },
        { event: { sport: "baseball", status: "upcoming", period: "", updated_at: "2026-11-26T08:00:00Z" } },
        // Between innings: nothing is expected to change, and ice hockey is not judged.
        {
          event: { sport: "ice-hockey", status: "live", period: "Intermission 1", updated_at: "2026-11-26T09:45:00Z" },
        },
      ];
      const views: RecordedViews = {
        mirror: () => ({ inListOrder: () => events }),
        follow: (_view, follower) => {
          followers.push(follower);
          return () => {};
        },
      };
      const recorder = new StatusRecorder(handle.db, views, "test-instance", async () => ready, {
        now: () => new Date(clock),
        sampleMs: 3_600_000,
      });
      recorder.start();
      // A soccer change 200 ms after its commit; two REST answers.
      followers[0]!.revision(
        { revision: 1, eventId: "e", kind: "event", recordedAt: new Date(clock - 200), state: {} },
        { event: events[0]!.event } as never,
        "live",
      );
      recorder.observeRest(0.004);
      recorder.observeRest(0.3);
      // Not ready at the first sample, ready at the next: the minute was not all good.
      await recorder.sample();
      clock += 30_000;
      ready = true;
      await recorder.sample();
      clock += 40_000; // 10:01:15: the first minute is over and written.
      await recorder.sample();
      const rows = await handle.db.select().from(statusMinutes);
      expect(rows).toHaveLength(1);
      const [row] = rows;
      expect(row).toMatchObject({
        minute: new Date("2026-11-26T10:00:00Z"),
        instance: "test-instance",
        ready: false,
      });
      // Soccer changed within the minute; tennis had not for four (three is its longest quiet spell);
      // baseball has no live event; ice hockey's only one is in an intermission, so it is not judged.
      expect(row!.feeds).toEqual({ soccer: true, tennis: false });
      const count = (histogram: Record<string, number>) => Object.values(histogram).reduce((a, b) => a + b, 0);
      expect(count(row!.rest)).toBe(2);
      expect(count(row!.streamLag)).toBe(1);
      await recorder.stop();
    } finally {
      await handle.close();
    }
  });

  it("goes on sampling after a sample that failed", async () => {
    const handle = await openDatabase(database().config);
    try {
      let clock = Date.parse("2026-11-26T11:00:05Z");
      let broken = true;
      const views: RecordedViews = {
        mirror: () => ({
          inListOrder: () => {
            if (broken) throw new Error("a feed that cannot be read");
            return [];
          },
        }),
        follow: () => () => {},
      };
      const recorder = new StatusRecorder(handle.db, views, "failing-instance", async () => true, {
        now: () => new Date(clock),
        sampleMs: 3_600_000,
      });
      await expect(recorder.sample()).rejects.toThrow("a feed that cannot be read");
      broken = false;
      await recorder.sample();
      clock += 60_000;
      await recorder.sample();
      await recorder.stop();
      const rows = await handle.db.select().from(statusMinutes).where(eq(statusMinutes.instance, "failing-instance"));
      expect(rows).toEqual([expect.objectContaining({ minute: new Date("2026-11-26T11:00:00Z") })]);
    } finally {
      await handle.close();
    }
  });

  it("stops once the minute being written is in the database, so closing it after loses nothing", async () => {
    const handle = await openDatabase(database().config);
    try {
      let clock = Date.parse("2026-11-26T10:00:05Z");
      const views: RecordedViews = { mirror: () => ({ inListOrder: () => [] }), follow: () => () => {} };
      const recorder = new StatusRecorder(handle.db, views, "stopping-instance", async () => true, {
        now: () => new Date(clock),
        sampleMs: 3_600_000,
      });
      recorder.start();
      await recorder.sample();
      clock += 60_000; // the first minute is over: the next sample writes it.
      let written = false;
      void recorder.sample().then(() => (written = true));
      await recorder.stop();
      expect(written).toBe(true);
      const rows = await handle.db.select().from(statusMinutes).where(eq(statusMinutes.instance, "stopping-instance"));
      expect(rows).toEqual([expect.objectContaining({ minute: new Date("2026-11-26T10:00:00Z"), ready: true })]);
    } finally {
      await handle.close();
    }
  });
});
