import { hostname } from "node:os";
import { seed } from "../seeds/index.ts";
import { openAdminChannel, type AdminChannel } from "./admin/channel.ts";
import { startApi, type Api } from "./api/index.ts";
import { authSecret } from "./auth/secret.ts";
import { now, setClockOffset } from "./clock.ts";
import { streamSettings, type Config } from "./config.ts";
import { openDatabase, type DatabaseHandle } from "./db/index.ts";
import type { ChangeBus } from "./bus/index.ts";
import { feedIngest } from "./feed/http.ts";
import { startFeed, type FeedService } from "./feed/service.ts";
import type { FeedViews } from "./feed/views.ts";
import { KeyCache, keysOf } from "./keys/cache.ts";
import { logger, printForOperator, type Logger } from "./log/index.ts";
import { showOnce } from "./log/show-once.ts";
import { startInstanceMeter, type JournalMeter } from "./metering/index.ts";
import { ServiceMetrics } from "./metrics/index.ts";
import { Simulator } from "./sim/simulator.ts";
import { slot } from "./slot.ts";
import { readiness } from "./health.ts";
import { StatusRecorder } from "./status/recorder.ts";
import { StatusService } from "./status/service.ts";
import type { StreamHub } from "./streams/hub.ts";
import { prepareWebhooks, type Webhooks } from "./webhooks/index.ts";
import { RequestLogRecorder } from "./request-log/recorder.ts";
import { pruneRequestLog } from "./request-log/queries.ts";

/** One running service: everything a request, a page or an action needs, composed once. */
export type Instance = {
  config: Config;
  log: Logger;
  database: DatabaseHandle;
  /** Changes from every instance on this database: feed revisions, key changes, usage. */
  bus: ChangeBus;
  /** The present and the sandbox's delayed view, in memory, as the API serves them. */
  views: FeedViews;
  keys: KeyCache;
  meter: JournalMeter;
  streams: StreamHub;
  api: Api;
  /** The provider ingest, `POST /api/feed/v1/updates`. */
  ingest: (request: Request) => Promise<Response>;
  /** Null unless METRICS_TOKEN is set. */
  metrics: ServiceMetrics | null;
  /** The public status page's document (`/status`, `/status.json`). */
  status: StatusService;
  /** Usage alerts and the delivery of webhook messages. */
  webhooks: Webhooks;
  /** Each key's refused requests and a sample of its admitted ones, written every second. */
  requestLog: RequestLogRecorder;
  /** The operator CLI's way in while this process holds the embedded database; null on PostgreSQL. */
  adminChannel: AdminChannel | null;
  /** Tells every stream to reconnect elsewhere, then stops the parts in the reverse of their start. */
  stop(): Promise<void>;
};

/** What `npm run admin` runs (lib/admin/commands.ts), given by the entry so the composition does not import the CLI. */
export type AdminCommands = (
  argv: string[],
  io: { print(text: string): void; printError(text: string): void; connect(): Promise<AdminSettings> },
) => Promise<number>;

type AdminSettings = {
  db: DatabaseHandle["db"];
  sandboxKeyTtlDays: number;
  allowPrivateWebhooks: boolean;
  close(): Promise<void>;
};

/** `adminCommands`: run for the CLI while this process holds the embedded database. */
export async function startInstance(
  config: Config,
  options: { adminCommands?: AdminCommands } = {},
): Promise<Instance> {
  const log = logger();
  if (config.TEST_CLOCK_OFFSET_SECONDS > 0) {
    setClockOffset(config.TEST_CLOCK_OFFSET_SECONDS * 1000);
    log.warn(`The clock runs ${config.TEST_CLOCK_OFFSET_SECONDS} s ahead (TEST_CLOCK_OFFSET_SECONDS): for tests only`);
  }
  const database = await openDatabase(config);
  log.info(
    `Database: ${database.kind === "pglite" ? `embedded PGlite in ${database.location}` : `PostgreSQL at ${database.location}`} (migrated)`,
  );
  if (config.DATABASE_URL && !config.AUTH_SECRET) {
    log.warn(
      "AUTH_SECRET is not set: console sessions are signed with a secret kept in DATA_DIR; " +
        "instances sharing a database must share AUTH_SECRET, or a session works on one instance only.",
    );
  }
  await seedOnStart(database, config);
  const adminChannel =
    database.kind === "pglite" && options.adminCommands
      ? await openChannel(options.adminCommands, database, config, log)
      : null;

  const source =
    config.SIM === "on" ? new Simulator(database.db, { speed: config.SIM_SPEED, seed: config.SIM_SEED, now }) : null;
  // The leader's minute job prunes the request log with the feed's history.
  const feed = await startFeed(database, config, { source, prune: (at) => pruneRequestLog(database.db, at) });
  const webhooks = await prepareWebhooks(database.db, config, now);
  const { meter, replayed } = await startInstanceMeter(database, config, feed.bus, now, webhooks.alerts.watch);
  webhooks.run(() => meter.rewatch());
  if (replayed > 0) log.info(`Metering: ${replayed} requests replayed from journals of earlier processes`);
  const metrics = config.METRICS_TOKEN ? new ServiceMetrics() : null;
  const requestLog = new RequestLogRecorder(database.db);
  const keys = new KeyCache(keysOf(database.db));
  const recorder = new StatusRecorder(
    database.db,
    feed.views,
    `${hostname()}:${process.pid}`,
    async () => (await readiness(database)).status === 200,
  );
  const api = await startApi({
    db: database.db,
    bus: feed.bus,
    keys,
    views: feed.views,
    now,
    meter,
    streams: streamSettings(config),
    sessionSecret: authSecret(config),
    historySeconds: config.HISTORY_SECONDS,
    trustedHops: config.TRUST_PROXY_HOPS,
    observe: (route, status, seconds) => {
      recorder.observeRest(seconds);
      metrics?.observeRequest(route, status, seconds);
    },
    requestLog,
  });
  requestLog.start();
  recorder.start();
  if (metrics) watch(metrics, { feed, api, meter, database });

  const instance: Instance = {
    config,
    log,
    database,
    bus: feed.bus,
    views: feed.views,
    keys,
    meter,
    streams: api.streams,
    api,
    ingest: feedIngest({ db: database.db, names: feed.names, token: config.FEED_TOKEN, now, views: feed.views }),
    metrics,
    status: new StatusService(database, recorder, now),
    webhooks,
    requestLog,
    adminChannel,
    stop: () => stopInstance(instance, feed, recorder),
  };
  slot.instance = instance;
  return instance;
}

async function stopInstance(instance: Instance, feed: FeedService, recorder: StatusRecorder): Promise<void> {
  if (slot.instance === instance) slot.instance = undefined;
  recorder.stop();
  // No more operator commands; those running finish first.
  await instance.adminChannel?.close();
  // The API first (its streams, key following and meter's last flush), the request log's last rows,
  // then the webhooks (recording the last requests' alerts), then the feed, then the data.
  await instance.api.close();
  await instance.requestLog.close();
  await instance.webhooks.stop();
  await feed.stop();
  await instance.database.close();
}

/** Reference data always; the demo organisation and the first operator on the embedded default, or when asked. */
async function seedOnStart(database: DatabaseHandle, config: Config): Promise<void> {
  const demo = config.SEED_DEMO === undefined ? database.kind === "pglite" : config.SEED_DEMO === "1";
  const seeded = await seed(database.db, now(), { demo });
  const log = logger();
  if (seeded.demoAdmin && seeded.operator) {
    // For the person starting the server, never a log record: a password has no place in the logs.
    showOnce(
      [
        `Demo sign-in (shown this once): ${seeded.demoAdmin.email} / ${seeded.demoAdmin.password}`,
        `Operator sign-in (shown this once): ${seeded.operator.email} / ${seeded.operator.password}`,
      ],
      {
        dataDir: config.DATA_DIR,
        terminal: process.stdout.isTTY === true,
        print: printForOperator,
        log: (message) => log.info(message),
      },
    );
    return;
  }
  const reset = (email: string) => `\`npm run admin -- user reset-password --email ${email}\` sets a new one`;
  if (seeded.demoAdminEmail) {
    log.info(`Demo sign-in: ${seeded.demoAdminEmail} (password shown at first start; ${reset(seeded.demoAdminEmail)})`);
  }
  if (seeded.operatorEmail) {
    log.info(
      `Operator sign-in: ${seeded.operatorEmail} (password shown at first start; ${reset(seeded.operatorEmail)})`,
    );
  } else if (seeded.demoAdminEmail) {
    log.info("No operator for the desk (/operator) yet: `npm run admin -- operator add --email EMAIL` adds one.");
  }
}

/** The CLI's commands, run here as `npm run admin` would run them on this database. */
function openChannel(
  commands: AdminCommands,
  database: DatabaseHandle,
  config: Config,
  log: Logger,
): Promise<AdminChannel | null> {
  const settings: AdminSettings = {
    db: database.db,
    sandboxKeyTtlDays: config.SANDBOX_KEY_TTL_DAYS,
    allowPrivateWebhooks: config.WEBHOOKS_ALLOW_PRIVATE === "1",
    // The instance's database stays open after the command.
    close: async () => {},
  };
  return openAdminChannel(config.DATA_DIR, (argv, io) => commands(argv, { ...io, connect: async () => settings }), {
    info: (fields, message) => log.info(fields, message),
    warn: (message) => log.warn(message),
    error: (fields, message) => log.error(fields, message),
  });
}

function watch(
  metrics: ServiceMetrics,
  parts: { feed: FeedService; api: Api; meter: JournalMeter; database: DatabaseHandle },
): void {
  metrics.followFeed(parts.feed.views);
  metrics.watchStreams(parts.api.streams);
  metrics.watchMeter(() => parts.meter.stats());
  metrics.watchDatabase(parts.database.pool);
  metrics.countQueries(parts.database.pool.queries);
}
