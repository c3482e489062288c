import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { importCycles, importGraph } from "./import-cycles.ts";

describe("import cycles", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "cycles-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("lib has none, type-only imports included", () => {
    const cycles = importCycles(importGraph(path.resolve("lib")));
    expect(cycles.map((cycle) => cycle.map((file) => path.relative(process.cwd(), file)))).toEqual([]);
  });

  it("finds a cycle closed by a type-only import, through the @/ alias and an index", () => {
    const root = path.join(dir, "lib");
    mkdirSync(path.join(root, "log"), { recursive: true });
    writeFileSync(path.join(root, "log", "index.ts"), 'import { cell } from "../slot.ts";\nexport const log = cell;\n');
    writeFileSync(
      path.join(root, "slot.ts"),
      'import type { Instance } from "@/lib/instance";\nexport const cell = {};\n',
    );
    writeFileSync(path.join(root, "instance.ts"), 'import { log } from "./log";\nexport type Instance = typeof log;\n');
    writeFileSync(path.join(root, "leaf.ts"), "export const leaf = 1;\n");
    const cycles = importCycles(importGraph(root));
    expect(cycles.map((cycle) => cycle.map((file) => path.relative(root, file)))).toEqual([
      ["instance.ts", "log/index.ts", "slot.ts"],
    ]);
  });
});
