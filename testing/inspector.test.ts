import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { heldAfterCollection, INSPECTOR_ATTACHED, inspectorCommand, inspectorOptions } from "./inspector.ts";
import { FILL_POOL_SCRIPT, v8PagesResident } from "./memory-map.ts";
import { freePort } from "./ports.ts";

// What the soak's collection at the end stands on (proof/soak-memory.ts): V8 keeps the pages a
// collection empties mapped and resident, and a memory-reducing collection asked through the
// inspector gives them back. Should a Node upgrade change either, this says so before the soak's
// report is read the old way.

// A process that fills V8's heap with a few hundred megabytes, drops them and takes a plain full
// collection (its pool then holds what they took), and waits.
const CHILD = `
${FILL_POOL_SCRIPT}
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

  it("reports what a process holds after the collection: its live heap and the Buffers it keeps", async () => {
    const port = await freePort();
    // 64 MB in one Buffer kept, 200,000 small objects kept, and as much again dropped.
    const child = spawn(
      process.execPath,
      [
        "-e",
        `const kept = { buffer: Buffer.alloc(64 * 2 ** 20, 1), objects: Array.from({ length: 200_000 }, (_, i) => ({ i })) };
         let dropped = Array.from({ length: 200_000 }, (_, i) => ({ i })); dropped = null;
         process.stdout.write("ready\\n"); setInterval(() => kept, 1000);`,
      ],
      { env: { ...process.env, NODE_OPTIONS: inspectorOptions(port) } },
    );
    try {
      await once(child.stdout, "data");
      const held = await heldAfterCollection(child.pid!, port);
      expect(held.external).toBeGreaterThanOrEqual(64 * 2 ** 20);
      expect(held.external).toBeLessThan(80 * 2 ** 20);
      // 200,000 objects of 16 to 32 bytes and their array: a few MB, within what a bare Node holds besides.
      expect(held.heapUsed).toBeGreaterThan(4 * 2 ** 20);
      expect(held.heapUsed).toBeLessThan(40 * 2 ** 20);
      expect(held.rss).toBeGreaterThan(held.external);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
