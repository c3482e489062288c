import { hostname } from "node:os";
import { seed } from "../seeds/index.ts";
import { keptMailLines, startMail, type MailService } from "./accounts/mail/index.ts";
import type { Mailer } from "./accounts/mail/mailer.ts";
import { openAdminChannel, type AdminChannel } from "./ops/admin/channel.ts";
import { createApi, type Api } from "./api/index.ts";
import { KeyGuesses } from "./api/credentials/guesses.ts";
import { KeyHashes } from "./api/credentials/key-hashes.ts";
import { cachedSessions, memberLimits } from "./api/credentials/members.ts";
import type { ApiServices } from "./api/request/pipeline.ts";
import { sessionViewer } from "./api/credentials/session-viewer.ts";
import { streamProblem } from "./api/endpoints/streams.ts";
import { followOutboxes, startChangeBus, type ChangeBus } from "./bus/index.ts";
import { SessionRevocations } from "./accounts/sessions.ts";
import { StreamTokens } from "./keys/stream-token.ts";
import { feedSource } from "./streams/feed-source.ts";
import { busHeartbeat } from "./streams/liveness.ts";
import { hashPasswordsFast } from "./accounts/auth/password.ts";
import { authSecret } from "./accounts/auth/secret.ts";
import { now, setClockOffset } from "./clock.ts";
import { streamSettings, type Config } from "./config.ts";
import { openDatabase, type DatabaseHandle } from "./db/index.ts";
import { feedIngest } from "./feed/http.ts";
import { startFeed } from "./feed/service.ts";
import { FeedViews } from "./feed/views.ts";
import { KeyCache, keysOf, type KeyDirectory } from "./keys/cache.ts";
import { logger, printForOperator, type Logger } from "./log/index.ts";
import { showOnce } from "./log/show-once.ts";
import { startInstanceMeter, type InstanceMeter, type UsageWatch } from "./metering/index.ts";
import { ServiceMetrics } from "./ops/metrics/index.ts";
import { Simulator } from "./sim/simulator.ts";
import { processCell } from "./slot.ts";
import { readiness } from "./health.ts";
import { StatusRecorder } from "./ops/status/recorder.ts";
import { StatusService } from "./ops/status/service.ts";
import { StreamHub } from "./streams/hub.ts";
import { prepareWebhooks, type Webhooks } from "./ops/webhooks/index.ts";
import { RequestLogRecorder } from "./ops/request-log/recorder.ts";
import { pruneRequestLog } from "./ops/request-log/queries.ts";

/** One running service: everything a request, a page or an action needs, composed once. */
export type Instance = {
  config: Config;
  log: Logger;
  database: DatabaseHandle;
  /** Changes from every instance on this database: feed revisions, key changes, usage. */
  bus: ChangeBus;
  /** The present and the sandbox's delayed view, in memory, as the API serves them. */
  views: FeedViews;
  keys: KeyDirectory;
  meter: InstanceMeter;
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
  /** The mail outbox's worker: SMTP, or messages kept and shown when no mail server is set. */
  mail: MailService;
  /** Each key's refused requests and a sample of its admitted ones, written every second. */
  requestLog: RequestLogRecorder;
  /** The operator CLI's way in while this process holds the embedded database; null on PostgreSQL. */
  adminChannel: AdminChannel | null;
  /** Tells every stream to reconnect elsewhere, then stops the parts in the reverse of their start. */
  stop(): Promise<void>;
};

// The running instance, shared with the copy of lib/ that Next bundles for pages and actions.
const running = processCell<{ instance?: Instance }>("instance", () => ({}));

/** The running instance, for the code Next bundles (pages, actions, route handlers). */
export function currentInstance(): Instance {
  if (!running.instance) throw new Error("The service is not started: it runs in server.ts's process.");
  return running.instance;
}

/** The running instance's API, or undefined while none runs in this process. */
export function runningApi(): Api | undefined {
  return running.instance?.api;
}

/** What `npm run admin` runs (lib/ops/admin/commands.ts): given by the entry, so the composition imports no CLI. */
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

/**
 * Parts given to an instance instead of those it would make (a test's clock, a benchmark's meter
 * that counts nothing). A given part is its giver's to close; the instance closes what it made.
 */
export type InstanceParts = {
  /** What every part reads as the time. */
  now: () => Date;
  /** How mail leaves: SMTP at MAIL_URL by default. */
  mailer: Mailer;
  /** Changes from every instance on the database: LISTEN/NOTIFY by default. */
  bus: ChangeBus;
  /** Admits and counts the API's requests: the journal meter by default; `unmetered` counts nothing. */
  meter: InstanceMeter;
  /** The keys, read from the database and kept in memory by default. */
  keys: KeyDirectory;
};

/**
 * The one composition of the service: each part made in order from those before it, and stopped in
 * the reverse order. `adminCommands`: run for the CLI while this process holds the embedded database.
 */
export async function startInstance(
  config: Config,
  options: { adminCommands?: AdminCommands; parts?: Partial<InstanceParts> } = {},
): Promise<Instance> {
  const log = logger();
  if (config.TEST_CLOCK_OFFSET_SECONDS > 0) {
    setClockOffset(config.TEST_CLOCK_OFFSET_SECONDS * 1000);
    log.warn(`The clock runs ${config.TEST_CLOCK_OFFSET_SECONDS} s ahead (TEST_CLOCK_OFFSET_SECONDS): for tests only`);
  }
  if (config.TEST_FAST_PASSWORD_HASH === "1") {
    hashPasswordsFast(true);
    log.warn(
      "New passwords are hashed at a test's cost (TEST_FAST_PASSWORD_HASH): for tests only, never for real accounts",
    );
  }
  const parts = options.parts ?? {};
  const clock = parts.now ?? now;
  const stops: Array<() => unknown> = [];
  try {
    const database = await openDatabase(config);
    stops.push(() => database.close());
    log.info(
      `Database: ${database.kind === "pglite" ? `embedded PGlite in ${database.location}` : `PostgreSQL at ${database.location}`} (migrated)`,
    );
    if (config.DATABASE_URL && !config.AUTH_SECRET) {
      log.warn(
        "AUTH_SECRET is not set: console sessions are signed with a secret kept in DATA_DIR; " +
          "instances sharing a database must share AUTH_SECRET, or a session works on one instance only.",
      );
    }
    await seedOnStart(database, config, clock);
    const { db } = database;

    const bus = parts.bus ?? (await startChangeBus(database));
    if (!parts.bus) stops.push(() => bus.close());
    const views = new FeedViews(db, config.SANDBOX_DELAY_SECONDS, clock);
    await views.start(bus);
    stops.push(() => views.stop());
    const source =
      config.SIM === "on"
        ? new Simulator(db, {
            speed: config.SIM_SPEED,
            seed: config.SIM_SEED,
            now: clock,
            committed: (revisions) => views.offer(revisions),
          })
        : null;
    // The leader's minute job prunes the request log with the feed's history.
    const feed = startFeed(database, config, { now: clock, source, prune: (at) => pruneRequestLog(db, at) });
    stops.push(() => feed.stop());

    const webhooks = await prepareWebhooks(db, config, clock);
    stops.push(() => webhooks.stop());
    const mail = startMail(db, config, {
      now: clock,
      mailer: parts.mailer,
      show: (message) => {
        // For the person running the service, never a log record: the link signs someone in.
        if (process.stdout.isTTY) for (const line of keptMailLines(message)) printForOperator(line);
        else
          log.info(
            "A message was kept in the outbox (no MAIL_URL): the desk's Mail page and `npm run admin -- mail list` show it",
          );
      },
    });
    stops.push(() => mail.stop());
    const meter = parts.meter ?? (await journalMeter(database, config, bus, clock, webhooks.alerts.watch, log));
    if (!parts.meter) stops.push(() => meter.close());
    webhooks.run(() => meter.rewatch());
    stops.push(await followOutboxes(bus, { mail: mail.worker, webhooks: webhooks.worker }));
    const requestLog = new RequestLogRecorder(db);
    requestLog.start();
    stops.push(() => requestLog.close());

    const keys = parts.keys ?? new KeyCache(keysOf(db));
    stops.push(await keys.follow(bus));
    const revocations = new SessionRevocations();
    stops.push(await revocations.follow(bus));
    const settings = streamSettings(config);
    const sessionSecret = authSecret(config);
    const sessions = cachedSessions((token, at) =>
      sessionViewer(db, token, sessionSecret, at, memberLimits(settings.sessionStreams)),
    );
    revocations.onRevoked((revocation) => sessions.forget(revocation?.userId ?? null));
    const history = feedSource(db, views);
    const streams = new StreamHub({
      feed: history,
      heartbeat: busHeartbeat(db, bus),
      keys,
      sessions: revocations,
      now: clock,
      settings,
      problem: streamProblem,
    });
    await streams.start();
    stops.push(() => streams.stop());

    const metrics = config.METRICS_TOKEN ? new ServiceMetrics() : null;
    const recorder = new StatusRecorder(
      db,
      views,
      `${hostname()}:${process.pid}`,
      async () => (await readiness(database)).status === 200,
    );
    recorder.start();
    stops.push(() => recorder.stop());
    const services: ApiServices = {
      keys,
      keyHashes: new KeyHashes(),
      streamTokens: new StreamTokens(sessionSecret),
      history,
      historySeconds: config.HISTORY_SECONDS,
      meter,
      views,
      now: clock,
      streams,
      session: sessions,
      guesses: new KeyGuesses(),
      trustedHops: config.TRUST_PROXY_HOPS,
    };
    const api = createApi(services, {
      observe: (route, status, seconds) => {
        recorder.observeRest(seconds);
        metrics?.observeRequest(route, status, seconds);
      },
      requestLog,
    });
    if (metrics) {
      metrics.followFeed(views);
      metrics.watchStreams(streams);
      metrics.watchMeter(() => meter.stats());
      metrics.watchDatabase(database.pool);
      metrics.countQueries(database.pool.queries);
    }
    // Last: no operator command runs before the service it acts on is whole.
    const adminChannel =
      database.kind === "pglite" && options.adminCommands
        ? await openChannel(options.adminCommands, database, config, log)
        : null;
    if (adminChannel) stops.push(() => adminChannel.close());

    const instance: Instance = {
      config,
      log,
      database,
      bus,
      views,
      keys,
      meter,
      streams,
      api,
      ingest: feedIngest({ db, names: feed.names, token: config.FEED_TOKEN, now: clock, views }),
      metrics,
      status: new StatusService(database, recorder, clock),
      webhooks,
      mail,
      requestLog,
      adminChannel,
      stop: async () => {
        if (running.instance === instance) running.instance = undefined;
        await stopInReverse(stops);
      },
    };
    running.instance = instance;
    return instance;
  } catch (error) {
    await stopInReverse(stops);
    throw error;
  }
}

/** The journal meter of server.ts's instances, with the requests of earlier processes' journals replayed. */
async function journalMeter(
  database: DatabaseHandle,
  config: Config,
  bus: ChangeBus,
  now: () => Date,
  watch: UsageWatch,
  log: Logger,
): Promise<InstanceMeter> {
  const { meter, replayed } = await startInstanceMeter(database, config, bus, now, watch);
  if (replayed > 0) log.info(`Metering: ${replayed} requests replayed from journals of earlier processes`);
  return meter;
}

// Each part stops after those made from it; one that fails to stop does not keep the rest running.
async function stopInReverse(stops: Array<() => unknown>): Promise<void> {
  for (const stop of stops.splice(0).reverse()) {
    try {
      await stop();
    } catch (error) {
      logger().error({ err: error }, "A part of the service failed to stop");
    }
  }
}

/** Reference data always; the demo organisation and the first operator on the embedded default, or when asked. */
async function seedOnStart(database: DatabaseHandle, config: Config, now: () => Date): Promise<void> {
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
