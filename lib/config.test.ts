import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { checkServingConfig, CONFIG_VARIABLES, ConfigError, loadConfig } from "./config.ts";
import { DatabaseUnavailableError, openDatabase } from "./db/index.ts";
import { loadEnvFiles } from "./env-files.ts";

describe("configuration", () => {
  it("has a default for everything, so an empty environment starts on the embedded database", () => {
    expect(loadConfig({})).toEqual({
      NODE_ENV: "production",
      PORT: 3000,
      HOST: "0.0.0.0",
      DATABASE_POOL_SIZE: 10,
      DATA_DIR: ".data",
      PGLITE_THREAD: "own",
      SANDBOX_KEY_TTL_DAYS: 30,
      SIM: "on",
      SIM_SPEED: 1,
      SIM_SEED: 1,
      TEST_CLOCK_OFFSET_SECONDS: 0,
      TEST_FAST_PASSWORD_HASH: "0",
      REVISION_RETENTION_SECONDS: 900,
      HISTORY_SECONDS: 7 * 86_400,
      SANDBOX_DELAY_SECONDS: 60,
      API_ENTRY: "node",
      TRUST_PROXY_HOPS: 0,
      HEADERS_TIMEOUT_SECONDS: 10,
      INVITATION_TTL_DAYS: 7,
      WEBHOOKS_ALLOW_PRIVATE: "0",
      SSO_ALLOW_PRIVATE: "0",
      WEBHOOKS_RETRY_BASE_MS: 30_000,
      STREAM_PING_SECONDS: 15,
      STREAM_FLUSH_MS: 20,
      STREAM_BUFFER_BYTES: 262144,
      STREAM_STALE_SECONDS: 5,
      SESSION_STREAMS: 4,
      LOG_LEVEL: "info",
      MAIL_FROM: "Sports Event Data <no-reply@localhost>",
      MAIL_RETRY_BASE_MS: 30_000,
    });
  });

  it("asks a server for MAIL_URL in production on PostgreSQL, where none is a choice made on purpose", () => {
    const serving = (env: Record<string, string>) => {
      const config = loadConfig(env);
      checkServingConfig(config);
      return config;
    };
    const postgres = { DATABASE_URL: "postgresql://u:p@db:5432/svc" };
    expect(() => serving(postgres)).toThrow(/MAIL_URL="": must be set in production on PostgreSQL/);
    // The CLI and the tests' tools read the same configuration and send nothing.
    expect(loadConfig(postgres).MAIL_URL).toBeUndefined();
    expect(serving({ ...postgres, MAIL_URL: "none" }).MAIL_URL).toBe("none");
    expect(serving({}).MAIL_URL).toBeUndefined();
    const sending = { ...postgres, MAIL_URL: "smtps://u:p@mail.example.com" };
    expect(() => serving(sending)).toThrow(/NEXTAUTH_URL="": must be set in production when MAIL_URL sends mail/);
    expect(serving({ ...sending, NEXTAUTH_URL: "https://data.example.com" }).MAIL_URL).toBe(
      "smtps://u:p@mail.example.com",
    );
    expect(serving({ ...postgres, NODE_ENV: "development" }).MAIL_URL).toBeUndefined();
    expect(() => loadConfig({ MAIL_URL: "http://u:s3cret@mail.example.com" })).toThrow(
      /MAIL_URL="http:\/\/u:\*\*\*@mail.example.com": must be an smtp/,
    );
    expect(() => loadConfig({ MAIL_FROM: "nobody" })).toThrow(/MAIL_FROM="nobody"/);
    expect(loadConfig({ MAIL_FROM: "Data <data@example.com>" }).MAIL_FROM).toBe("Data <data@example.com>");
  });

  it("asks for NEXTAUTH_URL in production behind load balancers", () => {
    expect(() => loadConfig({ TRUST_PROXY_HOPS: "1" })).toThrow(/NEXTAUTH_URL=.*must be set in production/);
    expect(loadConfig({ TRUST_PROXY_HOPS: "1", NEXTAUTH_URL: "https://data.example.com" }).TRUST_PROXY_HOPS).toBe(1);
    expect(loadConfig({ TRUST_PROXY_HOPS: "1", NODE_ENV: "development" }).TRUST_PROXY_HOPS).toBe(1);
  });

  it("checks the feed's settings", () => {
    expect(loadConfig({ SIM: "off", SIM_SPEED: "60", SIM_SEED: "42", FEED_TOKEN: "x".repeat(16) })).toMatchObject({
      SIM: "off",
      SIM_SPEED: 60,
      SIM_SEED: 42,
      FEED_TOKEN: "x".repeat(16),
    });
    expect(() => loadConfig({ SIM: "maybe" })).toThrow(/SIM="maybe": must be on or off/);
    expect(() => loadConfig({ SIM_SPEED: "0" })).toThrow(/SIM_SPEED="0"/);
    expect(() => loadConfig({ FEED_TOKEN: "short" })).toThrow(
      /FEED_TOKEN=\(hidden, 5 characters\): must be at least 16/,
    );
    expect(() => loadConfig({ REVISION_RETENTION_SECONDS: "60" })).toThrow(/REVISION_RETENTION_SECONDS="60"/);
  });

  it("checks the API's settings", () => {
    expect(loadConfig({ SANDBOX_DELAY_SECONDS: "5", API_ENTRY: "next" })).toMatchObject({
      SANDBOX_DELAY_SECONDS: 5,
      API_ENTRY: "next",
    });
    expect(() => loadConfig({ SANDBOX_DELAY_SECONDS: "0" })).toThrow(/SANDBOX_DELAY_SECONDS="0"/);
    expect(() => loadConfig({ API_ENTRY: "express" })).toThrow(/API_ENTRY="express": must be node or next/);
  });

  it("reads numbers and the PostgreSQL URL", () => {
    const config = loadConfig({
      PORT: "8080",
      DATABASE_URL: "postgresql://u:p@db:5432/svc",
      SANDBOX_KEY_TTL_DAYS: "7",
    });
    expect(config).toMatchObject({ PORT: 8080, DATABASE_URL: "postgresql://u:p@db:5432/svc", SANDBOX_KEY_TTL_DAYS: 7 });
  });

  it("never echoes the password of a refused DATABASE_URL", () => {
    const refused = () => loadConfig({ DATABASE_URL: "mysql://app:s3cret/pw@db:3306/svc" });
    expect(refused).toThrow(ConfigError);
    expect(refused).toThrow(/DATABASE_URL="mysql:\/\/app:\*\*\*@db:3306\/svc"/);
    expect(refused).not.toThrow(/s3cret/);
  });

  it("never echoes the password of a DATABASE_URL the PostgreSQL client cannot read", async () => {
    const config = loadConfig({ DATABASE_URL: "postgres://app:s3cret@[db/svc" });
    const opened = openDatabase(config);
    await expect(opened).rejects.toThrow(DatabaseUnavailableError);
    await expect(opened).rejects.toThrow(/app:\*\*\*@\[db\/svc/);
    await expect(opened).rejects.not.toThrow(/s3cret/);
  });

  it("treats an empty variable as unset", () => {
    const config = loadConfig({ DATABASE_URL: "", PORT: "" });
    expect(config.PORT).toBe(3000);
    expect(config.DATABASE_URL).toBeUndefined();
  });

  it("names every bad variable and its value in one message", () => {
    expect(() => loadConfig({ PORT: "70000", DATABASE_URL: "mysql://x", DATABASE_POOL_SIZE: "many" })).toThrow(
      ConfigError,
    );
    try {
      loadConfig({ PORT: "70000", DATABASE_URL: "mysql://x", DATABASE_POOL_SIZE: "many" });
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain('PORT="70000"');
      expect(message).toContain('DATABASE_URL="mysql://x": must be a postgres:// or postgresql:// connection URL');
      expect(message).toContain('DATABASE_POOL_SIZE="many"');
    }
  });

  it("reads no file, since pages import it: a read at a computed path makes Next's bundler trace the whole project", () => {
    const source = readFileSync(path.join(import.meta.dirname, "config.ts"), "utf8");
    expect(source).not.toMatch(/from "node:(fs|path)"/);
  });

  it("lists every variable in .env.example with its default, so the two cannot drift", () => {
    const example = readFileSync(path.join(import.meta.dirname, "..", ".env.example"), "utf8");
    const listed = new Map(
      [...example.matchAll(/^# ([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((match) => [match[1]!, match[2]!.trim()]),
    );
    expect([...listed.keys()].sort()).toEqual([...CONFIG_VARIABLES].sort());
    const defaults = loadConfig({}) as Record<string, unknown>;
    for (const name of CONFIG_VARIABLES) {
      const shown = listed.get(name);
      // LOG_FORMAT's default follows NODE_ENV; the example shows the production one.
      const expected = name === "LOG_FORMAT" ? "json" : defaults[name] === undefined ? "" : String(defaults[name]);
      expect(`${name}=${shown}`).toBe(`${name}=${expected}`);
    }
  });

  it("reads .env, then .env.local over it, with the real environment over both", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "env-files-"));
    writeFileSync(path.join(dir, ".env"), "PORT=4000\nSIM=off\nHOST=10.0.0.1\n# a comment\nSIM_SEED=7\n");
    writeFileSync(path.join(dir, ".env.local"), 'PORT=4001\nSIM_SPEED="60"\n');
    const env: Record<string, string | undefined> = { HOST: "127.0.0.1" };
    expect(loadEnvFiles(dir, env)).toEqual([".env", ".env.local"]);
    expect(loadConfig(env)).toMatchObject({ PORT: 4001, SIM: "off", HOST: "127.0.0.1", SIM_SEED: 7, SIM_SPEED: 60 });
    expect(loadEnvFiles(mkdtempSync(path.join(tmpdir(), "no-env-")), {})).toEqual([]);
  });
});
