import { createHash, timingSafeEqual } from "node:crypto";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { newRequestId, problemBody } from "../../http/problem.ts";
import type { FeedViews } from "../../feed/views.ts";
import type { MeterStats } from "../../metering/index.ts";
import type { StreamHub } from "../../streams/hub.ts";

// What an operator scrapes from GET /metrics (Prometheus text format). Each instance has one
// ServiceMetrics; the sources (the streams, the meter, the database) are read when scraped, so the
// only work on a request's path is one counter and one histogram observation.

/** The database as the metrics see it: its pool, and how much of it is in use now. */
export type PoolSource = { size: number; inUse?(): Promise<{ open: number; active: number }> };

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const LAG_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

const digest = (secret: string) => createHash("sha256").update(secret).digest();

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<"route" | "status">;
  private readonly latency: Histogram<"route">;
  private readonly changeLag: Histogram;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
      name: "api_requests_total",
      help: "Answers of /api/v1 by route (the operation id) and status",
      labelNames: ["route", "status"],
      registers: [this.registry],
    });
    this.latency = new Histogram({
      name: "api_request_duration_seconds",
      help: "Time from a request's arrival to its answer being ready (a stream: to its opening)",
      labelNames: ["route"],
      buckets: LATENCY_BUCKETS,
      registers: [this.registry],
    });
    this.changeLag = new Histogram({
      name: "feed_change_delivery_seconds",
      help: "Time from a change's commit to this instance applying it (the change bus's lag)",
      buckets: LAG_BUCKETS,
      registers: [this.registry],
    });
  }

  observeRequest(route: string, status: number, seconds: number): void {
    this.requests.inc({ route, status });
    this.latency.observe({ route }, seconds);
  }

  /** The change bus's lag, measured as each revision reaches the present view. */
  followFeed(views: FeedViews): () => void {
    return views.follow("present", {
      revision: (revision) => this.changeLag.observe(Math.max(0, Date.now() - revision.recordedAt.getTime()) / 1000),
      applied: () => {},
      reset: () => {},
    });
  }

  watchStreams(hub: StreamHub): void {
    const registers = [this.registry];
    new Gauge({
      name: "stream_subscribers",
      help: "Open streams by view (production, sandbox) and kind (event, board)",
      labelNames: ["view", "kind"],
      registers,
      collect() {
        for (const view of ["production", "sandbox"])
          for (const kind of ["event", "board"]) this.set({ view, kind }, 0);
        for (const [name, count] of hub.subscribersByView()) {
          const [view, kind] = name.split(":");
          this.set({ view, kind }, count);
        }
      },
    });
    new Gauge({
      name: "stream_channels",
      help: "Channels (one event or one board filter, in one view): each message is serialised once per channel",
      registers,
      collect() {
        this.set(hub.open.channels);
      },
    });
    const total = (name: string, help: string, read: () => number) =>
      new Counter({
        name,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(read());
        },
      });
    total("stream_opened_total", "Streams opened", () => hub.counters.opened);
    total(
      "stream_writes_total",
      "Writes to stream clients (one per client per flush tick)",
      () => hub.counters.messages,
    );
    total(
      "stream_conflated_total",
      "Messages sent to slow board clients as the latest state instead of the backlog",
      () => hub.counters.conflated,
    );
    total(
      "stream_dropped_total",
      "Writes not made to a client that was not taking what it was sent",
      () => hub.counters.dropped,
    );
    new Counter({
      name: "stream_resyncs_total",
      help: "Fresh snapshots sent in place of what a client missed, by reason",
      labelNames: ["reason"],
      registers,
      collect() {
        this.reset();
        for (const [reason, count] of Object.entries(hub.counters.resyncs)) this.inc({ reason }, count);
      },
    });
    new Gauge({
      name: "stream_stale",
      help: "1 while this instance cannot hear the change bus and its streams say stale",
      registers,
      collect() {
        this.set(hub.stale ? 1 : 0);
      },
    });
  }

  watchMeter(stats: () => MeterStats): void {
    const registers = [this.registry];
    new Gauge({
      name: "meter_flush_lag_seconds",
      help: "Age of the oldest counted request not yet added to the database",
      registers,
      collect() {
        this.set(stats().flushLagSeconds);
      },
    });
    new Gauge({
      name: "meter_journal_bytes",
      help: "Size of this instance's metering journals, and how much of it is not yet in the database",
      labelNames: ["part"],
      registers,
      collect() {
        const { journalBytes, unflushedBytes } = stats();
        this.set({ part: "all" }, journalBytes);
        this.set({ part: "unflushed" }, unflushedBytes);
      },
    });
    new Counter({
      name: "meter_flush_failures_total",
      help: "Flushes of the journal to the database that failed (they are tried again)",
      registers,
      collect() {
        this.reset();
        this.inc(stats().flushFailures);
      },
    });
  }

  watchDatabase(pool: PoolSource): void {
    new Gauge({
      name: "database_pool_connections",
      help: "The database pool: its size, this instance's connections open (the pool and its LISTEN connection) and those running a query",
      labelNames: ["state"],
      registers: [this.registry],
      async collect() {
        this.set({ state: "size" }, pool.size);
        if (!pool.inUse) return; // the embedded database: one connection, always this process's
        try {
          const { open, active } = await pool.inUse();
          this.set({ state: "open" }, open);
          this.set({ state: "active" }, active);
        } catch {
          // the database is away: the pool's use is unknown, and stream_stale says the rest
        }
      },
    });
  }

  /** Statements sent through the query layer, read when scraped: serving API requests, and otherwise. */
  countQueries(queries: { request: number; other: number }): void {
    new Counter({
      name: "database_queries_total",
      help: "Statements this instance sent to the database: while serving an /api/v1 request (origin request), and otherwise",
      labelNames: ["origin"],
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc({ origin: "request" }, queries.request);
        this.inc({ origin: "other" }, queries.other);
      },
    });
  }

  /** The answer to GET /metrics: only for the bearer of METRICS_TOKEN. */
  async scrape(
    token: string,
    authorization: string | undefined,
  ): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    const sent = authorization?.startsWith("Bearer ") ? authorization.slice(7).trim() : "";
    // Digests of equal length: comparing the tokens themselves would stop early at a wrong length.
    if (!timingSafeEqual(digest(sent), digest(token))) {
      const requestId = newRequestId();
      const problem = problemBody(
        401,
        "invalid_metrics_token",
        "Unauthorized",
        "GET /metrics needs METRICS_TOKEN as a bearer token.",
        requestId,
      );
      return {
        status: 401,
        headers: {
          "content-type": "application/problem+json",
          "www-authenticate": 'Bearer realm="metrics"',
          "cache-control": "no-store",
          "x-request-id": requestId,
        },
        body: JSON.stringify(problem),
      };
    }
    return {
      status: 200,
      headers: { "content-type": this.registry.contentType, "cache-control": "no-store" },
      body: await this.registry.metrics(),
    };
  }
}
