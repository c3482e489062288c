import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { recordCredentials } from "./logs.ts";

// The MCP server as an assistant reaches it: the official SDK's own client over Streamable HTTP,
// the key in the headers its configuration sets. Every credential sent is recorded as a secret,
// so that no server log may hold it.

/** The protocol's current revision: no handshake, every request carrying its version. */
export const CURRENT_REVISION = "2026-07-28";

/** The earlier revisions a client may ask for in the `initialize` handshake, newest first. */
export const EARLIER_REVISIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;

/** A refused call's structured content: the API's problem, and `retry_after` when it said. */
export type ToolProblem = {
  code: string;
  title: string;
  detail: string;
  status: number;
  request_id: string;
  retry_after?: number;
  errors?: { param: string; message: string }[];
  "violated-policies"?: string[];
};

export type ToolMeta = {
  sandbox: boolean;
  delay_seconds: number;
  requests_used: number;
  requests_quota: number;
  revision: number;
  [name: string]: unknown;
};

/** A tool's result as the tests read it: the summary and the structured content, answer or problem. */
export type ToolAnswer =
  | { isError: false; summary: string; data: unknown; meta: ToolMeta; problem?: never }
  | { isError: true; summary: string; problem: ToolProblem; data?: never; meta?: never };

/** What the tests call a tool on: the current SDK's client or the 1.x one (the shape is the same). */
export type ToolCaller = {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<Record<string, unknown>>;
};

/**
 * A connected client of the current SDK (tools listed, so that it checks every result's schema):
 * at the current revision, or at `revision`, an earlier one it asks for in the handshake.
 */
export async function mcpClient(
  baseUrl: string,
  headers: Record<string, string> = {},
  revision: string = CURRENT_REVISION,
): Promise<Client> {
  recordCredentials(headers);
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers } });
  const client = new Client(
    { name: "integration-tests", version: "1.0.0" },
    revision === CURRENT_REVISION
      ? { versionNegotiation: { mode: { pin: CURRENT_REVISION } } }
      : { supportedProtocolVersions: [revision] },
  );
  await client.connect(transport);
  await client.listTools();
  return client;
}

/** A connected client of the SDK's 1.x line (`@modelcontextprotocol/sdk`), as many assistants still ship. */
export async function legacyMcpClient(baseUrl: string, headers: Record<string, string> = {}): Promise<LegacyClient> {
  recordCredentials(headers);
  const transport = new LegacyTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers } });
  const client = new LegacyClient({ name: "integration-tests-1x", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  return client;
}

export async function callTool(
  client: ToolCaller,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args });
  const summary = (result.content as { type: string; text: string }[])[0]!.text;
  if (result.isError) return { isError: true, summary, problem: result.structuredContent as ToolProblem };
  const { data, meta } = result.structuredContent as { data: unknown; meta: ToolMeta };
  return { isError: false, summary, data, meta };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
