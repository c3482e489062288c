import { fileURLToPath } from "node:url";
import { lintFromString, loadConfig } from "@redocly/openapi-core";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "./openapi.ts";

// Redocly's `recommended` ruleset, as configured in redocly.yaml, over the document the API
// serves: no error and no warning. Among others, it finds a schema nothing reaches (the streams'
// messages, once, when they hung off an extension no tool reads).

describe("the OpenAPI document under Redocly's recommended rules", () => {
  it("has no problem", async () => {
    const config = await loadConfig({ configPath: fileURLToPath(new URL("../../../redocly.yaml", import.meta.url)) });
    const problems = await lintFromString({
      source: JSON.stringify(openApiDocument()),
      absoluteRef: "openapi.json",
      config,
    });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} (${p.location[0]?.pointer})`)).toEqual([]);
  });
});
