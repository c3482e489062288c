import "#server-only";
import { z } from "zod";

// The one place the environment is read. Every variable is listed in docs/configuration.md with its default.
// Pages import this module, so it touches no file: Next's bundler would trace the whole project
// for a file read at a computed path (the .env files are read in lib/env-files.ts).
const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();

const configSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  PORT: port.default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/.+/, "must be a postgres:// or postgresql:// connection URL")
    .optional(),
  DATABASE_POOL_SIZE: positiveInt.max(200).default(10),
  DATA_DIR: z.string().min(1).default(".data"),
  // Where the embedded database runs: a thread of its own, or ("main") the one that answers requests (docs/decisions/pglite-thread.md).
  PGLITE_THREAD: z.enum(["own", "main"], { message: "must be own or main" }).default("own"),
  SANDBOX_KEY_TTL_DAYS: positiveInt.max(3650).default(30),
  SIM: z.enum(["on", "off"], { message: "must be on or off" }).default("on"),
  SIM_SPEED: z.coerce.number().positive().max(10_000).default(1),
  SIM_SEED: z.coerce
    .number()
    .int()
    .min(0)
    .max(2 ** 31)
    .default(1),
  FEED_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  // For tests of a running server only: moves its clock (lib/clock.ts) forward by this many seconds.
  TEST_CLOCK_OFFSET_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(366 * 86_400)
    .default(0),
  // For tests only: new passwords hashed at a test's cost (lib/accounts/auth/password.ts), not at OWASP's.
  TEST_FAST_PASSWORD_HASH: z.enum(["0", "1"], { message: "must be 0 or 1" }).default("0"),
  // How long every revision is kept whole in the recent table (full states, one read per moment),
  // before only the archive holds it: long enough for the sandbox's 60-second view.
  REVISION_RETENTION_SECONDS: positiveInt
    .min(120)
    .max(7 * 86_400)
    .default(900),
  // How far back the history reaches (the archive; `history_seconds` in /me): as_of, market
  // history, changes and stream resumption. At least the recent table's window.
  HISTORY_SECONDS: positiveInt
    .min(120)
    .max(30 * 86_400)
    .default(7 * 86_400),
  // How far behind real time a sandbox key sees the feed (the spec: 60 seconds).
  SANDBOX_DELAY_SECONDS: positiveInt.max(3_600).default(60),
  // Which server answers /api/v1: `node` (our node:http server calls the API directly, the fast
  // path) or `next` (Next's route handlers, the same implementation through Next's pipeline).
  API_ENTRY: z.enum(["node", "next"], { message: "must be node or next" }).default("node"),
  // Signs the console's session cookies. Unset: one is generated once and kept in DATA_DIR.
  AUTH_SECRET: z.string().min(32, "must be at least 32 characters (e.g. `openssl rand -base64 32`)").optional(),
  // The console's public address (next-auth's own variable); unset: taken from each request's Host.
  // Required in production when TRUST_PROXY_HOPS > 0.
  NEXTAUTH_URL: z.url({ protocol: /^https?$/, message: "must be an http:// or https:// URL" }).optional(),
  // Load balancers in front of the server that append to X-Forwarded-For; 0 trusts no header.
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  // A client gets this long to send a request's headers, then its connection is closed (408): a
  // client trickling its headers byte by byte must not hold a connection open for long.
  HEADERS_TIMEOUT_SECONDS: positiveInt.max(300).default(10),
  INVITATION_TTL_DAYS: positiveInt.max(90).default(7),
  // Webhook endpoints on private, loopback or link-local addresses: refused unless allowed (1), since
  // the server would otherwise post to its own network on an organisation admin's behalf.
  WEBHOOKS_ALLOW_PRIVATE: z.enum(["0", "1"], { message: "must be 0 or 1" }).default("0"),
  // Single sign-on providers (issuers) on plain http or on private, loopback or link-local
  // addresses: refused unless allowed (1), since the server fetches an admin's issuer URL.
  SSO_ALLOW_PRIVATE: z.enum(["0", "1"], { message: "must be 0 or 1" }).default("0"),
  // A failed webhook delivery is tried again after this, doubling each time, for a day.
  WEBHOOKS_RETRY_BASE_MS: positiveInt.max(3_600_000).default(30_000),
  // Streams (docs/streams.md): a `: ping` comment at least this often on a quiet stream;
  STREAM_PING_SECONDS: positiveInt.max(60).default(15),
  // messages gathered for this long are written to each client in one write;
  STREAM_FLUSH_MS: positiveInt.max(1_000).default(20),
  // unsent bytes a connection may hold before its client counts as slow;
  STREAM_BUFFER_BYTES: positiveInt
    .min(4_096)
    .max(64 * 1024 * 1024)
    .default(256 * 1024),
  // how long without hearing the feed before streams say `stale`;
  STREAM_STALE_SECONDS: positiveInt.max(600).default(5),
  // concurrent streams of one signed-in console member on one instance.
  SESSION_STREAMS: positiveInt.max(100).default(4),
  // Logs: JSON lines (production) or readable lines (development), and the least level written.
  LOG_FORMAT: z.enum(["json", "pretty"], { message: "must be json or pretty" }).optional(),
  LOG_LEVEL: z
    .enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"], {
      message: "must be trace, debug, info, warn, error, fatal or silent",
    })
    .default("info"),
  // The demo organisation in an empty database: unset seeds it on the embedded database only (a
  // trial), never into PostgreSQL; 1 seeds it there too, 0 nowhere.
  SEED_DEMO: z.enum(["0", "1"], { message: "must be 1 (seed the demo organisation) or 0 (never)" }).optional(),
  // The bearer token that GET /metrics asks for; unset: no metrics are served.
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  // Where mail goes (docs/mail.md): an smtp:// or smtps:// URL with its credentials, or `none` to keep
  // messages in the outbox (shown on the desk). Unset: kept and shown on the terminal too; required
  // in production on PostgreSQL.
  MAIL_URL: z
    .string()
    .regex(/^(smtps?:\/\/.+|none)$/, "must be an smtp:// or smtps:// URL, or none")
    .optional(),
  // The sender of every message: an address, or `Name <address>`.
  MAIL_FROM: z
    .string()
    .regex(/^([^<>]*<[^<>@\s]+@[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+)$/, "must be an e-mail address or Name <address>")
    .default("Sports Event Data <no-reply@localhost>"),
  // A message not accepted by the mail server is tried again after this, doubling up to 15 minutes, for a day.
  MAIL_RETRY_BASE_MS: positiveInt.max(3_600_000).default(30_000),
});

/** The streams' settings, from the configuration. */
export function streamSettings(config: Config) {
  return {
    pingSeconds: config.STREAM_PING_SECONDS,
    flushMs: config.STREAM_FLUSH_MS,
    bufferBytes: config.STREAM_BUFFER_BYTES,
    staleSeconds: config.STREAM_STALE_SECONDS,
    sessionStreams: config.SESSION_STREAMS,
  };
}

export type Config = z.infer<typeof configSchema>;

/** Every variable the configuration reads. */
export const CONFIG_VARIABLES = Object.keys(configSchema.shape);

export type Environment = Record<string, string | undefined>;

export type LogSettings = { LOG_FORMAT: "json" | "pretty"; LOG_LEVEL: Config["LOG_LEVEL"] };

/**
 * The logger's settings, read before anything else so that even a refused configuration is
 * logged: a bad value here falls back to the default, and loadConfig then refuses it by name.
 */
export function loadLogSettings(env: Environment = process.env): LogSettings {
  const schema = configSchema.pick({ NODE_ENV: true, LOG_FORMAT: true, LOG_LEVEL: true });
  const parsed = schema.safeParse({
    NODE_ENV: env.NODE_ENV || undefined,
    LOG_FORMAT: env.LOG_FORMAT || undefined,
    LOG_LEVEL: env.LOG_LEVEL || undefined,
  });
  const settings = parsed.success ? parsed.data : schema.parse({});
  return {
    LOG_FORMAT: settings.LOG_FORMAT ?? (settings.NODE_ENV === "development" ? "pretty" : "json"),
    LOG_LEVEL: settings.LOG_LEVEL,
  };
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

const SECRETS = ["FEED_TOKEN", "AUTH_SECRET", "METRICS_TOKEN"];

export function loadConfig(env: Environment = process.env): Config {
  // An empty variable means "not set", as in most shells and .env tooling.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ""));
  const parsed = configSchema.safeParse(present);
  if (parsed.success) {
    const { NODE_ENV, TRUST_PROXY_HOPS, NEXTAUTH_URL } = parsed.data;
    // Behind load balancers the address clients use is not the one the server sees: next-auth
    // would take it (and the session cookie's Secure flag) from forwarded headers, so it is given.
    if (NODE_ENV === "production" && TRUST_PROXY_HOPS > 0 && !NEXTAUTH_URL) {
      throw new ConfigError(
        'Invalid configuration:\n  NEXTAUTH_URL="": must be set in production behind load balancers ' +
          "(TRUST_PROXY_HOPS > 0): the console's public address, e.g. https://data.example.com",
      );
    }
    if (parsed.data.HISTORY_SECONDS < parsed.data.REVISION_RETENTION_SECONDS) {
      throw new ConfigError(
        `Invalid configuration:\n  HISTORY_SECONDS="${parsed.data.HISTORY_SECONDS}": must be at least ` +
          `REVISION_RETENTION_SECONDS (${parsed.data.REVISION_RETENTION_SECONDS}): the archive takes over from the recent table`,
      );
    }
    return parsed.data;
  }
  const lines = parsed.error.issues.map((issue) => {
    const name = issue.path.join(".");
    const value = env[name] ?? "";
    // A secret is never echoed, even a wrong one: it may be the right one for another service.
    const shown = SECRETS.includes(name)
      ? `(hidden, ${value.length} characters)`
      : JSON.stringify(name === "DATABASE_URL" || name === "MAIL_URL" ? withoutPassword(value) : value);
    return `  ${name}=${shown}: ${issue.message}`;
  });
  throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
}

/**
 * The rules for a server that starts (server.ts), beyond loadConfig's: the CLI and the tests' tools
 * read the same configuration and send no mail.
 */
export function checkServingConfig(config: Config): void {
  // A service on PostgreSQL serves people who cannot read its terminal: mail is sent, or kept on purpose.
  if (config.NODE_ENV === "production" && config.DATABASE_URL && !config.MAIL_URL) {
    throw new ConfigError(
      'Invalid configuration:\n  MAIL_URL="": must be set in production on PostgreSQL: an smtp:// or smtps:// URL ' +
        "(e.g. smtps://user:password@mail.example.com), or none to keep every message in the outbox on purpose",
    );
  }
  // Mailed links (a password reset's) must not take their address from a request's Host header,
  // which whoever asks for the link chooses.
  if (config.NODE_ENV === "production" && config.MAIL_URL?.startsWith("smtp") && !config.NEXTAUTH_URL) {
    throw new ConfigError(
      'Invalid configuration:\n  NEXTAUTH_URL="": must be set in production when MAIL_URL sends mail: ' +
        "mailed links start with it, e.g. https://data.example.com",
    );
  }
}

/**
 * A connection URL with its password replaced by `***`, for messages: a URL refused for its form
 * may still carry the right password. The password runs to the last `@` (an unencoded one, too).
 */
export function withoutPassword(url: string): string {
  return url.replace(/^([^:/?#]+:\/\/[^:@/?#]*:).*@/, "$1***@");
}
