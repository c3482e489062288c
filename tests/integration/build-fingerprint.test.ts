import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FINGERPRINT_FILE, sourceFingerprint } from "../../scripts/build-fingerprint.ts";
import { freshDataDir } from "../../testing/data-dirs.ts";
import { startServer } from "../../testing/processes.ts";

// `npm start` after a `git pull` that changed a page: it must build again before serving, and
// must not build when nothing the build reads changed. Done in a clone of the project's last commit.

// A whole build of its own: in `npm run test:long`, listed as skipped in `npm test`.
describe.skipIf(process.env.TEST_LONG !== "1")(
  "npm start and a build that is out of date (in npm run test:long)",
  () => {
    const clone = mkdtempSync(path.join(tmpdir(), "svc-clone-"));
    const dataDir = freshDataDir();
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], { cwd: clone });
    afterAll(() => {
      rmSync(clone, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    });

    it("serves the build it has while the sources match it, and builds again once a page changed", async () => {
      execFileSync("git", ["clone", "--quiet", path.resolve("."), clone]);
      // The project's installed packages, as hard links: Next's build does not follow a linked folder.
      execFileSync("cp", ["-al", path.resolve("node_modules"), path.join(clone, "node_modules")]);
      // Stands for a build made from this commit (the project's own build, without its cache).
      cpSync(".next", path.join(clone, ".next"), { recursive: true, filter: (from) => !from.includes(".next/cache") });
      writeFileSync(path.join(clone, FINGERPRINT_FILE), `${sourceFingerprint(clone)}\n`);
      const start = (readyWithinMs: number) =>
        startServer(
          { DATA_DIR: dataDir },
          { entry: path.join(clone, "scripts/start.ts"), cwd: clone, readyWithinMs, checkLogs: false },
        );

      // Docs, tests and benchmarks are not what the pages are built from.
      writeFileSync(path.join(clone, "README.md"), "A change the build does not read.\n");
      git("commit", "--quiet", "-am", "Only the README changes");
      const unchanged = await start(60_000);
      expect(unchanged.output()).not.toMatch(/building/);
      await unchanged.stop();

      const page = path.join(clone, "app/page.tsx");
      writeFileSync(
        page,
        readFileSync(page, "utf8").replace("Live sports data over one clean API", "Rebuilt after a pull"),
      );
      git("commit", "--quiet", "-am", "The home page says something new");
      const changed = await start(300_000);
      try {
        expect(changed.output()).toContain("The sources changed since the last build: building again");
        expect(await (await fetch(changed.url)).text()).toContain("Rebuilt after a pull");
      } finally {
        await changed.stop();
      }
    }, 420_000);
  },
);
