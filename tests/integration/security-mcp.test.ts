import { afterAll, beforeAll, expect, it } from "vitest";
import { TOOLS, type Tool } from "../../lib/mcp/tools.ts";
import { describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { recordSecret } from "../../testing/logs.ts";
import { callTool, mcpClient, type ToolAnswer } from "../../testing/mcp.ts";
import type { RunningServer } from "../../testing/processes.ts";
import {
  BURST,
  CASES,
  EVENT_ID,
  header,
  MARKET_ID,
  securityKeys,
  securityServer,
  SPORT,
  type Keys,
  type Target,
} from "../../testing/security.ts";

// The security suite's table of credential cases (testing/security.ts) over every tool of the MCP
// server, as security.test.ts runs it over every operation: each tool is called through the SDK's
// own client with each case's headers, the case's query parameters as its arguments, and each
// refusal is a tool error carrying the problem the operation answers over HTTP. A tool is no
// stream, so the cases of streams' tokens do not apply; a token sent as a key does.

type ToolRow = Target & { tool: Tool };

const ROWS_BY_TOOL: ToolRow[] = TOOLS.map((tool) => ({
  tool,
  stream: false,
  readsASport: "sport" in tool.input.shape || "id" in tool.input.shape,
}));

const ROWS = ROWS_BY_TOOL.flatMap((row) =>
  CASES.filter((c) => c.appliesTo?.(row) ?? true).map((c) => ({
    name: `${row.tool.name} refuses ${c.refuses} with ${c.status} ${c.code}`,
    row,
    case: c,
  })),
);

describeEachBackend("the security of every MCP tool on $name", (backend) => {
  const database = useTestDatabase(backend);
  let server: RunningServer;
  let keys: Keys;
  let revision: number;

  beforeAll(async () => {
    keys = await securityKeys(database().env);
    ({ server, revision } = await securityServer(database().env, keys));
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** The arguments every call of `tool` gets: its required ones, and the sport where it filters by one. */
  function argumentsOf(tool: Tool): Record<string, string> {
    const values: Record<string, string> = {
      id: EVENT_ID,
      market_id: MARKET_ID,
      since: "0",
      as_of: String(revision),
      sport: SPORT,
    };
    const args: Record<string, string> = {};
    for (const [name, schema] of Object.entries(tool.input.shape)) {
      const required = !schema.safeParse(undefined).success;
      if (required || name === "sport") args[name] = values[name]!;
    }
    return args;
  }

  async function call(tool: Tool, headers: Record<string, string>, query?: string): Promise<ToolAnswer> {
    const client = await mcpClient(server.url, headers);
    try {
      const extra = Object.fromEntries(new URLSearchParams(query ?? ""));
      for (const value of Object.values(extra)) recordSecret(value);
      return await callTool(client, tool.name, { ...argumentsOf(tool), ...extra });
    } finally {
      await client.close();
    }
  }

  it("runs the table over every tool the server lists", async () => {
    const client = await mcpClient(server.url);
    const { tools } = await client.listTools();
    await client.close();
    expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
    expect(ROWS.length).toBeGreaterThan(TOOLS.length * 10);
  });

  it.each(ROWS_BY_TOOL.map(({ tool }) => ({ name: tool.name, tool })))(
    "$name admits a working key",
    async ({ tool }) => {
      const answer = await call(tool, header(keys.working));
      expect(answer.isError, answer.summary).toBe(false);
    },
  );

  it.each(ROWS)("$name", async ({ row, case: c }) => {
    const answer = await call(row.tool, c.headers(keys), c.query?.(keys));
    expect(answer.isError, answer.summary).toBe(true);
    expect(answer.problem).toMatchObject({
      code: c.code,
      status: c.status,
      request_id: expect.stringMatching(/^req_[0-9a-f]{32}$/),
    });
    expect(answer.summary).toBe(`${answer.problem!.title}: ${answer.problem!.detail}`);
    if (c.violated) {
      expect(answer.problem).toMatchObject({ "violated-policies": c.violated });
      expect(answer.problem!.retry_after).toBeGreaterThanOrEqual(1);
    }
  });

  it.each(ROWS_BY_TOOL.map(({ tool }) => ({ name: tool.name, tool })))(
    "$name refuses calls beyond the key's per-second limit with rate_limited",
    async ({ tool }) => {
      const client = await mcpClient(server.url, header(keys.oneASecond));
      try {
        const answers = await Promise.all(
          Array.from({ length: BURST }, () => callTool(client, tool.name, argumentsOf(tool))),
        );
        // How many fall in one second depends on the machine's speed; that one at least is refused does not.
        const refused = answers.filter((answer) => answer.isError);
        expect(refused.length).toBeGreaterThanOrEqual(1);
        for (const answer of refused) {
          expect(answer.problem).toMatchObject({ code: "rate_limited", "violated-policies": ["second"] });
          expect(answer.problem!.retry_after).toBeGreaterThanOrEqual(1);
        }
      } finally {
        await client.close();
      }
    },
  );
});
