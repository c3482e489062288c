import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The plan of the house (docs/architecture.md) and the decisions (docs/decisions/) name files and
// folders; a move that forgets them leaves a plan that lies. Every path they name must exist.

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DOCS = [
  "docs/architecture.md",
  ...readdirSync(path.join(ROOT, "docs/decisions")).map((f) => `docs/decisions/${f}`),
]
  .filter((file) => file.endsWith(".md"))
  .sort();

// Made when the service runs or installs, never in the repository.
const RUNTIME = new Set([".data", ".next", ".tools", "node_modules", "test-results", "playwright-report"]);
// A name ending so is a file name even without a folder before it (`server.ts`, `metering.test.ts`).
const FILE_NAME = /^[\w@[\].-]*[\w\]]\.(ts|tsx|mts|mjs|cjs|js|json|md|sql|conf|ya?ml|sh|css)$/;
// Characters of a path; a space, a bracket or a quote ends one in a code block.
const PATH_TOKEN = /(?<![\w./@*-])[\w.@[\]*-]+(?:\/[\w.@[\]*-]*)+/g;

/** The paths a markdown text names: in inline code, in code blocks, and as links' targets (doc-relative). */
function namedPaths(markdown: string): { path: string; relative: boolean }[] {
  const found: { path: string; relative: boolean }[] = [];
  const fences = /^```[^\n]*\n([\s\S]*?)^```/gm;
  for (const [, block] of markdown.matchAll(fences)) {
    for (const [token] of block!.matchAll(PATH_TOKEN)) found.push({ path: token, relative: false });
  }
  const prose = markdown.replace(fences, "");
  for (const [, span] of prose.matchAll(/`([^`\n]+)`/g)) {
    if (!/\s/.test(span!.trim())) found.push({ path: span!.trim(), relative: false });
  }
  // A link's target; its text may hold brackets (`app/api/auth/[...nextauth]`).
  for (const [, target] of prose.replace(/`[^`\n]*`/g, "").matchAll(/\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g)) {
    if (/^[a-z][a-z\d+.-]*:/i.test(target!) || target!.startsWith("#")) continue; // a URL, or this page
    found.push({ path: decodeURIComponent(target!.replace(/[#?].*$/, "")), relative: true });
  }
  return found;
}

const topLevel = new Set(readdirSync(ROOT).filter((name) => !RUNTIME.has(name) && name !== ".git"));

/** Whether `name` names a repository path at all, and which: null for a URL, a glob, a package, a route. */
function asRepositoryPath(name: string): string | null {
  const trimmed = name.replace(/[.,:;]+$/, "");
  if (!trimmed || /^[/#@~$]|:\/\/|[*?{}<>=|]/.test(trimmed)) return null;
  const first = trimmed.split("/", 1)[0]!;
  if (RUNTIME.has(first)) return null;
  if (trimmed.includes("/")) return topLevel.has(first) || FILE_NAME.test(path.basename(trimmed)) ? trimmed : null;
  return FILE_NAME.test(trimmed) || topLevel.has(trimmed) ? trimmed : null;
}

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (RUNTIME.has(entry.name) || entry.name === ".git" || entry.name === "dist") continue;
    yield entry.name;
    if (entry.isDirectory()) yield* walk(path.join(dir, entry.name));
  }
}
let names: Set<string> | undefined;

/** Whether a path named in `doc` exists: from the root (or beside the doc); a bare file name, anywhere. */
function exists(named: { path: string; relative: boolean }, doc: string, root = ROOT): boolean {
  const beside = path.join(root, path.dirname(doc), named.path);
  if (named.relative) return named.path.startsWith("/") ? existsSync(path.join(root, named.path)) : existsSync(beside);
  if (existsSync(path.join(root, named.path)) || existsSync(beside)) return true;
  if (named.path.includes("/")) return false;
  names ??= new Set(walk(root));
  return names.has(named.path);
}

/** Every path `doc` names that does not exist, as `doc: path`. */
function missingPaths(doc: string, markdown = readFileSync(path.join(ROOT, doc), "utf8")): string[] {
  const missing = new Set<string>();
  for (const named of namedPaths(markdown)) {
    const repositoryPath = named.relative ? named.path : asRepositoryPath(named.path);
    if (repositoryPath === null || repositoryPath === "") continue;
    if (!exists({ ...named, path: repositoryPath }, doc)) missing.add(`${doc}: ${repositoryPath}`);
  }
  return [...missing];
}

describe("paths named by the architecture and the decisions", () => {
  it("finds paths in code, code blocks and links, and leaves routes, globs, packages and URLs alone", () => {
    const markdown = [
      "`lib/instance.ts` and `lib/ops/` and `app/api/v1` and `server.ts`; [ADR](decisions/node-http-entry.md#x)",
      "`GET /api/v1/events` `/console` `API_ENTRY=next` `lib/*.ts` `app/api/v1/**/route.ts` `next-auth/react`",
      "`LISTEN/NOTIFY` `DATA_DIR/meter` `.data/` [site](https://example.com/a.md) `@scalar/api-reference-react`",
      "```",
      "  → nodeEntry (lib/node-entry.ts) → POST /api/feed/v1/updates → testing/scale-out.ts",
      "```",
    ].join("\n");
    const paths = namedPaths(markdown)
      .map((named) => (named.relative ? named.path : asRepositoryPath(named.path)))
      .filter((named) => named !== null);
    expect(paths.sort()).toEqual(
      [
        "app/api/v1",
        "decisions/node-http-entry.md",
        "lib/instance.ts",
        "lib/node-entry.ts",
        "lib/ops/",
        "server.ts",
        "testing/scale-out.ts",
      ].sort(),
    );
  });

  it("reports a path that does not exist", () => {
    const markdown = "`lib/instance.ts`, `lib/streams/endpoints.ts`, `nowhere.test.ts`, [gone](gone.md)";
    expect(missingPaths("docs/architecture.md", markdown)).toEqual([
      "docs/architecture.md: lib/streams/endpoints.ts",
      "docs/architecture.md: nowhere.test.ts",
      "docs/architecture.md: gone.md",
    ]);
  });

  it.each(DOCS)("%s names only paths that exist", (doc) => {
    expect(missingPaths(doc)).toEqual([]);
  });
});
