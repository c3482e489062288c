import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../config.ts";
import { authSecret } from "./secret.ts";

describe("the session secret", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const dataDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), "svc-secret-"));
    dirs.push(dir);
    return path.join(dir, "data");
  };

  it("is AUTH_SECRET when set", () => {
    const secret = "s".repeat(40);
    expect(authSecret(loadConfig({ AUTH_SECRET: secret, DATA_DIR: dataDir() }))).toBe(secret);
  });

  it("is generated once into DATA_DIR when unset, readable by its owner only, and the same on every start", () => {
    const dir = dataDir();
    const first = authSecret(loadConfig({ DATA_DIR: dir }));
    expect(first.length).toBeGreaterThanOrEqual(40);
    expect(readFileSync(path.join(dir, "auth-secret"), "utf8")).toBe(first);
    expect(statSync(path.join(dir, "auth-secret")).mode & 0o077).toBe(0);
    expect(authSecret(loadConfig({ DATA_DIR: dir }))).toBe(first);
    expect(authSecret(loadConfig({ DATA_DIR: dataDir() }))).not.toBe(first);
  });

  it("refuses a short AUTH_SECRET at start-up", () => {
    expect(() => loadConfig({ AUTH_SECRET: "short" })).toThrow(/AUTH_SECRET/);
  });
});
