import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.ts";

describe("configuration", () => {
  it("has a default for everything, so an empty environment starts on the embedded database", () => {
    expect(loadConfig({})).toEqual({
      NODE_ENV: "production",
      PORT: 3000,
      HOST: "0.0.0.0",
      DATABASE_POOL_SIZE: 10,
      DATA_DIR: ".data",
      SANDBOX_KEY_TTL_DAYS: 30,
      SIM: "on",
      SIM_SPEED: 1,
      SIM_SEED: 1,
      REVISION_RETENTION_SECONDS: 900,
      SANDBOX_DELAY_SECONDS: 60,
      API_ENTRY: "node",
      TRUST_PROXY_HOPS: 0,
      INVITATION_TTL_DAYS: 7,
      STREAM_PING_SECONDS: 15,
      STREAM_FLUSH_MS: 20,
      STREAM_BUFFER_BYTES: 262144,
      STREAM_STALE_SECONDS: 5,
      SESSION_STREAMS: 4,
      LOG_LEVEL: "info",
    });
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
});
