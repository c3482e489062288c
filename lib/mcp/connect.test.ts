import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DESKTOP_CONFIG, MCP_PATH, SDK_CLIENT } from "./connect.ts";

// The pages that show how to connect an MCP client show the snippets the API reference and
// /llms.txt are built with (lib/api/documents/llms.test.ts holds those), so the docs cannot drift from them.

describe.each(["docs/quickstart.md", "docs/mcp.md"])("%s", (page) => {
  const text = readFileSync(page, "utf8");

  it("shows a desktop assistant's configuration and the SDK's client, as the reference does", () => {
    expect(text).toContain(`\`\`\`json\n${DESKTOP_CONFIG}\n\`\`\``);
    expect(text).toContain(`\`\`\`ts\n${SDK_CLIENT}\n\`\`\``);
    expect(text).toContain(`\`${MCP_PATH}\``);
  });
});
