import { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../lib/db/index.ts";
import { loadConfig } from "../../lib/config.ts";
import { listOrganisations } from "../../lib/accounts/organisations.ts";
import { freshDataDir } from "../../testing/data-dirs.ts";
import { freePort } from "../../testing/ports.ts";
import { runNode, startServer } from "../../testing/processes.ts";

// A .env file in the folder the service runs in configures `npm start` and `npm run admin` alike.
// The folder is a copy of the project made of links, so the project's own folder gets no .env.

describe("configuration from .env", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "svc-env-"));
  const dataDir = freshDataDir();
  let port = 0;
  // Made once, so that a second try of the test finds the folder as the first did.
  beforeAll(async () => {
    for (const entry of readdirSync(".")) {
      if (entry.startsWith(".env") || entry === ".data") continue;
      symlinkSync(path.resolve(entry), path.join(folder, entry));
    }
    port = await freePort();
    writeFileSync(path.join(folder, ".env"), `PORT=1\nHOST=127.0.0.1\nDATA_DIR=${dataDir}\n`);
    // .env.local wins over .env.
    writeFileSync(path.join(folder, ".env.local"), `PORT=${port}\n`);
  });
  afterAll(() => {
    rmSync(folder, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("sets the port of npm start and the database of npm run admin", async ({ task }) => {
    // A slug of this try's own: a first try may have created its organisation before it failed.
    const slug = `from-env-${task.result?.retryCount ?? 0}`;
    const created = await runNode(
      "scripts/admin.ts",
      ["org", "create", "--name", "Configured by file", "--slug", slug, "--json"],
      {},
      120_000, // the CLI's bound everywhere else (testing/processes.ts): a loaded machine took over 30 s
      folder,
    );
    expect(created.code, created.stderr).toBe(0);
    const handle = await openDatabase(loadConfig({ DATA_DIR: dataDir }));
    try {
      expect((await listOrganisations(handle.db)).map((org) => org.slug)).toContain(slug);
    } finally {
      await handle.close();
    }

    const server = await startServer({}, { entry: "scripts/start.ts", cwd: folder, address: "from-config" });
    try {
      expect(server.url).toBe(`http://127.0.0.1:${port}`);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect(server.output()).toContain(`embedded PGlite in ${dataDir}`);
      expect(server.output()).toContain("Configuration: the environment, then .env and .env.local");
    } finally {
      await server.stop();
    }
  });
});
