import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { recordCredentials } from "./logs.ts";

// The MCP server as an assistant reaches it: the official SDK's own client over Streamable HTTP,
// the key in the headers its configuration sets. Every credential sent is recorded as a secret,
// so that no server log may hold it.

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

/** A connected client (initialize done, tools listed so that it checks every result's schema). */
export async function mcpClient(baseUrl: string, headers: Record<string, string> = {}): Promise<Client> {
  recordCredentials(headers);
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers } });
  const client = new Client({ name: "integration-tests", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  return client;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args });
  const summary = (result.content as { type: string; text: string }[])[0]!.text;
  if (result.isError) return { isError: true, summary, problem: result.structuredContent as ToolProblem };
  const { data, meta } = result.structuredContent as { data: unknown; meta: ToolMeta };
  return { isError: false, summary, data, meta };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
