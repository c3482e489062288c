// Import cycles among a folder's TypeScript modules, type-only imports included: lib/ is layered
// (leaves such as http and log import nothing above them), and a cycle, even of types, undoes that.
// `node scripts/import-cycles.ts lib` prints each cycle and exits 1 when there is one.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** The modules of `root` (tests left out) and the modules of `root` each one imports. */
export function importGraph(root: string): Map<string, Set<string>> {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const file = path.join(dir, entry);
      if (statSync(file).isDirectory()) walk(file);
      else if (/\.tsx?$/.test(entry) && !/\.test\.tsx?$/.test(entry)) files.push(file);
    }
  };
  walk(root);
  const graph = new Map(files.map((file) => [file, new Set<string>()]));
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName } of importedFiles) {
      const target = resolve(root, file, fileName);
      if (target && target !== file && graph.has(target)) graph.get(file)!.add(target);
    }
  }
  return graph;
}

// Relative specifiers and the "@/" alias (tsconfig's paths: the folder above `root`).
function resolve(root: string, from: string, specifier: string): string | null {
  let base: string;
  if (specifier.startsWith(".")) base = path.resolve(path.dirname(from), specifier);
  else if (specifier.startsWith("@/")) base = path.resolve(root, "..", specifier.slice(2));
  else return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Each strongly connected set of more than one module (Tarjan's algorithm), sorted. */
export function importCycles(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const members: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        members.push(member);
      } while (member !== file);
      if (members.length > 1) cycles.push(members.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

if (import.meta.main) {
  const root = path.resolve(process.argv[2] ?? "lib");
  const cycles = importCycles(importGraph(root));
  for (const cycle of cycles)
    console.log(`cycle: ${cycle.map((file) => path.relative(process.cwd(), file)).join(" → ")}`);
  console.log(`${cycles.length} import cycle(s) in ${path.relative(process.cwd(), root) || "."}`);
  process.exit(cycles.length ? 1 : 0);
}
