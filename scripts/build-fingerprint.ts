// What a production build was made from: a digest of the sources, the lock file and the
// configuration it depends on. `npm run build` records it in .next; `npm start` builds again when
// the code in front of it no longer matches (after a `git pull`, say), instead of serving old pages.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

// The folders and files the build reads. Tests, benchmarks, docs and migrations are not among them.
const SOURCE_DIRS = ["app", "components", "lib", "seeds", "types", "public"];
const SOURCE_FILES = [
  "next.config.ts",
  "proxy.ts",
  "tsconfig.json",
  "postcss.config.mjs",
  "package.json",
  "package-lock.json",
];
const SOURCE_FILE = /\.(ts|tsx|js|mjs|cjs|jsx|css|json|svg|png|ico|webp|woff2?|txt)$/;
const NOT_BUILT = /\.test\.tsx?$/;
// Variables a build bakes into the pages.
const BUILD_VARIABLE = /^NEXT_PUBLIC_/;

export const FINGERPRINT_FILE = path.join(".next", "source-fingerprint");

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => path.join(dir, name))
    .filter((file) => SOURCE_FILE.test(file) && !NOT_BUILT.test(file) && statSync(file).isFile());
}

/** The fingerprint of the sources in `root` as they are now, and of the build's variables. */
export function sourceFingerprint(root = ".", env: NodeJS.ProcessEnv = process.env): string {
  const hash = createHash("sha256");
  const files = [
    ...SOURCE_DIRS.flatMap((dir) => filesUnder(path.join(root, dir))),
    ...SOURCE_FILES.map((f) => path.join(root, f)),
  ]
    .filter((file) => existsSync(file))
    .sort();
  for (const file of files) {
    hash.update(path.relative(root, file)).update("\0").update(readFileSync(file)).update("\0");
  }
  for (const name of Object.keys(env)
    .filter((n) => BUILD_VARIABLE.test(n))
    .sort()) {
    hash.update(`${name}=${env[name]}\0`);
  }
  return hash.digest("hex");
}

/** The fingerprint recorded by the last build in `root`, or null when there is no build. */
export function builtFingerprint(root = "."): string | null {
  const file = path.join(root, FINGERPRINT_FILE);
  if (!existsSync(path.join(root, ".next", "BUILD_ID")) || !existsSync(file)) return null;
  return readFileSync(file, "utf8").trim();
}
