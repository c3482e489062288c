import { closeSync, existsSync, openSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoSignIn, operatorSignIn, signIn, signInsFile } from "../../testing/console.ts";
import { POSTGRES, useTestDatabase } from "../../testing/databases.ts";
import { freshDataDir } from "../../testing/data-dirs.ts";
import { recordServerOutput } from "../../testing/logs.ts";
import { startInOwnGroup, startOnTerminal, startServer, type RunningServer } from "../../testing/processes.ts";
import { sql } from "drizzle-orm";
import { loadConfig } from "../../lib/config.ts";
import { openDatabase, rowsOf } from "../../lib/db/index.ts";

// What a new user sees at the first start and at the next: a few JSON lines, and the demo and
// operator sign-ins shown once: on a terminal there, as the README shows it; otherwise (a file, a
// pipe, a log collector) in a file only the user can read, named in the log. And where the demo
// organisation is seeded at all.

// A start may take a while on a busy machine; what is checked is what it prints, not how fast.
const START = { readyWithinMs: 180_000 };
const TIMEOUT = 240_000;
const SIGN_INS =
  /^Demo sign-in \(shown this once\): admin@demo\.example \/ ([0-9A-Za-z]{16})\nOperator sign-in \(shown this once\): operator@demo\.example \/ ([0-9A-Za-z]{20})\n$/;
const ESCAPE = "\u001b";

/** Organisations in the database of `env` (the server stopped: PGlite is one process's alone). */
async function organisations(env: Record<string, string>): Promise<number> {
  const handle = await openDatabase(loadConfig(env));
  try {
    return rowsOf<{ n: number }>(await handle.db.execute(sql`select count(*)::int as n from organisations`))[0]!.n;
  } finally {
    await handle.close();
  }
}

function linesOf(server: RunningServer): string[] {
  return server
    .output()
    .split("\n")
    .filter((line) => line.trim() !== "");
}

describe("the first start and a restart on the embedded database", () => {
  const dataDir = freshDataDir();
  let first: RunningServer;
  let firstLines: string[];

  beforeAll(async () => {
    // A colour terminal, as `npm start` in a shell: Next colours what it prints.
    first = await startServer({ DATA_DIR: dataDir, SIM: "on", FORCE_COLOR: "1" }, START);
    firstLines = linesOf(first);
  }, TIMEOUT);
  afterAll(() => first?.stop());

  it("writes the demo and operator sign-ins to a file only its user can read, and logs only where it is", async () => {
    const file = signInsFile(first.output());
    expect(file).toBe(path.join(dataDir, "sign-ins.txt"));
    expect(statSync(file!).mode & 0o777).toBe(0o600);
    const [, demo, operator] = SIGN_INS.exec(readFileSync(file!, "utf8")) ?? [];
    expect(demo).toBeDefined();
    for (const password of [demo!, operator!]) expect(first.output()).not.toContain(password);
    expect(first.output()).not.toMatch(/shown this once/);
    // Both sign in; the operator's is an account of its own.
    for (const account of [demoSignIn(first.output()), operatorSignIn(first.output())]) {
      expect((await signIn(first.url, account.email, account.password)).session).not.toBeNull();
    }
  });

  it("writes every line as JSON without terminal colour codes", () => {
    for (const line of firstLines) {
      expect(line).not.toContain(ESCAPE);
      const entry = JSON.parse(line) as Record<string, unknown>;
      expect(JSON.stringify(Object.values(entry)), line).not.toContain("\\u001b");
      expect(String(entry.msg), line).not.toContain(ESCAPE);
    }
  });

  it("says nothing of telemetry", () => {
    expect(first.output()).not.toMatch(/telemetry/i);
  });

  it(
    "restarts without the password, and without calling its replay of the feed refused updates",
    async () => {
      expect(await first.stop()).toBe(0);
      const again = await startServer({ DATA_DIR: dataDir, SIM: "on" }, START);
      try {
        // The first tick of the simulator is reported once it has run, shortly after the start.
        await expect.poll(() => again.output(), { timeout: TIMEOUT }).toMatch(/Simulator: \d+ events followed/);
        const lines = linesOf(again);
        expect(lines.some((line) => line.includes("Demo sign-in: admin@demo.example (password shown"))).toBe(true);
        expect(lines.some((line) => line.includes("Operator sign-in: operator@demo.example (password shown"))).toBe(
          true,
        );
        expect(again.output()).not.toMatch(/shown this once|One-time sign-ins/);
        expect(again.output()).not.toMatch(/out of order|refused/);
        for (const line of lines) JSON.parse(line);
      } finally {
        await again.stop();
      }
    },
    2 * TIMEOUT,
  );
});

describe("one-time sign-ins and where standard output goes", () => {
  it(
    "a file (`npm start > file`): no sign-in in it, and the file of sign-ins beside the database",
    async () => {
      const dataDir = freshDataDir();
      const logFile = path.join(dataDir, "..", `${path.basename(dataDir)}.log`);
      const fd = openSync(logFile, "w");
      const read = () => readFileSync(logFile, "utf8");
      recordServerOutput(read);
      const server = await startInOwnGroup(
        process.execPath,
        ["server.ts"],
        { DATA_DIR: dataDir },
        {
          ...START,
          stdout: fd,
          read,
        },
      );
      closeSync(fd);
      await server.stop();
      const log = read();
      const shown = readFileSync(path.join(dataDir, "sign-ins.txt"), "utf8");
      const [, demo, operator] = SIGN_INS.exec(shown) ?? [];
      expect(operator, shown).toBeDefined();
      expect(log).not.toContain(demo!);
      expect(log).not.toContain(operator!);
      expect(log).not.toMatch(/sign-in \(shown this once\)/);
      expect(log).toContain(`One-time sign-ins written to ${path.join(dataDir, "sign-ins.txt")}`);
    },
    TIMEOUT,
  );

  it(
    "a terminal: both sign-ins printed there, and no file written",
    async () => {
      const dataDir = freshDataDir();
      // `script` gives the server a terminal of its own, as a shell's `npm start` has.
      const server = await startOnTerminal({ DATA_DIR: dataDir }, START.readyWithinMs);
      await server.stop();
      const output = server.output();
      const lines = output.replaceAll("\r", "").split("\n");
      expect(
        lines.filter((line) => /^Demo sign-in \(shown this once\): admin@demo\.example \/ [0-9A-Za-z]{16}$/.test(line)),
      ).toHaveLength(1);
      expect(
        lines.filter((line) =>
          /^Operator sign-in \(shown this once\): operator@demo\.example \/ [0-9A-Za-z]{20}$/.test(line),
        ),
      ).toHaveLength(1);
      expect(existsSync(path.join(dataDir, "sign-ins.txt"))).toBe(false);
    },
    TIMEOUT,
  );
});

describe("where the demo organisation is seeded", () => {
  it(
    "not on the embedded database when SEED_DEMO=0",
    async () => {
      const env = { DATA_DIR: freshDataDir(), SEED_DEMO: "0" };
      const server = await startServer(env, START);
      await server.stop();
      expect(server.output()).not.toMatch(/Demo sign-in|One-time sign-ins/);
      expect(await organisations(env)).toBe(0);
    },
    TIMEOUT,
  );
});

describe.runIf(POSTGRES)("the demo organisation on PostgreSQL", () => {
  const database = useTestDatabase(POSTGRES!);

  it(
    "is not seeded into an empty production database unless asked",
    async () => {
      const env = { ...database().env, SEED_DEMO: "" };
      const server = await startServer(env, START);
      await server.stop();
      expect(server.output()).not.toMatch(/Demo sign-in|One-time sign-ins/);
      expect(await organisations(env)).toBe(0);
    },
    TIMEOUT,
  );

  it(
    "is seeded with SEED_DEMO=1",
    async () => {
      const dataDir = freshDataDir();
      const server = await startServer({ ...database().env, SEED_DEMO: "1", DATA_DIR: dataDir }, START);
      await server.stop();
      expect(signInsFile(server.output())).toBe(path.join(dataDir, "sign-ins.txt"));
      expect(demoSignIn(server.output()).email).toBe("admin@demo.example");
      expect(operatorSignIn(server.output()).email).toBe("operator@demo.example");
    },
    TIMEOUT,
  );
});
