// The npm registry reachable from our machines carries only the Linux x64 builds of packages with
// native binaries, so `npm install` here leaves the other platforms' optional packages out of
// package-lock.json, and `npm ci` then refuses the lock as out of sync. This adds those entries
// the way a lock made against the full registry lists them: version, optional, and the os/cpu/libc
// that make npm skip them on other machines. Run after changing dependencies: `npm run lock`.
import { readFileSync, writeFileSync } from "node:fs";

type Entry = {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  optionalDependencies?: Record<string, string>;
};
type Lock = { packages: Record<string, Entry> };

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

const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as Lock;
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
writeFileSync("package-lock.json", `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: added ${added} optional platform entries`);
