// The npm registry reachable from our machines carries only the Linux x64 builds of packages with
// native binaries, so `npm install` here leaves the other platforms' optional packages out of
// package-lock.json, and `npm ci` then refuses the lock as out of sync. This adds those entries
// the way a lock made against the full registry lists them: version, optional, and the os/cpu/libc
// that make npm skip them on other machines, and the `integrity` the registry publishes for each
// version, so that `npm ci` checks what it downloads against the lock as it does for every other
// package. It also writes each package's `resolved` address on the public registry, which npm
// leaves out where it is configured to (omit-lockfile-registry-resolved): `npm ci` fetches from the
// configured registry all the same (npm's replace-registry-host), and the lock says where each
// package came from. Run after changing dependencies: `npm run lock`.
import { readFileSync, writeFileSync } from "node:fs";

type Entry = {
  name?: string;
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  dev?: boolean;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  optionalDependencies?: Record<string, string>;
};
export type Lock = { packages: Record<string, Entry> };

const OS: Record<string, string> = {
  darwin: "darwin",
  win32: "win32",
  linux: "linux",
  linuxmusl: "linux",
  freebsd: "freebsd",
  android: "android",
  openharmony: "openharmony",
  wasm32: "",
};
const CPU = ["arm64", "x64", "ia32", "arm", "loong64", "ppc64", "riscv64", "s390x", "wasm32"];

/** Platform fields from names such as @next/swc-linux-x64-musl or @unrs/resolver-binding-win32-ia32-msvc. */
function platformOf(name: string): Pick<Entry, "os" | "cpu" | "libc"> {
  const parts = name.split("/").pop()!.split("-");
  const os = parts.find((part) => part in OS);
  const cpu = parts.find((part) => CPU.includes(part));
  const fields: Pick<Entry, "os" | "cpu" | "libc"> = {};
  if (os && OS[os]) fields.os = [OS[os]];
  if (cpu) fields.cpu = [cpu];
  if (os === "linuxmusl" || parts.some((p) => p.startsWith("musl"))) fields.libc = ["musl"];
  else if (os === "linux" && parts.some((p) => p.startsWith("gnu"))) fields.libc = ["glibc"];
  return fields;
}

/** Adds the optional platform packages npm left out, hoisted; returns how many it added. */
export function addPlatformEntries(lock: Lock): number {
  let added = 0;
  for (const [path, entry] of Object.entries(lock.packages)) {
    for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
      const nested = `${path}/node_modules/${name}`;
      const hoisted = `node_modules/${name}`;
      if (lock.packages[nested] || lock.packages[hoisted]) continue;
      lock.packages[hoisted] = { version, ...(entry.dev ? { dev: true } : {}), optional: true, ...platformOf(name) };
      added++;
    }
  }
  lock.packages = Object.fromEntries(
    Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))),
  );
  return added;
}

export type Release = { path: string; name: string; version: string };

// The root, a workspace's folder (packages/client) and its link in node_modules come from this
// repository, not the registry: they have no integrity or address to fill.
const fromRegistry = (path: string, entry: Entry) => path.includes("node_modules/") && !entry.link && !!entry.version;
const nameOf = (path: string, entry: Entry) =>
  entry.name ?? path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);

/** The installed packages whose entry has no `integrity`. */
export function releasesWithoutIntegrity(lock: Lock): Release[] {
  const releases: Release[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!fromRegistry(path, entry) || entry.integrity) continue;
    releases.push({ path, name: nameOf(path, entry), version: entry.version! });
  }
  return releases;
}

export const PUBLIC_REGISTRY = "https://registry.npmjs.org/";

/** A version's tarball on the registry, as npm writes it: `<registry><name>/-/<name without scope>-<version>.tgz`. */
export function tarballUrl(release: Pick<Release, "name" | "version">, registry = PUBLIC_REGISTRY): string {
  const base = registry.endsWith("/") ? registry : `${registry}/`;
  return `${base}${release.name}/-/${release.name.slice(release.name.indexOf("/") + 1)}-${release.version}.tgz`;
}

/** Writes `resolved` into every registry package's entry that has none, after `version` as npm places it; returns how many. */
export function fillResolved(lock: Lock): number {
  let filled = 0;
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!fromRegistry(path, entry) || entry.resolved) continue;
    const { version, ...rest } = entry;
    lock.packages[path] = { version, resolved: tarballUrl({ name: nameOf(path, entry), version: version! }), ...rest };
    filled++;
  }
  return filled;
}

/** The registry's address of one version's metadata (a scoped name keeps its @, its / encoded). */
export function metadataUrl(registry: string, release: Pick<Release, "name" | "version">): string {
  const base = registry.endsWith("/") ? registry : `${registry}/`;
  return `${base}${release.name.replace("/", "%2f")}/${release.version}`;
}

/** Writes each found integrity into its entry, after `version` as npm places it. */
export function fillIntegrity(lock: Lock, integrities: Map<string, string>): void {
  for (const [path, integrity] of integrities) {
    const entry = lock.packages[path];
    if (!entry) continue;
    const { version, resolved, ...rest } = entry;
    delete rest.integrity;
    lock.packages[path] = { version, ...(resolved ? { resolved } : {}), integrity, ...rest };
  }
}

async function registryIntegrity(registry: string, release: Release): Promise<string> {
  const url = metadataUrl(registry, release);
  const response = await fetch(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(30_000) });
  if (!response.ok) throw new Error(`${url}: the registry answered ${response.status}`);
  const integrity = ((await response.json()) as { dist?: { integrity?: string } }).dist?.integrity;
  if (!integrity?.startsWith("sha512-")) throw new Error(`${url}: no sha512 integrity in dist`);
  return integrity;
}

async function main(): Promise<void> {
  const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as Lock;
  const added = addPlatformEntries(lock);
  // The registry npm is configured with (npm passes it to scripts), else the public one.
  const registry = process.env.npm_config_registry || "https://registry.npmjs.org/";
  const integrities = new Map<string, string>();
  for (const release of releasesWithoutIntegrity(lock)) {
    integrities.set(release.path, await registryIntegrity(registry, release));
  }
  fillIntegrity(lock, integrities);
  const resolved = fillResolved(lock);
  writeFileSync("package-lock.json", `${JSON.stringify(lock, null, 2)}\n`);
  console.log(
    `package-lock.json: added ${added} optional platform entries, filled ${integrities.size} integrity and ${resolved} resolved fields`,
  );
}

if (import.meta.main) await main();
