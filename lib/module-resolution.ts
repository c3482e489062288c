import { registerHooks, type ResolveFnOutput } from "node:module";

// drizzle-orm's package.json lists its 447 entry points (130 KB of "exports"), and Node parses that
// list again each time it resolves a module of the package, to read the package's "type" (a server
// start resolves 440 of them: about two seconds of CPU, docs/benchmarks.md). Resolved here instead:
// the package's own relative imports are ES modules (it is "type": "module" and has no nested
// package.json), and each bare `drizzle-orm…` specifier of our code is resolved by Node once.

const PACKAGE = "/node_modules/drizzle-orm/";
const RELATIVE_SCRIPT = /^\.\.?\/.*\.js$/;
const isBare = (specifier: string) => specifier === "drizzle-orm" || specifier.startsWith("drizzle-orm/");

let registered = false;

/** Registers the resolution, once a process: before the modules that import drizzle-orm are resolved. */
export function resolveDrizzleQuickly(): void {
  if (registered) return;
  registered = true;
  const resolved = new Map<string, ResolveFnOutput>();
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const parent = context.parentURL;
      if (parent === undefined) return nextResolve(specifier, context);
      if (parent.includes(PACKAGE) && RELATIVE_SCRIPT.test(specifier)) {
        return { url: new URL(specifier, parent).href, format: "module", shortCircuit: true };
      }
      // From outside node_modules, where a bare specifier means the same package from every file.
      if (isBare(specifier) && !parent.includes("/node_modules/")) {
        const key = `${specifier}\0${context.conditions.join(",")}`;
        let found = resolved.get(key);
        if (found === undefined) {
          found = nextResolve(specifier, context);
          resolved.set(key, found);
        }
        return { ...found, shortCircuit: true };
      }
      return nextResolve(specifier, context);
    },
  });
}
