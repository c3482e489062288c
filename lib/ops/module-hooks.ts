import { readFileSync } from "node:fs";
import { registerHooks } from "node:module";

// drizzle-orm's package.json is 180 KB, nearly all of it its "exports". To learn that a `.js` file of
// the package is an ES module, Node 24 reads that file's package scope again for each of the few
// hundred files drizzle's ES build is made of, and parses the exports with it: more than half of the
// CPU of loading the service's modules, and of every server's, CLI's and test file's start
// (docs/benchmarks.md, "Loading the modules"). A relative import between drizzle's own files is
// resolved here instead: the URL Node would find, and the format the package declares for all of them.

/** The folder of drizzle-orm's ES build, when it declares its `.js` files ES modules; else null. */
export function drizzleFolder(): string | null {
  const entry = import.meta.resolve("drizzle-orm");
  const folder = new URL("./", entry).href;
  const manifest = JSON.parse(readFileSync(new URL("package.json", folder), "utf8")) as { type?: string };
  return manifest.type === "module" ? folder : null;
}

type Resolved = { url: string; format: "module"; shortCircuit: true } | null;

/** How a relative import between two of drizzle's `.js` files resolves; null for any other import. */
export function resolveWithin(folder: string, specifier: string, parentURL: string | undefined): Resolved {
  if (!parentURL?.startsWith(folder)) return null;
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return null;
  const url = new URL(specifier, parentURL);
  if (!url.href.startsWith(folder) || !url.pathname.endsWith(".js")) return null;
  // A folder inside the package holding a package.json of its own would have a scope of its own: none does.
  return { url: url.href, format: "module", shortCircuit: true };
}

/** Registers the resolution above on this thread, before the modules that import drizzle are loaded. */
export function registerModuleHooks(): void {
  const folder = drizzleFolder();
  if (!folder) return;
  registerHooks({
    resolve: (specifier, context, nextResolve) =>
      resolveWithin(folder, specifier, context.parentURL) ?? nextResolve(specifier, context),
  });
}
