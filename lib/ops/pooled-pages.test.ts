import { spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { FILL_POOL_SCRIPT, v8PagesResident } from "../../testing/memory-map.ts";

// The server's collection after start-up (server.ts): V8's pooled pages given back by a session
// of the process's own, with no port opened and nothing written to standard error.

const moduleUrl = pathToFileURL(path.join(import.meta.dirname, "pooled-pages.ts")).href;
const CHILD = `
import { releasePooledPages } from ${JSON.stringify(moduleUrl)};
${FILL_POOL_SCRIPT}
process.stdout.write("collected\\n");
process.stdin.once("data", async () => {
  const released = await releasePooledPages();
  process.stdout.write(released ? JSON.stringify(released) + "\\n" : "no inspector\\n");
});
`;

describe.skipIf(process.platform !== "linux")("V8's pooled pages after start-up", () => {
  it("are given back by releasePooledPages, from inside the process", async () => {
    const child = spawn(process.execPath, ["--expose-gc", "--input-type=module", "-e", CHILD]);
    try {
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const [first] = (await once(child.stdout, "data")) as [Buffer];
      expect(first.toString(), stderr).toBe("collected\n");
      const held = v8PagesResident(child.pid!);
      expect(held).toBeGreaterThan(100 * 2 ** 20);

      child.stdin.write("go\n");
      const [second] = (await once(child.stdout, "data")) as [Buffer];
      const released = JSON.parse(second.toString()) as { rssBefore: number; rssAfter: number; ms: number };
      expect(v8PagesResident(child.pid!)).toBeLessThan(held / 4);
      // What it says it gave back is what the process's mappings show.
      expect(released.rssBefore - released.rssAfter).toBeGreaterThan((held * 3) / 4 - 16 * 2 ** 20);
      expect(released.ms).toBeGreaterThan(0);
      expect(stderr).toBe("");
    } finally {
      child.kill("SIGKILL");
    }
  });
});
