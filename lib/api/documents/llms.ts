import { ASYNCAPI_PATH, OPENAPI_PATH } from "../request/router.ts";

// The API described for language models, in the llms.txt convention: /llms.txt (a title, a quoted
// summary, then H2 sections of links), here a link per operation, and /llms-full.txt, the whole
// reference as Markdown. Both are read off the OpenAPI
// document (lib/api/documents/openapi.ts), so they say what the reference says.

export const LLMS_PATH = "/llms.txt";
export const LLMS_FULL_PATH = "/llms-full.txt";

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  title?: string;
  description?: string;
};
type Parameter = { name: string; in: string; required: boolean; description?: string; schema: Schema };
type Content = { schema?: Schema; examples?: Record<string, { summary?: string; value: { status?: number } }> };
type Response = { description: string; headers?: Record<string, unknown>; content?: Record<string, Content> };
type Operation = {
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  parameters: Parameter[];
  responses: Record<string, Response>;
};
/** What these texts read of the OpenAPI document. */
export type OpenApiDocument = {
  openapi: string;
  info: { title: string; version: string; description: string };
  externalDocs?: { description: string; url: string };
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Schema>;
    headers: Record<string, { description: string }>;
    securitySchemes: Record<
      string,
      { type: string; scheme?: string; in?: string; name?: string; description?: string }
    >;
  };
};

const SCHEMA_REF = "#/components/schemas/";
// Integer bounds zod writes for any safe integer: they say nothing to a reader.
const SAFE = Number.MAX_SAFE_INTEGER;

const code = (value: unknown) => `\`${typeof value === "string" ? value : JSON.stringify(value)}\``;
const list = (values: unknown[]) => values.map(code).join(", ");

/** A schema in a few words: `Name` for a component, an enumeration spelled out, bounds and formats. */
function typeOf(schema: Schema, components: Record<string, Schema>): string {
  if (schema.$ref) {
    const name = schema.$ref.slice(SCHEMA_REF.length);
    const target = components[name];
    return target?.enum ? `${name} (one of ${list(target.enum)})` : name;
  }
  if (schema.allOf?.length === 1) return typeOf(schema.allOf[0]!, components);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return alternatives.map((s) => typeOf(s, components)).join(" or ");
  if (schema.const !== undefined) return code(schema.const);
  if (schema.enum) return `one of ${list(schema.enum)}`;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? "any"];
  const bounds: string[] = [];
  if (schema.format) bounds.push(schema.format);
  else if (schema.pattern) bounds.push(`matching ${code(schema.pattern)}`);
  const range = (min: number | undefined, max: number | undefined, unit: string) => {
    const low = min !== undefined && min > -SAFE ? min : undefined;
    const high = max !== undefined && max < SAFE ? max : undefined;
    if (low !== undefined && high !== undefined) bounds.push(`${unit}${low} to ${high}`);
    else if (low !== undefined) bounds.push(`${unit}at least ${low}`);
    else if (high !== undefined) bounds.push(`${unit}at most ${high}`);
  };
  range(schema.minimum, schema.maximum, "");
  if (schema.exclusiveMinimum !== undefined) bounds.push(`above ${schema.exclusiveMinimum}`);
  range(schema.minLength, schema.maxLength, "length ");
  range(schema.minItems, schema.maxItems, "items ");
  if (schema.default !== undefined) bounds.push(`default ${code(schema.default)}`);
  const base = types
    .map((type) => {
      if (type === "array" && schema.items) return `array of ${typeOf(schema.items, components)}`;
      if (type === "object" && schema.properties) return objectOf(schema, components);
      return type;
    })
    .join(" or ");
  return bounds.length > 0 ? `${base} (${bounds.join(", ")})` : base;
}

/** An inline object as `{name: type, optional?: type}`. */
function objectOf(schema: Schema, components: Record<string, Schema>): string {
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties ?? {}).map(
    ([name, property]) => `${name}${required.has(name) ? "" : "?"}: ${typeOf(property, components)}`,
  );
  return `{${fields.join(", ")}}`;
}

function operationsOf(document: OpenApiDocument) {
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );
  return document.tags.map((tag) => ({
    tag,
    operations: operations.filter(({ operation }) => operation.tags.includes(tag.name)),
  }));
}

/** The operation in the OpenAPI document, as a JSON Pointer in the fragment (RFC 6901, section 6). */
function operationLink(path: string, method: string): string {
  const pointer = ["paths", path, method.toLowerCase()].map((part) => part.replaceAll("~", "~0").replaceAll("/", "~1"));
  return `${OPENAPI_PATH}#/${pointer.map(encodeURIComponent).join("/")}`;
}

/** The messages of a stream's answer, as the OpenAPI document lists them: `title` is the SSE event name. */
function streamMessages(response: Response | undefined): Schema[] {
  return response?.content?.["text/event-stream"]?.schema?.oneOf ?? [];
}

type ErrorCode = { code: string; status: number | undefined; title: string | undefined; meaning: string | undefined };

/** The error codes an answer can carry, as its examples and its description (`code`: meaning) state them. */
function errorCodes(response: Response): ErrorCode[] {
  const examples = response.content?.["application/problem+json"]?.examples ?? {};
  const meanings = new Map([...response.description.matchAll(/^`(\w+)`: (.+)$/gm)].map((m) => [m[1], m[2]]));
  return Object.entries(examples).map(([name, example]) => ({
    code: name,
    status: example.value.status,
    title: example.summary,
    meaning: meanings.get(name),
  }));
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);
const FENCE = "```";
const fences = (text: string) => text.split(FENCE).length - 1;

/** The text's paragraphs; a fenced code block belongs to the paragraph before it, blank lines and all. */
function paragraphs(text: string): string[] {
  const joined: string[] = [];
  for (const part of text.split("\n\n")) {
    if (part.trim().length === 0) continue;
    const last = joined.at(-1);
    if (last !== undefined && (fences(last) % 2 === 1 || part.startsWith(FENCE)))
      joined[joined.length - 1] += `\n\n${part}`;
    else joined.push(part);
  }
  return joined;
}
/** The first two sentences of a paragraph. */
const gist = (paragraph: string) =>
  paragraph
    .split(/(?<=\.)\s+(?=[A-Z`])/)
    .slice(0, 2)
    .join(" ");

function documentsSection(document: OpenApiDocument, full: boolean): string[] {
  return [
    `- [OpenAPI ${document.openapi} document](${OPENAPI_PATH}): every endpoint, parameter, answer and error code, with the schemas`,
    `- [AsyncAPI 3.0 document of the streams](${ASYNCAPI_PATH}): each stream's channel, messages and their payloads`,
    ...(full ? [] : [`- [The whole reference as Markdown](${LLMS_FULL_PATH}): what this file links to, in one text`]),
    ...(document.externalDocs
      ? [`- [Error codes](${document.externalDocs.url}): ${document.externalDocs.description}`]
      : []),
  ];
}

/** Every error code of the document, once, in the order the answers list them. */
function allErrorCodes(document: OpenApiDocument) {
  const byCode = new Map<string, ErrorCode>();
  for (const { operations } of operationsOf(document)) {
    for (const { operation } of operations) {
      for (const response of Object.values(operation.responses)) {
        for (const error of errorCodes(response)) byCode.set(error.code, error);
      }
    }
  }
  return [...byCode.values()];
}

/** /llms.txt: the service in a paragraph, the rules that hold everywhere, and a link per operation. */
export function llmsText(document: OpenApiDocument): string {
  const [summary = "", ...sections] = paragraphs(document.info.description);
  const lines = [`# ${document.info.title}`, "", `> ${summary}`, ""];
  // A rule in a sentence or two; one that shows code (how to connect an MCP client) whole, after them.
  const withCode = sections.filter((section) => section.includes(FENCE));
  lines.push(...sections.filter((section) => !withCode.includes(section)).map((section) => `- ${gist(section)}`), "");
  lines.push(...withCode.flatMap((section) => [section, ""]));
  const codes = allErrorCodes(document).map((error) => error.code);
  lines.push(`Error codes (\`code\` in every problem body): ${list(codes)}.`, "");
  for (const { tag, operations } of operationsOf(document)) {
    lines.push(`## ${tag.name}`, "");
    for (const { method, path, operation } of operations) {
      const messages = streamMessages(operation.responses["200"]).map((message) => message.title);
      const sent = messages.length > 0 ? ` (Server-Sent Events: ${list(messages)})` : "";
      lines.push(`- [${method} ${path}](${operationLink(path, method)}): ${operation.summary}${sent}`);
    }
    lines.push("");
  }
  lines.push("## Documents", "", ...documentsSection(document, false), "");
  return lines.join("\n");
}

function parameterLine(parameter: Parameter, components: Record<string, Schema>): string {
  const where = `${parameter.in}, ${parameter.required ? "required" : "optional"}`;
  const description = parameter.description ? `. ${parameter.description}` : "";
  return `- \`${parameter.name}\` (${where}): ${typeOf(parameter.schema, components)}${description}`;
}

function responseLines(status: string, response: Response, components: Record<string, Schema>): string[] {
  const errors = errorCodes(response);
  if (errors.length > 0) return [`- ${status}: ${list(errors.map((error) => error.code))}`];
  const headers = Object.keys(response.headers ?? {});
  const lines = [`- ${status}: ${response.description}${headers.length > 0 ? ` Headers: ${list(headers)}.` : ""}`];
  for (const [type, content] of Object.entries(response.content ?? {})) {
    if (type === "text/event-stream") {
      for (const message of streamMessages(response)) {
        const { data, ...fields } = message.properties ?? {};
        const sse = Object.entries(fields).flatMap(([name, field]) =>
          name !== "event" && field.description ? [lowerFirst(field.description)] : [],
        );
        const payload = data ? typeOf(data, components) : "none";
        const extra = sse.length > 0 ? `; ${sse.join("; ")}` : "";
        lines.push(`  - \`${message.title}\`: ${message.description ?? ""} (data: ${payload}${extra})`);
      }
    } else if (content.schema) lines.push(`  - \`${type}\`: ${typeOf(content.schema, components)}`);
  }
  return lines;
}

function operationSection(method: string, path: string, operation: Operation, document: OpenApiDocument): string[] {
  const components = document.components.schemas;
  const lines = [`### ${method} ${path}`, "", `${operation.summary} (operation \`${operation.operationId}\`).`, ""];
  lines.push(operation.description, "");
  if (operation.parameters.length > 0) {
    lines.push("Parameters:", "", ...operation.parameters.map((p) => parameterLine(p, components)), "");
  }
  lines.push("Answers:", "");
  for (const [status, response] of Object.entries(operation.responses)) {
    lines.push(...responseLines(status, response, components));
  }
  lines.push("");
  return lines;
}

function schemaSection(name: string, schema: Schema, components: Record<string, Schema>): string[] {
  const lines = [`### ${name}`, ""];
  if (schema.description) lines.push(schema.description, "");
  if (!schema.properties) return [...lines, typeOf(schema, components), ""];
  const required = new Set(schema.required ?? []);
  for (const [property, field] of Object.entries(schema.properties)) {
    const presence = required.has(property) ? "" : ", optional";
    const description = field.description ? `. ${field.description}` : "";
    lines.push(`- \`${property}\` (${typeOf(field, components)}${presence})${description}`);
  }
  return [...lines, ""];
}

/** /llms-full.txt: the whole reference as Markdown, the rules first, then each operation, then the schemas. */
export function llmsFullText(document: OpenApiDocument): string {
  const components = document.components.schemas;
  const [summary = "", ...sections] = paragraphs(document.info.description);
  const lines = [`# ${document.info.title}`, "", `> ${summary}`, "", `Version ${document.info.version}.`, ""];
  lines.push("## Documents", "", ...documentsSection(document, true), "");
  lines.push("## Rules", "", ...sections.flatMap((section) => [section, ""]));
  lines.push("## Credentials", "", "Send one of these with every request:", "");
  for (const scheme of Object.values(document.components.securitySchemes)) {
    const kind = scheme.type === "http" ? `HTTP ${scheme.scheme}` : `${scheme.name} in the ${scheme.in}`;
    lines.push(`- ${scheme.description ?? kind} (${kind})`);
  }
  lines.push("", "## Response headers", "");
  for (const [name, header] of Object.entries(document.components.headers)) {
    lines.push(`- \`${name}\`: ${header.description}`);
  }
  lines.push("", "## Errors", "");
  if (components.Problem) {
    lines.push("Every error is a problem body (`application/problem+json`):", "");
    lines.push(...schemaSection("Problem", components.Problem, components).slice(2));
  }
  lines.push("Its `code`, with the status and title that come with it:", "");
  for (const error of allErrorCodes(document)) {
    const meaning = error.meaning ? `. ${error.meaning}` : "";
    lines.push(`- \`${error.code}\` (${error.status}, ${error.title})${meaning}`);
  }
  lines.push("");
  for (const { tag, operations } of operationsOf(document)) {
    lines.push(`## ${tag.name}`, "", `${tag.description}.`, "");
    for (const { method, path, operation } of operations) {
      lines.push(...operationSection(method, path, operation, document));
    }
  }
  lines.push("## Schemas", "");
  for (const [name, schema] of Object.entries(components)) lines.push(...schemaSection(name, schema, components));
  return lines.join("\n");
}
