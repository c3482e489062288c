import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Registration is for the whole process and cannot be undone, so each side runs in a child: the
// same imports with the quick resolution and with Node's own, compared.
const root = path.join(import.meta.dirname, "..");
const SPECIFIERS = [
  "drizzle-orm",
  "drizzle-orm/pg-core",
  "drizzle-orm/pglite",
  "drizzle-orm/pglite/migrator",
  "drizzle-orm/postgres-js",
  "drizzle-orm/postgres-js/migrator",
  "drizzle-orm/errors",
];

type Loaded = { resolved: string[]; exports: Record<string, string[]>; nodeOwn: string[] };

function load(quick: boolean): Loaded {
  const script = `
    ${quick ? `const { resolveDrizzleQuickly } = await import("./lib/module-resolution.ts"); resolveDrizzleQuickly();` : ""}
    const specifiers = ${JSON.stringify(SPECIFIERS)};
    const exports = {};
    for (const specifier of specifiers) exports[specifier] = Object.keys(await import(specifier)).sort();
    // What a module inside the package resolves to, and a bare specifier asked twice.
    const resolved = [...specifiers, ...specifiers].map((s) => import.meta.resolve(s));
    const nodeOwn = [import.meta.resolve("node:fs")];
    console.log(JSON.stringify({ resolved, exports, nodeOwn }));
  `;
  const output = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" });
  return JSON.parse(output) as Loaded;
}

describe("drizzle-orm's quick resolution", () => {
  it("loads the same modules, with the same exports, as Node's own resolution", () => {
    const own = load(false);
    const quick = load(true);
    expect(quick.resolved).toEqual(own.resolved);
    expect(quick.resolved[0]).toMatch(/\/node_modules\/drizzle-orm\/index\.js$/);
    expect(quick.exports).toEqual(own.exports);
    // pg-core's table builders come from the package's own relative imports, resolved by the hook.
    expect(quick.exports["drizzle-orm/pg-core"]).toEqual(expect.arrayContaining(["pgTable", "text", "integer"]));
    expect(quick.nodeOwn).toEqual(own.nodeOwn);
  }, 60_000);
});
