import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// The client as a key holder gets it: `npm pack` of the workspace (its prepack builds dist/), the
// tarball installed into an empty folder, and a program using it type-checked there with the
// repository's TypeScript under `module: nodenext`, then loaded by Node. The tarball has no
// dependencies, so the install needs no registry.

const ROOT = path.resolve(import.meta.dirname, "../..");
const TSC = path.join(ROOT, "node_modules/typescript/bin/tsc");

const PROGRAM = `import { createClient, ProblemError, type EventStreamMessage } from "@sports-event-data/client";

const client = createClient({ key: "svc_sk_example" }, { baseUrl: "https://data.example.com", retry: { maxRetries: 1 } });

export async function board(): Promise<number> {
  const { data, meta } = await client.listOdds({ sport: "soccer" });
  const open: number = data.flatMap((event) => event.markets).filter((market) => market.status === "open").length;
  return open + meta.requests_used;
}

export async function follow(id: string, signal: AbortSignal): Promise<string | undefined> {
  let last: string | undefined;
  try {
    for await (const message of client.follow(id, { signal })) {
      const seen: EventStreamMessage = message;
      if (seen.event === "snapshot" && seen.resync) console.log("resync:", seen.resync, seen.data.event.score.home);
      if (seen.event === "markets" && seen.conflated) console.log(seen.data.markets.length);
      last = seen.id;
    }
  } catch (error) {
    if (error instanceof ProblemError && error.code === "key_revoked") return error.requestId ?? undefined;
    throw error;
  }
  return last;
}

const browser = createClient({ token: "svc_st_example" }, { baseUrl: "https://data.example.com" });
export const remaining: number | undefined = browser.lastRateLimit?.second?.remaining;

// The types are the API's, not \`any\`: each line below must be refused.
// @ts-expect-error a client holds a key or a token, not both
createClient({ key: "a", token: "b" }, { baseUrl: "" });
// @ts-expect-error an unknown sport
await client.listEvents({ sport: "curling" });
// @ts-expect-error an event has no such field
(await client.getEvent("x")).data.colour;
`;

describe("the client package's tarball", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "client-pack-"));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("installs into an empty folder, type-checks a program that uses it, and loads in Node", () => {
    const run = (command: string, args: string[], cwd: string) =>
      execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    run("npm", ["pack", "--pack-destination", folder, "--silent"], path.join(ROOT, "packages/client"));
    const tarball = readdirSync(folder).find((name) => name.endsWith(".tgz"));
    expect(tarball).toBe("sports-event-data-client-0.1.0.tgz");
    const listing = run("tar", ["-tzf", tarball!], folder).split("\n").filter(Boolean);
    expect(listing).toEqual(
      expect.arrayContaining(["package/dist/index.js", "package/dist/index.d.ts", "package/README.md"]),
    );
    expect(listing.filter((name) => /\.test\.|\/src\/|\/scripts\//.test(name))).toEqual([]);

    const app = path.join(folder, "app");
    run("mkdir", [app], folder);
    writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
    run("npm", ["install", "--offline", "--no-audit", "--no-fund", "--silent", path.join(folder, tarball!)], app);
    writeFileSync(path.join(app, "main.ts"), PROGRAM);
    writeFileSync(
      path.join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          target: "es2022",
          strict: true,
          noEmit: true,
          // The client needs the platform's fetch and streams, not Node's own types.
          lib: ["es2022", "dom", "dom.iterable"],
          types: [],
        },
        files: ["main.ts"],
      }),
    );
    const checked = (() => {
      try {
        return run(process.execPath, [TSC, "-p", "."], app);
      } catch (error) {
        return (error as { stdout: string }).stdout;
      }
    })();
    expect(checked).toBe("");
    const exported = run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        "console.log(Object.keys(await import('@sports-event-data/client')).sort().join())",
      ],
      app,
    );
    expect(exported.trim()).toBe("KeyRequiredError,NetworkError,ProblemError,UNEXPECTED_RESPONSE,createClient");
  });
});
