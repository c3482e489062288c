import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { INSPECTOR_ATTACHED, inspectorCommand, inspectorOptions } from "./inspector.ts";
import { FILL_POOL_SCRIPT, v8PagesResident } from "./memory-map.ts";
import { freePort } from "./ports.ts";

// What the soak's collection at the end stands on (proof/soak-memory.ts): V8 keeps the pages a
// collection empties mapped and resident, and a memory-reducing collection asked through the
// inspector gives them back. Should a Node upgrade change either, this says so before the soak's
// report is read the old way.

// A process whose V8 pool holds a few hundred megabytes, waiting.
const CHILD = `${FILL_POOL_SCRIPT}
process.stdout.write("collected\\n");
setInterval(() => {}, 1000);
`;

describe.skipIf(process.platform !== "linux")("a process's inspector, opened later", () => {
  it("is opened by SIGUSR1 with one line on standard error, and its memory-reducing collection empties V8's pool of pages", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ["--expose-gc", "-e", CHILD], {
      env: { ...process.env, NODE_OPTIONS: inspectorOptions(port) },
    });
    try {
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const [first] = (await once(child.stdout, "data")) as [Buffer];
      expect(first.toString()).toBe("collected\n");
      const held = v8PagesResident(child.pid!);
      // The garbage is gone from V8's heap, its pages not from the process: over 100 MB still resident.
      expect(held).toBeGreaterThan(100 * 2 ** 20);

      await inspectorCommand(child.pid!, port, "HeapProfiler.collectGarbage");
      const after = v8PagesResident(child.pid!);
      expect(after).toBeLessThan(held / 4);
      // The only line: none on opening (the address is published over HTTP), one on attaching.
      expect(stderr).toBe(INSPECTOR_ATTACHED);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
