// How an MCP client connects, in the words and snippets every document shows (the API reference,
// /llms.txt, the quickstart, docs/mcp.md). No imports: the OpenAPI document reads it, and lib/mcp
// reads lib/api.

/** Where the MCP server answers, beside /api/v1 on the same server. */
export const MCP_PATH = "/mcp";

/** The address the examples use; readers put theirs. */
const EXAMPLE_ORIGIN = "http://localhost:3000";

/** A desktop assistant's configuration (the `mcpServers` file most of them read), with the key in a header. */
export const DESKTOP_CONFIG = `{
  "mcpServers": {
    "sports-data": {
      "type": "http",
      "url": "${EXAMPLE_ORIGIN}${MCP_PATH}",
      "headers": { "Authorization": "Bearer svc_sk_…" }
    }
  }
}`;

/** The official TypeScript SDK's client over Streamable HTTP, at the protocol's current revision. */
export const SDK_CLIENT = `import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const transport = new StreamableHTTPClientTransport(new URL("${EXAMPLE_ORIGIN}${MCP_PATH}"), {
  requestInit: { headers: { Authorization: \`Bearer \${process.env.KEY}\` } },
});
// "auto": the protocol's current revision, 2026-07-28, which this server speaks (the default is the 2025 handshake).
const client = new Client({ name: "my-agent", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
await client.connect(transport);
const odds = await client.callTool({ name: "get_odds", arguments: { sport: "soccer", type: "match_winner" } });
console.log(odds.content[0].text, odds.structuredContent);`;

/** What the server is to an assistant, in a paragraph. */
export const MCP_SUMMARY =
  `An MCP server at \`${MCP_PATH}\` (Streamable HTTP, stateless) lets an AI assistant use a key as its holder does: ` +
  "its tools are the API's operations (`account_status`, `list_events`, `get_event`, `get_lineups`, `get_odds`, " +
  "`get_event_odds`, `changes_since`, `state_as_of`, `market_history`), with the same key headers, entitlements, " +
  "limits and errors; each tool call is one counted request, and listing tools, resources or prompts is free and " +
  "needs no key.";
