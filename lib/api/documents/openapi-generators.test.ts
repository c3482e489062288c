import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STREAM_ENDPOINTS } from "../endpoints/streams.ts";
import { openApiDocument } from "./openapi.ts";
import { components } from "../endpoints/schemas.ts";

// The client a key holder generates from the document, with openapi-typescript and openapi-fetch:
// a stream's 200 must come out as its messages, each `data` typed by its component, and the
// client must open a stream as a body to read (`parseAs: "stream"`), not as a string to parse.

const streams = STREAM_ENDPOINTS.map((endpoint) => ({
  path: endpoint.path,
  operationId: endpoint.operationId,
  messages: Object.entries(endpoint.stream!.messages).map(([event, schema]) => ({
    event,
    component: components.get(schema)!.id,
  })),
}));

let generated: string;
const require = createRequire(import.meta.url);
const folder = mkdtempSync(join(tmpdir(), "openapi-generators-"));

beforeAll(async () => {
  generated = astToString(await openapiTS(JSON.stringify(openApiDocument())));
}, 30_000);

afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The generated type of an operation's `text/event-stream` body, as text. */
function streamBody(operationId: string): string {
  const operation = generated.slice(generated.indexOf(`\n    ${operationId}: {`));
  const body = /"text\/event-stream": ([^]*?);\n {16}\};/.exec(operation);
  if (!body) throw new Error(`No text/event-stream body in the generated operation ${operationId}.`);
  return body[1]!;
}

// Type-level checks and calls a key holder would write; a wrong claim is a compiler diagnostic.
function clientProgram(): string {
  const checks = streams.flatMap(({ path, messages }) => [
    `export const events_${messages.length}_${path.length}: Equal<Message<"${path}">["event"], ${messages
      .map((m) => JSON.stringify(m.event))
      .join(" | ")}> = true;`,
    ...messages.map(
      (m) =>
        `export const data_${m.component}_${path.length}: Equal<Extract<Message<"${path}">, { event: "${m.event}" }>["data"], ` +
        `components["schemas"]["${m.component}"]> = true;`,
    ),
  ]);
  return `import createClient from "openapi-fetch";
import type { components, paths } from "./api.ts";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Message<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { "text/event-stream": infer M } } } };
}
  ? M
  : never;

${checks.join("\n")}

const client = createClient<paths>({ baseUrl: "http://localhost:3000", headers: { Authorization: "Bearer key" } });

export async function follow(): Promise<ReadableStream<Uint8Array<ArrayBuffer>>[]> {
  const board = await client.GET("/api/v1/odds/stream", {
    params: { query: { sport: "soccer" }, header: { "Last-Event-ID": "42" } },
    parseAs: "stream",
  });
  const game = await client.GET("/api/v1/events/{id}/stream", { params: { path: { id: "soc-1" } }, parseAs: "stream" });
  // @ts-expect-error: the board's query is typed, not anything goes
  await client.GET("/api/v1/odds/stream", { params: { query: { sport: "curling" } }, parseAs: "stream" });
  const refused: components["schemas"]["Problem"]["code"] | undefined = board.error?.code ?? game.error?.code;
  if (refused) throw new Error(refused);
  // The 204 of a finished event leaves no body: undefined, as openapi-fetch answers it.
  return [board.data, game.data].filter((body): body is ReadableStream<Uint8Array<ArrayBuffer>> => body != null);
}

export async function odds(): Promise<number> {
  const { data, error } = await client.GET("/api/v1/odds", { params: { query: { sport: "soccer" } } });
  if (error) throw new Error(error.code);
  return data.meta.requests_used;
}
`;
}

function diagnostics(files: Record<string, string>): string[] {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
  const openapiFetch = join(dirname(require.resolve("openapi-fetch/package.json")), "dist/index.d.mts");
  const program = ts.createProgram({
    rootNames: Object.keys(files).map((name) => join(folder, name)),
    options: {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      allowImportingTsExtensions: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
      types: [],
      paths: { "openapi-fetch": [openapiFetch] },
    },
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    // The line itself says which check failed, where the message alone ("true is not false") does not.
    const line =
      d.file && d.start !== undefined
        ? d.file.text.split("\n")[d.file.getLineAndCharacterOfPosition(d.start).line]
        : "";
    return `${ts.flattenDiagnosticMessageText(d.messageText, "\n")} at: ${line?.trim()}`;
  });
}

describe("the client openapi-typescript and openapi-fetch make of the OpenAPI document", () => {
  it.each(streams)("types the body of $path as its messages, not a string", ({ operationId, messages }) => {
    const body = streamBody(operationId);
    expect(body).not.toMatch(/^string$/);
    for (const { event, component } of messages) {
      expect(body).toContain(`event: "${event}";`);
      expect(body).toContain(`data: components["schemas"]["${component}"];`);
    }
  });

  it("compiles a client that opens both streams as bodies to read, and a plain operation", () => {
    expect(diagnostics({ "api.ts": generated, "client.ts": clientProgram() })).toEqual([]);
  }, 30_000);
});
