import { describe, expect, it } from "vitest";
import {
  addPlatformEntries,
  fillIntegrity,
  fillResolved,
  metadataUrl,
  releasesWithoutIntegrity,
  type Lock,
} from "./complete-lockfile.ts";

const INTEGRITY = "sha512-/CntqDCnk5w2qIwMiF0a9r6+9qunZzFmU0cBX4T82LOflE72zzH6gnOjCwUXYKOBlQi8OpP/rMj8cBIr18x4TA==";

function lock(): Lock {
  return {
    packages: {
      "": { name: "app", version: "1.0.0" },
      "node_modules/next": {
        version: "16.0.0",
        integrity: "sha512-next",
        optionalDependencies: { "@next/swc-darwin-arm64": "16.0.0", "@next/swc-linux-x64-gnu": "16.0.0" },
      },
      "node_modules/@next/swc-linux-x64-gnu": { version: "16.0.0", integrity: "sha512-linux", optional: true },
      "node_modules/local": { link: true },
      "node_modules/a/node_modules/@scope/b": { version: "2.0.0", dev: true },
      // A workspace's folder: in the repository, not on the registry.
      "packages/local": { name: "local", version: "0.1.0" },
    },
  };
}

describe("completing the lock file", () => {
  it("adds the missing platform package, and asks the registry for every entry without integrity", () => {
    const completed = lock();
    expect(addPlatformEntries(completed)).toBe(1);
    expect(completed.packages["node_modules/@next/swc-darwin-arm64"]).toEqual({
      version: "16.0.0",
      optional: true,
      os: ["darwin"],
      cpu: ["arm64"],
    });
    expect(releasesWithoutIntegrity(completed)).toEqual([
      { path: "node_modules/@next/swc-darwin-arm64", name: "@next/swc-darwin-arm64", version: "16.0.0" },
      { path: "node_modules/a/node_modules/@scope/b", name: "@scope/b", version: "2.0.0" },
    ]);
  });

  it("reads a version's metadata at the registry's address for it", () => {
    const release = { name: "@next/swc-darwin-arm64", version: "16.0.0" };
    expect(metadataUrl("https://registry.npmjs.org/", release)).toBe(
      "https://registry.npmjs.org/@next%2fswc-darwin-arm64/16.0.0",
    );
    expect(metadataUrl("https://npm.example/repo", { name: "zod", version: "4.1.0" })).toBe(
      "https://npm.example/repo/zod/4.1.0",
    );
  });

  it("writes the integrity after the version, leaving the rest of the entry as it was", () => {
    const completed = lock();
    addPlatformEntries(completed);
    fillIntegrity(completed, new Map([["node_modules/@next/swc-darwin-arm64", INTEGRITY]]));
    const entry = completed.packages["node_modules/@next/swc-darwin-arm64"]!;
    expect(Object.keys(entry)).toEqual(["version", "integrity", "optional", "os", "cpu"]);
    expect(entry.integrity).toBe(INTEGRITY);
    expect(releasesWithoutIntegrity(completed).map((r) => r.name)).toEqual(["@scope/b"]);
  });

  it("writes each registry package's address on the public registry, after its version, and nothing for the repository's own", () => {
    const completed = lock();
    addPlatformEntries(completed);
    expect(fillResolved(completed)).toBe(4);
    const resolved = Object.fromEntries(Object.entries(completed.packages).map(([path, e]) => [path, e.resolved]));
    expect(resolved).toEqual({
      "": undefined,
      "node_modules/@next/swc-darwin-arm64":
        "https://registry.npmjs.org/@next/swc-darwin-arm64/-/swc-darwin-arm64-16.0.0.tgz",
      "node_modules/@next/swc-linux-x64-gnu":
        "https://registry.npmjs.org/@next/swc-linux-x64-gnu/-/swc-linux-x64-gnu-16.0.0.tgz",
      "node_modules/a/node_modules/@scope/b": "https://registry.npmjs.org/@scope/b/-/b-2.0.0.tgz",
      "node_modules/local": undefined,
      "node_modules/next": "https://registry.npmjs.org/next/-/next-16.0.0.tgz",
      "packages/local": undefined,
    });
    expect(Object.keys(completed.packages["node_modules/next"]!)).toEqual([
      "version",
      "resolved",
      "integrity",
      "optionalDependencies",
    ]);
    // Integrity filled later keeps the address where npm puts it.
    fillIntegrity(completed, new Map([["node_modules/@next/swc-darwin-arm64", INTEGRITY]]));
    expect(Object.keys(completed.packages["node_modules/@next/swc-darwin-arm64"]!).slice(0, 3)).toEqual([
      "version",
      "resolved",
      "integrity",
    ]);
    expect(fillResolved(completed)).toBe(0);
  });
});
