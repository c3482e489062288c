import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, useTestDatabase } from "../../testing/databases.ts";
import { FEED_TOKEN, creation, ingest } from "../../testing/feed.ts";
import { market } from "../../testing/feed-updates.ts";
import { organisationWithKeys } from "../../testing/organisations.ts";
import { startServer, type RunningServer } from "../../testing/processes.ts";

// Every curl command the documentation shows (the README, docs/, the home page and the OpenAPI
// document's descriptions), run as written with curl against a real server (the MCP server's
// among them, answered in JSON-RPC): only the address, the
// shell variables ($KEY, $API_KEY, $EVENT, $MARKET, $METRICS_TOKEN, $REVISION) and the OpenAPI
// examples' event id (one of the simulated world's, which need not exist now) are this test's.
// $EVENT is a live soccer event, $MARKET one of its markets, $REVISION a revision the history holds.

const EXAMPLE_ADDRESS = "http://localhost:3000";
const METRICS_TOKEN = "metrics-token-for-the-examples-0123456789";

type Example = { source: string; command: string };

/** The curl commands of a Markdown file's shell blocks. */
function markdownExamples(file: string): Example[] {
  const text = readFileSync(file, "utf8");
  const examples: Example[] = [];
  for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const line of block[1]!.split("\n")) {
      if (line.startsWith("curl ")) examples.push({ source: file, command: line });
    }
  }
  return examples;
}

function documentedExamples(): Example[] {
  const docs = readdirSync("docs", { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".md"))
    .map((file) => path.join("docs", file));
  const home = readFileSync("app/page.tsx", "utf8");
  return [
    ...["README.md", ...docs].flatMap(markdownExamples),
    ...[...home.matchAll(/\{`(curl [^`]+)`\}/g)].map((m) => ({ source: "app/page.tsx", command: m[1]! })),
  ];
}

/** The curl commands of the OpenAPI document's descriptions, as the reference shows them. */
async function openApiExamples(url: string): Promise<Example[]> {
  const document = (await (await fetch(`${url}/api/v1/openapi.json`)).json()) as {
    paths: Record<
      string,
      Record<string, { operationId?: string; description?: string; "x-codeSamples"?: { source: string }[] }>
    >;
  };
  const examples: Example[] = [];
  for (const operations of Object.values(document.paths)) {
    for (const operation of Object.values(operations)) {
      for (const block of (operation.description ?? "").matchAll(/```sh\n(curl [^\n]+)\n```/g)) {
        const command = block[1]!.replace(/\/events\/[^/$"]+\//, "/events/$EVENT/");
        examples.push({ source: `openapi.json ${operation.operationId}`, command });
      }
      // The code samples the reference shows first: as written, with nothing replaced.
      for (const sample of operation["x-codeSamples"] ?? []) {
        examples.push({ source: `openapi.json ${operation.operationId} x-codeSamples`, command: sample.source });
      }
    }
  }
  return examples;
}

/**
 * Runs a command in the shell with `env`; a stream's command is ended once its first message (the
 * snapshot) has arrived, every other one runs to its end. Resolves with what curl wrote.
 */
function run(command: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const streaming = / -N /.test(command);
  // The status line comes last, after the body (curl's -w); a stream has none, as it is ended.
  const child = spawn("sh", ["-c", `exec ${command.replace(/^curl /, "curl -sS -w '\\nstatus %{http_code}\\n' ")}`], {
    env: { ...process.env, ...env },
  });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${command} gave no complete answer within 20 s: ${output.slice(0, 500)}`));
    }, 20_000);
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (streaming && /event: snapshot\n(?:id: .*\n)?data: .*\n\n/.test(output)) child.kill();
    });
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe.each(BACKENDS.filter((b) => b.name === "pglite"))("the documentation's curl examples on $name", (backend) => {
  const database = useTestDatabase(backend);
  let server: RunningServer;
  let env: Record<string, string>;
  let sandboxKey: string;

  beforeAll(async () => {
    if (spawnSync("curl", ["--version"]).status !== 0)
      throw new Error("these tests run curl: install it (.ci/run does)");
    const { production, sandbox } = await organisationWithKeys(database().env, "examples-org", {
      plan: "pro",
      sandboxSport: "soccer",
    });
    sandboxKey = sandbox.key;
    server = await startServer({ ...database().env, FEED_TOKEN, METRICS_TOKEN });
    const event = "ex-live";
    await ingest(server.url, [
      creation(event, new Date().toISOString(), "soccer"),
      {
        event_id: event,
        sequence: 2,
        event: { status: "live" },
        markets: [market(event, "match_winner", [2.1, 3.4, 3.2])],
      },
    ]);
    const odds = await fetch(`${server.url}/api/v1/odds`, { headers: { authorization: `Bearer ${production.key}` } });
    const { revision } = ((await odds.json()) as { meta: { revision: number } }).meta;
    env = {
      KEY: production.key,
      API_KEY: production.key,
      EVENT: event,
      MARKET: `${event}-match_winner`,
      METRICS_TOKEN,
      REVISION: String(revision),
    };
  });
  afterAll(() => server?.stop());

  it("and the README's pages answer as it says: the public ones to anyone, the board after signing in", async () => {
    // The paragraph after the first start, its asides in brackets left out.
    const readme = readFileSync("README.md", "utf8").replace(/\s+/g, " ");
    const paragraph = (/Then open (.*?) With a key from the console/.exec(readme)?.[1] ?? "").replace(/\([^)]*\)/g, "");
    const pages = (text: string) => [...text.matchAll(/`(\/[a-z]+)`/g)].map((m) => m[1]!);
    const open = pages(/([^.]*) are public/.exec(paragraph)?.[1] ?? "");
    const signedIn = pages(/once signed in, ([^.]*)/.exec(paragraph)?.[1] ?? "");
    expect(open).toEqual(expect.arrayContaining(["/status", "/docs"]));
    expect(signedIn).toEqual(["/board"]);
    for (const page of open) expect((await fetch(`${server.url}${page}`)).status, page).toBe(200);
    for (const page of signedIn) {
      const answer = await fetch(`${server.url}${page}`, { redirect: "manual" });
      expect(answer.status, page).toBe(307);
      expect(answer.headers.get("location"), page).toMatch(/^\/console\/sign-in\?next=/);
    }
  });

  it("of the quickstart work pasted a block at a time with a sandbox key, at its two requests a second", async () => {
    const blocks = [...readFileSync("docs/quickstart.md", "utf8").matchAll(/```sh\n([\s\S]*?)```/g)]
      .map((block) => block[1]!)
      // The blocks of requests, not the ones that install, change folder or follow a stream.
      .filter((block) => block.includes("curl ") && !block.includes(" -N "))
      .filter((block) => block.split("\n").every((line) => line === "" || /^(curl |sleep |#)/.test(line)));
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    for (const block of blocks) {
      // Each curl says its status on a line of its own; the block runs as a reader's shell runs it.
      const script = `curl() { command curl -sS -o /dev/null -w 'status %{http_code}\\n' "$@"; }\n${block}`;
      const result = spawnSync("sh", ["-c", script.replaceAll(EXAMPLE_ADDRESS, server.url)], {
        env: { ...process.env, KEY: sandboxKey },
        encoding: "utf8",
        timeout: 30_000,
      });
      const statuses = [...result.stdout.matchAll(/^status (\d+)$/gm)].map((m) => Number(m[1]));
      expect(statuses, block).toEqual(block.match(/^curl /gm)!.map(() => 200));
    }
  });

  it("answer on a real server, each as its page says: the requests with data, the streams with a snapshot", async () => {
    const examples = [...documentedExamples(), ...(await openApiExamples(server.url))];
    const sources = new Set(examples.map((e) => e.source));
    for (const expected of [
      "README.md",
      "docs/api.md",
      "docs/streams.md",
      "docs/operations.md",
      "docs/mcp.md",
      "app/page.tsx",
    ]) {
      expect(sources, expected).toContain(expected);
    }
    expect(examples.filter((e) => / -N /.test(e.command)).length).toBeGreaterThanOrEqual(4);
    // Each stream's code sample follows it as a stream (-N), and names the reader's event, not an invented one.
    for (const operation of ["streamEvent", "streamOdds"]) {
      const samples = examples.filter((e) => e.source === `openapi.json ${operation} x-codeSamples`);
      expect(samples.map((e) => e.command)).toEqual([expect.stringMatching(/^curl -N /)]);
    }
    expect(examples.find((e) => e.source === "openapi.json streamEvent x-codeSamples")!.command).toContain(
      "/api/v1/events/$EVENT/stream",
    );
    const reference = JSON.stringify(await (await fetch(`${server.url}/api/v1/openapi.json`)).json());
    expect(reference).toContain("http://localhost:3000/api/v1/events/$EVENT/stream");
    expect(reference).not.toContain("soc-bdrn-983512/stream");

    for (const { source, command } of examples) {
      const where = `${source}: ${command}`;
      expect(command, where).toContain(EXAMPLE_ADDRESS);
      const { output } = await run(command.replaceAll(EXAMPLE_ADDRESS, server.url), env);
      if (/ -N /.test(command)) {
        expect(output, where).toMatch(/^retry: \d+\n/);
        expect(output, where).toMatch(/event: snapshot\n/);
      } else {
        expect(output, where).toMatch(/\nstatus 200\n$/);
        const body = output.slice(0, output.lastIndexOf("\nstatus "));
        if (command.includes("/metrics")) expect(body, where).toMatch(/^# HELP /m);
        else if (command.includes("/mcp")) {
          // A JSON-RPC answer of the MCP server: a tool's result carrying the API's data, not a tool error.
          const answer = JSON.parse(body) as { result?: { isError?: boolean } };
          expect(answer, where).toMatchObject({
            jsonrpc: "2.0",
            result: { structuredContent: { data: expect.anything() } },
          });
          expect(answer.result?.isError, where).toBeFalsy();
        } else expect(JSON.parse(body), where).toMatchObject({ data: expect.anything() });
      }
    }
  });
});
