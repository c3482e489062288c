import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POSTGRES, useTestDatabase } from "../../testing/databases.ts";
import { freshDataDir } from "../../testing/data-dirs.ts";
import { startServer, type RunningServer } from "../../testing/processes.ts";
import { sql } from "drizzle-orm";
import { loadConfig } from "../../lib/config.ts";
import { openDatabase, rowsOf } from "../../lib/db/index.ts";

// What a new user sees at the first start and at the next: a few JSON lines and the demo sign-in on
// a line of its own, as the README shows it; and where the demo organisation is seeded at all.

// A start may take a while on a busy machine; what is checked is what it prints, not how fast.
const START = { readyWithinMs: 180_000 };
const TIMEOUT = 240_000;
const DEMO_LINE = /^Demo sign-in \(shown this once\): admin@demo\.example \/ ([0-9A-Za-z]{16})$/;
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

  it("prints the demo sign-in on a line of its own, outside the JSON log, and nowhere else", () => {
    const demo = firstLines.filter((line) => line.includes("Demo sign-in"));
    expect(demo).toHaveLength(1);
    const password = DEMO_LINE.exec(demo[0]!)?.[1];
    expect(password, demo[0]).toBeDefined();
    expect(firstLines.filter((line) => line.includes(password!))).toEqual(demo);
  });

  it("writes every other line as JSON without terminal colour codes", () => {
    for (const line of firstLines) {
      if (DEMO_LINE.test(line)) continue;
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
        expect(lines.some((line) => line.includes("Demo sign-in: admin@demo.example (password printed"))).toBe(true);
        expect(again.output()).not.toMatch(/shown this once/);
        expect(again.output()).not.toMatch(/out of order|refused/);
        for (const line of lines) JSON.parse(line);
      } finally {
        await again.stop();
      }
    },
    2 * TIMEOUT,
  );
});

describe("where the demo organisation is seeded", () => {
  it(
    "not on the embedded database when SEED_DEMO=0",
    async () => {
      const env = { DATA_DIR: freshDataDir(), SEED_DEMO: "0" };
      const server = await startServer(env, START);
      await server.stop();
      expect(server.output()).not.toMatch(/Demo sign-in/);
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
      expect(server.output()).not.toMatch(/Demo sign-in/);
      expect(await organisations(env)).toBe(0);
    },
    TIMEOUT,
  );

  it(
    "is seeded with SEED_DEMO=1",
    async () => {
      const server = await startServer({ ...database().env, SEED_DEMO: "1" }, START);
      await server.stop();
      expect(server.output()).toMatch(/^Demo sign-in \(shown this once\): admin@demo\.example \/ /m);
    },
    TIMEOUT,
  );
});
