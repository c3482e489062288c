import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectedMigrationCount } from "../../lib/db/index.ts";
import { describeEachBackend, POSTGRES, useTestDatabase } from "../../testing/databases.ts";
import { freshDataDir, migratedDataDir } from "../../testing/data-dirs.ts";
import { demoSignIn, operatorSignIn, signInsFile } from "../../testing/console.ts";
import { admin, startServer, runNode, type RunningServer } from "../../testing/processes.ts";
import { rawExchange, requestHead } from "../../testing/raw-http.ts";
import { tcpProxy } from "../../testing/tcp-proxy.ts";

describeEachBackend("the server on $name", (backend) => {
  const database = useTestDatabase(backend);
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer({ ...database().env, SEED_DEMO: "1", HEADERS_TIMEOUT_SECONDS: "1" });
  });
  afterAll(() => server?.stop());

  it("closes a connection whose headers trickle in for longer than HEADERS_TIMEOUT_SECONDS", async () => {
    const { hostname, port } = new URL(server.url);
    const socket = connect(Number(port), hostname);
    socket.on("error", () => {});
    let received = "";
    socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
    const started = Date.now();
    const request = Buffer.from(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\nX-Slow: ${"a".repeat(200)}`);
    let sent = 0;
    // One byte every 50 ms: the request's headers would take 12 s to arrive.
    const trickle = setInterval(() => {
      if (!socket.destroyed && sent < request.length) socket.write(request.subarray(sent, ++sent));
    }, 50);
    const closedAfter = await new Promise<number>((resolve) => {
      socket.on("close", () => resolve(Date.now() - started));
      setTimeout(() => resolve(Infinity), 8_000);
    });
    clearInterval(trickle);
    socket.destroy();
    expect(closedAfter).toBeLessThan(3_500);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("answers a request for the server as a whole (target `*`) as HTTP says, never 500", async () => {
    const exchange = (method: string) =>
      rawExchange(
        server.url,
        (s) =>
          void s.write(
            requestHead(method, "*", [
              ["Host", "localhost"],
              ["Connection", "close"],
            ]),
          ),
        10_000,
      );
    const options = await exchange("OPTIONS");
    expect(options.status).toBe(204);
    expect(options.head).toMatch(/^allow: GET, HEAD, POST, OPTIONS$/im);
    expect(options.body.length).toBe(0);
    for (const method of ["GET", "HEAD", "POST", "DELETE"]) {
      const answer = await exchange(method);
      expect(answer.status, method).toBe(400);
      expect(answer.head).toMatch(/^content-type: application\/problem\+json$/im);
      if (method !== "HEAD") {
        expect(JSON.parse(answer.body.toString()), method).toMatchObject({
          status: 400,
          code: "invalid_request_target",
        });
      }
    }
  });

  it("answers a method a page or an endpoint is not served with 405 and Allow, never 500 or the page", async () => {
    const send = (method: string, target: string) =>
      rawExchange(
        server.url,
        (s) =>
          void s.write(
            requestHead(method, target, [
              ["Host", "localhost"],
              ["Connection", "close"],
            ]),
          ),
        10_000,
      );
    for (const [method, target] of [
      ["TRACE", "/"],
      ["TRACE", "/console"],
      ["PUT", "/status"],
      ["DELETE", "/docs/quickstart"],
      ["PATCH", "/board"],
      ["PROPFIND", "/"],
      ["TRACE", "/no-such-page"],
    ] as const) {
      const answer = await send(method, target);
      expect(answer.status, `${method} ${target}`).toBe(405);
      expect(answer.head, `${method} ${target}`).toMatch(/^allow: GET, HEAD, POST, OPTIONS$/im);
      expect(JSON.parse(answer.body.toString()), `${method} ${target}`).toMatchObject({
        status: 405,
        code: "method_not_allowed",
      });
    }
    for (const target of ["/status.json", "/healthz", "/readyz"]) {
      const answer = await send("POST", target);
      expect(answer.status, `POST ${target}`).toBe(405);
      expect(answer.head, target).toMatch(/^allow: GET, HEAD, OPTIONS$/im);
    }
    const ingest = await send("GET", "/api/feed/v1/updates");
    expect(ingest.status).toBe(405);
    expect(ingest.head).toMatch(/^allow: POST, OPTIONS$/im);
    const options = await send("OPTIONS", "/console");
    expect(options.status).toBe(204);
    expect(options.head).toMatch(/^allow: GET, HEAD, POST, OPTIONS$/im);
    // The API answers its own, as before; the pages still are what they were.
    const api = await send("TRACE", "/api/v1/events");
    expect(api.status).toBe(405);
    expect(api.head).toMatch(/^allow: GET, HEAD$/im);
    expect((await fetch(`${server.url}/status`)).status).toBe(200);
    expect((await fetch(`${server.url}/status`, { method: "HEAD" })).status).toBe(200);
  });

  it("answers /healthz uncached, and HEAD without a body", async () => {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.json()).toEqual({ status: "ok" });
    const head = await fetch(`${server.url}/healthz`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("is ready once the database is reachable and migrated", async () => {
    const res = await fetch(`${server.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: "ready",
      database: backend.name,
      migrations: { applied: expectedMigrationCount(), expected: expectedMigrationCount() },
    });
  });

  it("serves the home page linking the console, the board and the API reference", async () => {
    const res = await fetch(server.url);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Live sports data over one clean API");
    for (const href of ["/console", "/board", "/docs"]) {
      expect(html).toContain(`href="${href}"`);
      expect((await fetch(`${server.url}${href}`)).status).toBe(200);
    }
    expect((await fetch(`${server.url}/no-such-page`)).status).toBe(404);
  });

  it("warns that it hashes passwords at a test's cost, as the test databases ask (TEST_FAST_PASSWORD_HASH)", () => {
    expect(database().env.TEST_FAST_PASSWORD_HASH).toBe("1");
    expect(server.output()).toMatch(/"level":"warn".*hashed at a test's cost \(TEST_FAST_PASSWORD_HASH\)/);
  });

  it("showed the demo and operator sign-ins once at the first start, out of the log", () => {
    expect(demoSignIn(server.output()).password).toMatch(/^[0-9A-Za-z]{16}$/);
    expect(operatorSignIn(server.output()).password).toMatch(/^[0-9A-Za-z]{20}$/);
    expect(server.output()).not.toMatch(/shown this once/);
  });

  it("keeps its data across a stop and a start", async () => {
    expect(await server.stop("SIGTERM")).toBe(0);
    // With the server stopped, even the embedded database is free for the CLI.
    const before = await admin<{ id: string }[]>(["org", "list"], database().env);
    server = await startServer({ ...database().env, SEED_DEMO: "1" });
    expect(server.output()).toMatch(/Demo sign-in: admin@demo\.example \(password shown at first start/);
    expect(server.output()).not.toMatch(/One-time sign-ins/);
    await server.stop();
    const after = await admin<{ id: string }[]>(["org", "list"], database().env);
    expect(after).toEqual(before);
    expect(after).toHaveLength(1);
    server = await startServer({ ...database().env, SEED_DEMO: "1" });
  });
});

describe("the embedded database's guard", () => {
  let dataDir: string;
  let server: RunningServer;
  beforeAll(async () => {
    dataDir = migratedDataDir();
    server = await startServer({ DATA_DIR: dataDir });
  });
  afterAll(() => server?.stop());

  it("hashes passwords at OWASP's cost unless told otherwise, and says nothing of it", () => {
    expect(server.output()).toMatch(/Ready on http/);
    expect(server.output()).not.toMatch(/TEST_FAST_PASSWORD_HASH/);
  });

  it("refuses a second process on the same data folder with a clear message", async () => {
    const second = await runNode("server.ts", [], { DATA_DIR: dataDir, PORT: "0" });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`The embedded database in ${dataDir} is in use by process ${server.process.pid}`);
    expect(second.stderr).toContain("set DATABASE_URL");
    // The CLI is not refused: its command is sent to the server (tests/integration/admin-channel.test.ts).
    const cli = await runNode("scripts/admin.ts", ["org", "list"], { DATA_DIR: dataDir });
    expect(cli.code).toBe(0);
    expect(cli.stderr).toContain(`sent to the running instance, pid ${server.process.pid}`);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it("takes over the lock of a process that was killed", async () => {
    const lock = path.join(dataDir, "pglite.lock");
    expect(readFileSync(lock, "utf8")).toBe(String(server.process.pid));
    await server.stop("SIGKILL");
    expect(existsSync(lock)).toBe(true);
    server = await startServer({ DATA_DIR: dataDir });
    expect(readFileSync(lock, "utf8")).toBe(String(server.process.pid));
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it("releases the lock when it stops", async () => {
    expect(await server.stop("SIGTERM")).toBe(0);
    expect(existsSync(path.join(dataDir, "pglite.lock"))).toBe(false);
  });

  it("treats a lock naming a process that does not exist as stale", async () => {
    writeFileSync(path.join(dataDir, "pglite.lock"), "999999999");
    server = await startServer({ DATA_DIR: dataDir });
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });
});

describe("configuration", () => {
  it.each([
    [{ PORT: "eighty" }, /PORT="eighty": /],
    [{ DATABASE_URL: "mysql://localhost/db" }, /DATABASE_URL="mysql:\/\/localhost\/db": must be a postgres:\/\//],
    [{ SANDBOX_KEY_TTL_DAYS: "0" }, /SANDBOX_KEY_TTL_DAYS="0": /],
  ])("refuses to start with %j and says which variable is wrong", async (env, message) => {
    const result = await runNode("server.ts", [], { DATA_DIR: freshDataDir(), ...env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Invalid configuration:/);
    expect(result.stderr).toMatch(message);
  });
});

describe.runIf(POSTGRES)("several instances on one PostgreSQL database", () => {
  const database = useTestDatabase(POSTGRES!);
  let servers: RunningServer[] = [];
  afterAll(() => Promise.all(servers.map((s) => s.stop())));

  it("brings up two instances started at the same moment on a fresh database", async () => {
    const env = { ...database().env, SEED_DEMO: "1" };
    servers = await Promise.all([startServer(env), startServer(env)]);
    for (const server of servers) {
      const res = await fetch(`${server.url}/readyz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: "ready", database: "postgres" });
    }
    // One of them seeded the demo organisation; the other found it there.
    const firstStarts = servers.filter((s) => signInsFile(s.output()) !== null);
    expect(firstStarts).toHaveLength(1);
    expect(await admin<unknown[]>(["org", "list"], database().env)).toHaveLength(1);
  });
});

describe.runIf(POSTGRES)("a PostgreSQL that goes away under a running server", () => {
  const database = useTestDatabase(POSTGRES!);

  it("answers /healthz without the database, while /readyz says it is unreachable", async () => {
    const url = new URL(database().env.DATABASE_URL!);
    const proxy = await tcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.hostname = "127.0.0.1";
    url.port = String(proxy.port);
    const server = await startServer({ ...database().env, DATABASE_URL: url.toString() });
    try {
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      await proxy.cut();
      // Readiness is checked at most once a second: asked until the cut shows.
      await expect
        .poll(async () => (await fetch(`${server.url}/readyz`)).status, { timeout: 20_000, interval: 100 })
        .toBe(503);
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: "database_unreachable" });
      for (const method of ["GET", "HEAD"]) {
        const health = await fetch(`${server.url}/healthz`, { method });
        expect(health.status, method).toBe(200);
        if (method === "GET") expect(await health.json()).toEqual({ status: "ok" });
      }
    } finally {
      await server.stop();
      await proxy.close();
    }
  });
});

describe("an unreachable PostgreSQL", () => {
  it("stops the server and the CLI with one line naming the database, and no credentials", async () => {
    // Port 9 (discard) has no PostgreSQL behind it on a test machine.
    const env = { DATABASE_URL: "postgres://svc:secret-password@127.0.0.1:9/sports" };
    for (const result of [
      await runNode("server.ts", [], env),
      await runNode("scripts/admin.ts", ["org", "list"], env),
    ]) {
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^Cannot reach PostgreSQL at postgres:\/\/127\.0\.0\.1:9\/sports: /);
      expect(result.stderr).not.toContain("secret-password");
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
