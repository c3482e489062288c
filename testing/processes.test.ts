import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, test } from "vitest";
import { startProcess } from "./processes.ts";

const dir = mkdtempSync(path.join(os.tmpdir(), "processes-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("keeps the first 64 MB of a process's output and says how much more it wrote", async () => {
  // A server under a benchmark's load logs each request: minutes of it outgrew a string.
  const entry = path.join(dir, "loud.ts");
  writeFileSync(
    entry,
    `const line = "x".repeat(1023) + "\\n";
     const mb = line.repeat(1024);
     process.stdout.write("ready\\n");
     for (let i = 0; i < 80; i++) process.stdout.write(mb);`,
  );
  const child = startProcess(entry, { env: {}, ready: /^ready$/m });
  await child.ready;
  expect(await child.exited).toBe(0);
  const output = child.output();
  const kept = output.slice(0, output.lastIndexOf("\n["));
  expect(kept.startsWith("ready\n")).toBe(true);
  expect(kept.length).toBeGreaterThanOrEqual(64 * 1024 * 1024);
  expect(kept.length).toBeLessThan(65 * 1024 * 1024);
  const [, more] = /\[(\d+) more bytes of output not kept\]$/.exec(output)!;
  expect(kept.length + Number(more)).toBe(6 + 80 * 1024 * 1024);
});

test("writes a process's output to a file whole when asked, and finds its ready line there", async () => {
  const entry = path.join(dir, "to-file.ts");
  writeFileSync(
    entry,
    `setTimeout(() => console.log("listening on 4321"), 300);
     setTimeout(() => { console.error("a line on stderr"); process.exit(0); }, 600);`,
  );
  const file = path.join(dir, "to-file.log");
  const child = startProcess(entry, { env: {}, ready: /listening on (\d+)/, outputFile: file });
  expect((await child.ready)[1]).toBe("4321");
  expect(await child.exited).toBe(0);
  expect(child.output()).toBe("listening on 4321\na line on stderr\n");
});

test("with an output file, rejects with what the process wrote when it ends before it is ready", async () => {
  const entry = path.join(dir, "fails.ts");
  writeFileSync(entry, `console.error("no database"); process.exit(3);`);
  const child = startProcess(entry, { env: {}, ready: /listening/, outputFile: path.join(dir, "fails.log") });
  await expect(child.ready).rejects.toThrow(/exited with 3 before it was ready:\nno database/);
});
