import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type Tool as ToolDefinition,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { logger } from "../log/index.ts";
import type { Api, ApiRequest } from "./api-seam.ts";
import { getPrompt, PROMPTS } from "./prompts.ts";
import { readResource, RESOURCES } from "./resources.ts";
import { toolResult, ToolProblem } from "./results.ts";
import type { Splices } from "./splice.ts";
import { TOOLS, TOOLS_BY_NAME, type OperationCall } from "./tools.ts";

// The MCP server of one HTTP request (every exchange is served by an instance of its own): the
// SDK's low-level Server with a handler per method. Tool calls are the API's operations, run by the
// API's router and pipeline; the rest (initialize, listing and reading) describes the API and is
// neither keyed nor counted.

/** Who is calling: the HTTP request's headers and the connection's peer. */
export type Caller = { header(name: string): string | undefined; peer: string | undefined };

// What of the caller's request the API's request carries: its credentials and where it came from
// (for the key's IP allowlist and the count of unknown keys per address); never its cookies.
const CALLER_HEADERS = new Set(["authorization", "x-api-key", "x-forwarded-for"]);

/** The API request a tool's call is: a GET of its operation, with the caller's credentials and address. */
export function operationRequest(call: OperationCall, caller: Caller): ApiRequest {
  return {
    method: "GET",
    path: call.path,
    query: call.query,
    header: (name) => (CALLER_HEADERS.has(name) ? caller.header(name) : undefined),
    peer: caller.peer,
  };
}

const INSTRUCTIONS =
  "Live and upcoming sports events (status, score, clock, period, statistics), lineups and odds in decimal form, " +
  "for the sports the key covers. Every tool call is one request counted against the key's monthly quota and held " +
  "to its per-second limit (account_status shows both and the usage so far); listing and reading resources and " +
  "prompts is free. A sandbox key sees one sport, as the feed was 60 seconds earlier (`meta.sandbox`). To follow " +
  "the board, call get_odds once, then changes_since with `since` = its `meta.revision`, then each answer's " +
  "`meta.next_since`. A refused call is a tool error: its text says what went wrong and what to do, and its " +
  "structured content has the `code`, the `request_id` to quote, and `retry_after` seconds when waiting helps.";

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const json: JsonSchema = z.toJSONSchema(schema, { io, target: "draft-2020-12" });
  delete json.$schema;
  return json;
}

// Built once: the tools' definitions are the same for every request.
const DEFINITIONS: ToolDefinition[] = TOOLS.map((tool) => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: jsonSchema(tool.input, "input") as ToolDefinition["inputSchema"],
  // A result is the operation's answer or, refused, its problem: clients check structured content against this.
  outputSchema: { type: "object", ...jsonSchema(z.union([tool.output, ToolProblem]), "output") },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
}));

export const SERVER_INFO = { name: "sports-event-data", title: "Sports Event Data", version: "1.0.0" };

export async function callTool(
  api: Api,
  caller: Caller,
  name: string,
  args: Record<string, unknown>,
  splices?: Splices,
): Promise<CallToolResult> {
  const tool = TOOLS_BY_NAME.get(name);
  if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No tool ${name}: tools/list names them.`);
  const call = tool.call(args);
  const response = await api.handle(operationRequest(call, caller));
  return toolResult(tool, response, splices);
}

const OUTPUT_SCHEMAS = new Map(DEFINITIONS.map((definition) => [definition.name, definition.outputSchema]));

// The low-level Server, not McpServer: McpServer checks a call's arguments against the input
// schema before the handler, refusing with its own message, uncounted and without a code; here
// the API's pipeline checks them, so a bad argument is the operation's counted 400.
/** The server of one exchange: `splices` gathers the stand-ins its answer is written with (splice.ts). */
export function mcpServer(api: Api, caller: Caller, splices?: Splices): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {}, resources: {}, prompts: {} },
    instructions: INSTRUCTIONS,
  });
  server.setRequestHandler("tools/list", () => ({ tools: DEFINITIONS }));
  server.setRequestHandler("tools/call", async ({ params }) => {
    try {
      const result = await callTool(api, caller, params.name, params.arguments ?? {}, splices);
      // The protocol revision's own shape of a result (the SDK's one place for it).
      return server.projectCallToolResult(result, OUTPUT_SCHEMAS.get(params.name));
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      // The SDK would send the error's message; the client gets nothing of an internal failure.
      logger().error({ err: error, tool: params.name }, "MCP tool call failed");
      throw new ProtocolError(ProtocolErrorCode.InternalError, "Something went wrong on our side.");
    }
  });
  server.setRequestHandler("resources/list", () => ({ resources: RESOURCES }));
  server.setRequestHandler("resources/read", ({ params }) => readResource(params.uri));
  server.setRequestHandler("prompts/list", () => ({ prompts: PROMPTS }));
  server.setRequestHandler("prompts/get", ({ params }) => getPrompt(params.name, params.arguments));
  return server;
}
