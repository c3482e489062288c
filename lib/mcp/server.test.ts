import { createServer, type Server } from "node:http";
import type { Client } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  callTool,
  CURRENT_REVISION,
  EARLIER_REVISIONS,
  legacyMcpClient,
  mcpClient,
  type ToolCaller,
} from "../../testing/mcp.ts";
import { Payload } from "../api/request/payload.ts";
import { matchEndpoint } from "../api/request/router.ts";
import type { Api, ApiRequest, ApiResponse } from "./api-seam.ts";
import { EventPath, OddsQuery, listEvents } from "./api-seam.ts";
import { mcpHandler } from "./http.ts";

// The server's wiring, through its HTTP handler on a loopback port, with the SDK's own client and
// an API that records what it is asked: each tool call is one request of its operation, carrying
// the caller's credentials and address and nothing else of theirs, and its answer becomes the
// tool's result; clients of the protocol's earlier revisions, and of the SDK's 1.x line, are
// served the same.

type Served = { operationId: string | null; params: Record<string, string>; request: ApiRequest };

const META = { sandbox: false, delay_seconds: 0, requests_used: 7, requests_quota: 100, revision: 42 };
const KEY = "svc_sk_3YeWOuRAwr1LcfmOtnh7RqkQr53gFRLm";

function answer(status: number, body: unknown, headers: Record<string, string> = {}): ApiResponse {
  return { status, headers: { "x-request-id": "req_1", ...headers }, body: [Buffer.from(JSON.stringify(body))] };
}

/** An API that records each request with the operation the API's router finds for its path. */
function recordingApi(reply: (served: Served) => ApiResponse) {
  const served: Served[] = [];
  const api: Api = {
    handle(request: ApiRequest) {
      const { endpoint, params } = matchEndpoint(request.path);
      const call = { operationId: endpoint?.operationId ?? null, params, request };
      served.push(call);
      return Promise.resolve(reply(call));
    },
  };
  return { api, served };
}

const CALLER_HEADERS: Record<string, string> = {
  authorization: `Bearer ${KEY}`,
  "x-forwarded-for": "203.0.113.9",
  cookie: "next-auth.session-token=secret",
};

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const each of opened.splice(0).reverse()) await each.close();
});

/** The MCP endpoint serving `api` on a loopback port. */
async function endpoint(api: Api): Promise<string> {
  const server: Server = createServer(mcpHandler(api));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  opened.push({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/** A client of the current SDK at `revision` (the current one by default), tools listed. */
async function connected(api: Api, revision: string = CURRENT_REVISION): Promise<Client> {
  const client = await mcpClient(await endpoint(api), CALLER_HEADERS, revision);
  opened.push(client);
  return client;
}

const event = {
  id: "a:b",
  sport: "soccer",
  competition: "League",
  home: "Home",
  away: "Away",
  status: "live",
  feed: "official",
  kickoff: "2026-11-21T14:30:00.000Z",
  score: { home: 1, away: 0 },
  clock: "67:12",
  period: "2nd half",
  stats: [],
  updated_at: "2026-11-21T15:41:07.214Z",
  sandbox: false,
};

describe("the MCP server", () => {
  it("lists every tool with its operation's parameters as its input schema", async () => {
    const client = await connected(recordingApi(() => answer(200, {})).api);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "account_status",
      "list_events",
      "get_event",
      "get_lineups",
      "get_odds",
      "get_event_odds",
      "changes_since",
      "state_as_of",
      "market_history",
    ]);
    const byName = new Map(tools.map((t) => [t.name, t]));
    const listed = byName.get("list_events")!.inputSchema;
    expect(listed).toEqual({
      type: "object",
      ...z.toJSONSchema(listEvents.query, { io: "input", target: "draft-2020-12" }),
      $schema: undefined,
    });
    expect(Object.keys(listed.properties!)).toEqual(["sport", "status", "limit", "cursor", "as_of"]);
    expect(byName.get("get_event")!.inputSchema).toMatchObject({ required: ["id"], additionalProperties: false });
    expect(Object.keys(byName.get("market_history")!.inputSchema.properties!)).toEqual([
      "id",
      "market_id",
      "from",
      "to",
    ]);
    expect(byName.get("changes_since")!.inputSchema.required).toEqual(["since"]);
    expect(byName.get("state_as_of")!.inputSchema).toMatchObject({
      required: ["as_of"],
      properties: {
        id: { pattern: z.toJSONSchema(EventPath.shape.id).pattern },
        type: { enum: (z.toJSONSchema(OddsQuery.shape.type.unwrap()) as { enum: string[] }).enum },
      },
    });
    for (const tool of tools) {
      expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: true, openWorldHint: false });
      // An answer or a problem: the client checks structured content against it.
      expect(tool.outputSchema, tool.name).toMatchObject({
        type: "object",
        anyOf: [{}, { required: expect.any(Array) }],
      });
    }
  });

  it("makes each call one GET of its operation, with the caller's key and address and nothing else of theirs", async () => {
    const { api, served } = recordingApi(({ operationId }) =>
      operationId === "getEvent"
        ? answer(200, { data: event, meta: META })
        : answer(200, { data: [], meta: { ...META, next_cursor: null } }),
    );
    const client = await connected(api);
    await client.callTool({ name: "get_event", arguments: { id: "a:b", as_of: 48213 } });
    await client.callTool({ name: "list_events", arguments: { sport: "soccer", limit: 5, cursor: null } });
    expect(served.map((s) => [s.operationId, s.params, s.request.path, s.request.query.toString()])).toEqual([
      ["getEvent", { id: "a:b" }, "/api/v1/events/a%3Ab", "as_of=48213"],
      ["listEvents", {}, "/api/v1/events", "sport=soccer&limit=5"],
    ]);
    const request = served[0]!.request;
    expect(request.method).toBe("GET");
    expect(request.peer).toBe("127.0.0.1");
    expect(request.header("authorization")).toBe(`Bearer ${KEY}`);
    expect(request.header("x-forwarded-for")).toBe("203.0.113.9");
    expect(request.header("cookie")).toBeUndefined();
    expect(request.header("accept-encoding")).toBeUndefined();
  });

  it("turns the board at a moment into the board's or the event's operation, and sends a missing moment empty", async () => {
    const { api, served } = recordingApi(() => answer(200, { data: [], meta: META }));
    const client = await connected(api);
    await client.callTool({ name: "state_as_of", arguments: { as_of: "2026-11-21T15:00:00Z", sport: "tennis" } });
    await client.callTool({ name: "state_as_of", arguments: { as_of: "48213", id: "e1", type: "total" } });
    await client.callTool({ name: "state_as_of", arguments: {} });
    expect(served.map((s) => [s.operationId, s.params, s.request.query.toString()])).toEqual([
      ["listOdds", {}, "sport=tennis&as_of=2026-11-21T15%3A00%3A00Z"],
      ["getEventOdds", { id: "e1" }, "type=total&as_of=48213"],
      ["listOdds", {}, "as_of="],
    ]);
  });

  it("answers with the API's data and meta, a summary, and the same JSON as text", async () => {
    const body = { data: event, meta: META };
    const client = await connected(recordingApi(() => answer(200, body)).api);
    // Listed first, so that the client checks the structured content against the tool's output schema.
    await client.listTools();
    const result = await client.callTool({ name: "get_event", arguments: { id: "a:b" } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(body);
    const [summary, json] = result.content as { type: string; text: string }[];
    expect(summary!.text).toBe(
      "Home 1-0 Away (soccer, League; live, 2nd half 67:12) [a:b]. Revision 42, real time; request 7 of 100 this month.",
    );
    expect(JSON.parse(json!.text)).toEqual(body);
  });

  it("declares output schemas a client holds the answers to", async () => {
    const client = await connected(
      recordingApi(() => answer(200, { data: { ...event, score: "1-0" }, meta: META })).api,
    );
    await client.listTools();
    await expect(client.callTool({ name: "get_event", arguments: { id: "a:b" } })).rejects.toThrow(
      /does not match the tool's output schema/,
    );
  });

  it("shows the key's hint, never the key, in account_status", async () => {
    const key = {
      key: KEY,
      environment: "production",
      sports: ["soccer"],
      name: null,
      allowed_ips: null,
      last_used_at: null,
      expires_at: null,
      plan: "pro",
      created_at: "2026-11-01T00:00:00.000Z",
      delay_seconds: 0,
      limits: { requests_per_month: 100, requests_per_second: 10, concurrent_streams: 5 },
      own_limits: null,
      quota_resets_at: "2026-12-01T00:00:00.000Z",
      history_seconds: 86_400,
      usage: {
        requests_used: 7,
        requests_quota: 100,
        resets_at: "2026-12-01T00:00:00.000Z",
        projected_exhaustion_at: null,
        organisation: null,
      },
    };
    const client = await connected(recordingApi(() => answer(200, { data: key, meta: META })).api);
    const result = await client.callTool({ name: "account_status", arguments: {} });
    expect(result.structuredContent).toMatchObject({ data: { key: `svc_sk_…${KEY.slice(-4)}` } });
    expect(JSON.stringify(result)).not.toContain(KEY);
    expect((result.content as { text: string }[])[0]!.text).toContain("7 of 100 requests used this month");
  });

  it("turns a refusal into a tool error: title and detail as text, the problem with retry_after as structured content", async () => {
    const problem = {
      type: "/docs/errors#rate_limited",
      title: "Rate limited",
      status: 429,
      detail: "Over the key's limit of 2 requests per second.",
      code: "rate_limited",
      request_id: "req_1",
      "violated-policies": ["second"],
    };
    const client = await connected(recordingApi(() => answer(429, problem, { "retry-after": "1" })).api);
    await client.listTools();
    const result = await client.callTool({ name: "get_odds", arguments: {} });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]!.text).toBe(
      "Rate limited: Over the key's limit of 2 requests per second.",
    );
    expect(result.structuredContent).toEqual({ ...problem, retry_after: 1 });
  });

  it("answers an unknown tool, resource or prompt with a protocol error, and an internal failure with nothing of it", async () => {
    const client = await connected(
      recordingApi(() => {
        throw new Error("connection string postgres://secret@db");
      }).api,
    );
    await expect(client.callTool({ name: "place_bet", arguments: {} })).rejects.toThrow(/No tool place_bet/);
    await expect(client.readResource({ uri: "sports-data://nothing" })).rejects.toThrow(/No resource/);
    await expect(client.getPrompt({ name: "live_summary", arguments: {} })).rejects.toThrow(/needs the argument sport/);
    const failed = await client.callTool({ name: "get_odds", arguments: {} }).catch((error: unknown) => error);
    expect(String(failed)).toContain("Something went wrong on our side.");
    expect(String(failed)).not.toContain("postgres");
  });

  it("lists and reads the documents, and gives the prompts their arguments", async () => {
    const client = await connected(recordingApi(() => answer(200, {})).api);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([
      "sports-data://openapi.json",
      "sports-data://asyncapi.json",
      "sports-data://errors",
    ]);
    const openapi = await client.readResource({ uri: "sports-data://openapi.json" });
    const document = JSON.parse((openapi.contents[0] as { text: string }).text) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).toContain("/api/v1/events/{id}/odds");
    const errors = await client.readResource({ uri: "sports-data://errors" });
    expect((errors.contents[0] as { text: string }).text).toContain("- `quota_exceeded` (429, Monthly quota exceeded)");
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(["live_summary", "explain_market_movement"]);
    const prompt = await client.getPrompt({ name: "live_summary", arguments: { sport: "tennis" } });
    expect((prompt.messages[0]!.content as { text: string }).text).toContain("get_odds with sport=tennis");
  });

  it("negotiates the current revision with a client that probes for it", async () => {
    const client = await connected(recordingApi(() => answer(200, {})).api);
    expect(client.getProtocolEra()).toBe("modern");
    expect(client.getNegotiatedProtocolVersion()).toBe(CURRENT_REVISION);
  });

  const problem = {
    type: "/docs/errors#quota_exceeded",
    title: "Monthly quota exceeded",
    status: 429,
    detail: "The key used its monthly quota of 100 requests.",
    code: "quota_exceeded",
    request_id: "req_2",
    "violated-policies": ["month"],
  };
  /** Answers get_event with the event, as the API writes a cached view (its data, then its meta), and refuses anything else with the quota's problem. */
  const payload = new Payload(event);
  const eventOrQuota = () =>
    recordingApi(({ operationId }) =>
      operationId === "getEvent"
        ? { status: 200, headers: {}, body: payload.body(META, false) }
        : answer(429, problem, { "retry-after": "3600" }),
    ).api;

  /** The same tools, answers and tool errors, whichever client and revision. */
  async function servesTheSame(client: ToolCaller & { listTools(): Promise<{ tools: { name: string }[] }> }) {
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(9);
    const answered = await client.callTool({ name: "get_event", arguments: { id: "a:b" } });
    expect(answered.structuredContent).toEqual({ data: event, meta: META });
    const [summary, json] = answered.content as { text: string }[];
    expect(summary!.text).toContain("Home 1-0 Away");
    expect(JSON.parse(json!.text)).toEqual({ data: event, meta: META });
    const refused = await callTool(client, "get_odds");
    expect(refused).toEqual({
      isError: true,
      summary: `${problem.title}: ${problem.detail}`,
      problem: { ...problem, retry_after: 3600 },
    });
  }

  it.each(EARLIER_REVISIONS)(
    "serves a client that asks for %s in the handshake at that revision, with the same tools, answers and errors",
    async (revision) => {
      const client = await connected(eventOrQuota(), revision);
      expect(client.getProtocolEra()).toBe("legacy");
      expect(client.getNegotiatedProtocolVersion()).toBe(revision);
      await servesTheSame(client);
    },
  );

  it("serves the SDK's 1.x client (@modelcontextprotocol/sdk) the same", async () => {
    const client = await legacyMcpClient(await endpoint(eventOrQuota()), CALLER_HEADERS);
    opened.push(client);
    await servesTheSame(client);
  });
});
