import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { drizzleFolder, resolveWithin } from "./module-hooks.ts";

const folder = drizzleFolder()!;

describe("drizzle's own imports resolved without its package scope", () => {
  it("finds drizzle's ES build, whose package declares its .js files ES modules", () => {
    expect(folder).toMatch(/\/node_modules\/drizzle-orm\/$/);
  });

  it("resolves a relative .js import between drizzle's files, and nothing else", () => {
    const parent = `${folder}pg-core/table.js`;
    expect(resolveWithin(folder, "./columns/text.js", parent)).toEqual({
      url: `${folder}pg-core/columns/text.js`,
      format: "module",
      shortCircuit: true,
    });
    expect(resolveWithin(folder, "../sql/sql.js", parent)?.url).toBe(`${folder}sql/sql.js`);
    expect(resolveWithin(folder, "postgres", parent)).toBeNull();
    expect(resolveWithin(folder, "drizzle-orm/pg-core", parent)).toBeNull();
    expect(resolveWithin(folder, "./x.cjs", parent)).toBeNull();
    expect(resolveWithin(folder, "../../postgres/src/index.js", parent)).toBeNull();
    expect(resolveWithin(folder, "./pg-core/table.js", import.meta.url)).toBeNull(); // a parent outside the package
    expect(resolveWithin(folder, "./x.js", undefined)).toBeNull();
  });

  it("relies on no folder of the package having a package.json of its own", () => {
    const root = fileURLToPath(folder);
    const nested = readdirSync(root, { recursive: true, encoding: "utf8" }).filter(
      (file) => path.basename(file) === "package.json" && file !== "package.json",
    );
    expect(nested).toEqual([]);
  });

  // Every resolution of the loaded modules, logged by a hook registered after ours (so it runs first
  // and sees what ours, or Node alone, answered): the same URLs and formats, and the same exports.
  const LOAD = `
    import { registerHooks } from "node:module";
    const seen = [];
    registerHooks({ resolve(specifier, context, next) {
      const resolved = next(specifier, context);
      if (resolved.url.includes("/drizzle-orm/")) seen.push([specifier, context.parentURL, resolved.url, resolved.format ?? "module"].join(" "));
      return resolved;
    } });
    const names = [];
    for (const entry of ["drizzle-orm", "drizzle-orm/pg-core", "drizzle-orm/postgres-js", "drizzle-orm/pglite", "drizzle-orm/pg-core/columns/text"])
      names.push(entry + ": " + Object.keys(await import(entry)).sort().join(","));
    process.stdout.write(JSON.stringify({ seen: seen.sort(), names }));
  `;
  const load = (hooks: boolean) => {
    const args = [...(hooks ? ["--import", "./testing/module-hooks.ts"] : []), "--input-type=module", "-e", LOAD];
    const result = spawnSync(process.execPath, args, { encoding: "utf8" });
    expect(result.stderr).toBe("");
    return JSON.parse(result.stdout) as { seen: string[]; names: string[] };
  };

  it("loads the same modules, from the same files, as Node alone does", () => {
    const alone = load(false);
    const hooked = load(true);
    expect(alone.seen.length).toBeGreaterThan(200);
    expect(hooked.seen).toEqual(alone.seen);
    expect(hooked.names).toEqual(alone.names);
  });
});
