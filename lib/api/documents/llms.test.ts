import { describe, expect, it } from "vitest";
import { DESKTOP_CONFIG, MCP_PATH, SDK_CLIENT } from "../../mcp/connect.ts";
import { LLMS_FULL_PATH, llmsFullText, llmsText, type OpenApiDocument } from "./llms.ts";
import { openApiDocument } from "./openapi.ts";
import { ASYNCAPI_PATH, OPENAPI_PATH } from "../request/router.ts";

// /llms.txt and /llms-full.txt say what the OpenAPI document says: every operation, in the shape
// of the llms.txt convention, with links that lead into the document.

const document = openApiDocument() as OpenApiDocument;
const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
);
const texts = { "llms.txt": llmsText(document), "llms-full.txt": llmsFullText(document) };

describe.each(Object.entries(texts))("%s", (_name, text) => {
  it("names every operation of the OpenAPI document, with its summary", () => {
    expect(operations.length).toBeGreaterThan(5);
    for (const { path, method, operation } of operations) {
      expect(text).toContain(`${method.toUpperCase()} ${path}`);
      expect(text).toContain(operation.summary);
    }
  });

  it("starts with the service's name and a summary, and prints no placeholder of a missing value", () => {
    expect(text.split("\n").slice(0, 3)).toEqual([`# ${document.info.title}`, "", expect.stringMatching(/^> \S/)]);
    expect(text).not.toMatch(/undefined|\[object Object\]|\bNaN\b|: \.|\(\)/);
    expect(text).toContain(OPENAPI_PATH);
    expect(text).toContain(ASYNCAPI_PATH);
  });

  // (In llms.txt before its sections of links: they hold links only, as the test below checks.)
  it("says how to connect an MCP client: a desktop assistant's configuration and the SDK's client, whole", () => {
    expect(text).toContain(`at \`${MCP_PATH}\``);
    expect(text).toContain(`\`\`\`json\n${DESKTOP_CONFIG}\n\`\`\``);
    expect(text).toContain(`\`\`\`ts\n${SDK_CLIENT}\n\`\`\``);
  });
});

describe("llms.txt", () => {
  const text = texts["llms.txt"];

  it("links each operation to its place in the OpenAPI document", () => {
    const links = [...text.matchAll(/^- \[(GET|HEAD) ([^\]]+)\]\(([^)]+)\): \S/gm)];
    expect(links.map((m) => `${m[1]} ${m[2]}`).sort()).toEqual(
      operations.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort(),
    );
    for (const [, , path, link] of links) {
      const [file, fragment] = link!.split("#") as [string, string];
      expect(file).toBe(OPENAPI_PATH);
      // RFC 6901: percent-decoded, then ~1 is "/" and ~0 is "~".
      const tokens = decodeURIComponent(fragment).slice(1).split("/");
      const target = tokens
        .map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"))
        .reduce<unknown>((node, token) => (node as Record<string, unknown>)[token], document);
      expect(target, link).toBe(document.paths[path!]!.get);
    }
  });

  it("has its sections as H2 headings holding lists of links, the full text among them", () => {
    const sections = text.split(/^## /m).slice(1);
    expect(sections.map((s) => s.split("\n")[0])).toEqual([...document.tags.map((t) => t.name), "Documents"]);
    for (const section of sections) {
      const body = section.split("\n").slice(1).filter(Boolean);
      for (const line of body) expect(line).toMatch(/^- \[[^\]]+\]\([^)]+\): \S/);
    }
    expect(text).toContain(`](${LLMS_FULL_PATH})`);
  });
});

describe("llms-full.txt", () => {
  const text = texts["llms-full.txt"];

  it("gives each operation's id, description, parameters and every error code it can answer", () => {
    for (const { operation } of operations) {
      expect(text).toContain(`\`${operation.operationId}\``);
      expect(text).toContain(operation.description);
      for (const parameter of operation.parameters) {
        expect(text).toContain(
          `- \`${parameter.name}\` (${parameter.in}, ${parameter.required ? "required" : "optional"})`,
        );
      }
      for (const response of Object.values(operation.responses)) {
        for (const code of Object.keys(response.content?.["application/problem+json"]?.examples ?? {})) {
          expect(text).toContain(`\`${code}\``);
        }
      }
    }
  });

  it("lists each stream's messages with their data, the credentials, the limit headers and every schema", () => {
    expect(text).toMatch(/^ {2}- `snapshot`: .*\(data: EventSnapshotMessage; the `id:` field/m);
    expect(text).toMatch(/^ {2}- `end`: .*\(data: EndMessage; the `retry:` field/m);
    expect(text).toContain("`Authorization: Bearer svc_sk_…`");
    expect(text).toContain("`X-Api-Key: svc_sk_…`");
    expect(text).toContain("- `RateLimit`: ");
    expect(text).toContain("application/problem+json");
    for (const name of Object.keys(document.components.schemas)) expect(text).toContain(`### ${name}\n`);
  });
});
