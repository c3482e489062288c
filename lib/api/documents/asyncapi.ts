import type { z } from "zod";
import { componentSchemas, openApiDocument } from "./openapi.ts";
import { componentIdOf, RESUME_NOTE, sseFields } from "./openapi-streams.ts";
import type { Endpoint } from "../request/pipeline.ts";
import { OPENAPI_PATH } from "../request/router.ts";
import { STREAM_ENDPOINTS } from "../endpoints/streams.ts";

// The AsyncAPI 3.0 document of the streams: a channel, a `receive` operation and a message per SSE
// event name for each stream endpoint (lib/api/endpoints/streams.ts), with the payloads drawn from
// the same zod schemas as the OpenAPI document, and the parameters, refusals and credentials as
// that document states them.

type JsonSchema = Record<string, unknown>;
type Parameter = { name: string; in: string; required: boolean; description?: string; schema: JsonSchema };
type Response = { description: string; content?: Record<string, { examples?: Record<string, unknown> }> };
type Operation = { parameters: Parameter[]; responses: Record<string, Response> };
type SecurityScheme = { type: string; scheme?: string; in?: string; name?: string; description?: string };
type OpenApi = {
  info: { title: string; version: string };
  paths: Record<string, { get: Operation }>;
  components: { securitySchemes: Record<string, SecurityScheme> };
};

const SCHEMA_REF = "#/components/schemas/";

const DESCRIPTION = `The Server-Sent-Events streams of the API. The REST endpoints, and each stream's HTTP answers (its parameters, a 204 for an event already over, every refusal with its code), are in the OpenAPI document, [${OPENAPI_PATH}](${OPENAPI_PATH}).

**Opening.** A stream is a \`GET\` of its channel's address on this server, with a key in \`Authorization: Bearer <key>\` or \`X-Api-Key\`, or, from a browser's EventSource, which cannot send a header, a stream token in \`?token=\`. Refusals come before the stream opens, as problem details (\`application/problem+json\`) with a stable \`code\`, as from every /api/v1 endpoint.

**Messages.** Each message is one SSE message: its name is the \`event:\` field, its payload the \`data:\` field (one line of JSON), and its headers the other SSE fields it carries: \`id:\`, the feed revision, and \`retry:\`.`;

const STREAM_TOKEN = {
  type: "httpApiKey",
  in: "query",
  name: "token",
  description:
    "A stream token from GET /api/v1/stream-token, prefix `svc_st_`, for browsers' EventSource, which cannot send a " +
    "header. Accepted on the streams only.",
};

/** The component schemas `root` refers to, directly or through each other. */
function reachable(root: unknown, all: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && value.startsWith(SCHEMA_REF)) {
        const id = value.slice(SCHEMA_REF.length);
        if (!found.has(id)) {
          found.add(id);
          visit(all[id]);
        }
      } else visit(value);
    }
  };
  visit(root);
  return Object.fromEntries(Object.keys(all).flatMap((id) => (found.has(id) ? [[id, all[id]!]] : [])));
}

/** The header credentials as the OpenAPI document describes them; the token, which only streams take. */
function securitySchemes(openApi: OpenApi): Record<string, SecurityScheme> {
  const schemes: Record<string, SecurityScheme> = {};
  for (const [name, scheme] of Object.entries(openApi.components.securitySchemes)) {
    if (scheme.type === "http") schemes[name] = scheme;
    if (scheme.type === "apiKey" && scheme.in === "header") schemes[name] = { ...scheme, type: "httpApiKey" };
  }
  return { ...schemes, streamToken: STREAM_TOKEN };
}

function message(event: string, schema: z.ZodType) {
  const { properties, required } = sseFields(event);
  const headers = { type: "object", properties, ...(required.length > 0 ? { required } : {}) };
  return {
    name: event,
    description: schema.description,
    contentType: "application/json",
    ...(Object.keys(properties).length > 0 ? { headers } : {}),
    payload: { $ref: `${SCHEMA_REF}${componentIdOf(event, schema)}` },
  };
}

function channel(endpoint: Endpoint, operation: Operation) {
  const parameters = operation.parameters.filter((p) => p.in === "path");
  return {
    address: endpoint.path,
    title: endpoint.summary,
    description: `${endpoint.description}\n\n${RESUME_NOTE}`,
    ...(parameters.length > 0
      ? { parameters: Object.fromEntries(parameters.map((p) => [p.name, { description: p.description }])) }
      : {}),
    messages: Object.fromEntries(
      Object.entries(endpoint.stream!.messages).map(([event, schema]) => [event, message(event, schema)]),
    ),
  };
}

/** Before the stream opens: the query and header parameters, the 204, and the refusals by status. */
function opening(operation: Operation): string {
  const headers = operation.parameters
    .filter((p) => p.in === "header")
    .map((p) => `Header \`${p.name}\`: ${p.description}`);
  const over = operation.responses["204"] ? [`204: ${operation.responses["204"].description}`] : [];
  const refusals = Object.entries(operation.responses)
    .filter(([status]) => Number(status) >= 400)
    .map(([status, response]) => {
      const codes = Object.keys(response.content?.["application/problem+json"]?.examples ?? {});
      return `${status}: ${codes.map((code) => `\`${code}\``).join(", ")}`;
    });
  return [
    ...headers,
    ...over,
    `Refusals (problem details, before the stream opens; each code on /docs/errors): ${refusals.join("; ")}.`,
  ].join("\n\n");
}

function querySchema(operation: Operation) {
  const query = operation.parameters.filter((p) => p.in === "query");
  return {
    type: "object",
    // Draft-07 ignores keywords beside a `$ref`: a referenced schema is wrapped to keep its description.
    properties: Object.fromEntries(
      query.map((p) => [
        p.name,
        "$ref" in p.schema
          ? { allOf: [p.schema], description: p.description }
          : { ...p.schema, description: p.description },
      ]),
    ),
    ...(query.some((p) => p.required) ? { required: query.filter((p) => p.required).map((p) => p.name) } : {}),
  };
}

let document: JsonSchema | undefined;

export function asyncApiDocument(): JsonSchema {
  if (document) return document;
  const openApi = openApiDocument() as OpenApi;
  const schemes = securitySchemes(openApi);
  const streams = STREAM_ENDPOINTS.map((endpoint) => ({ endpoint, operation: openApi.paths[endpoint.path]!.get }));
  const channels = Object.fromEntries(
    streams.map(({ endpoint, operation }) => [endpoint.operationId, channel(endpoint, operation)]),
  );
  const operations = Object.fromEntries(
    streams.map(({ endpoint, operation }) => [
      endpoint.operationId,
      {
        action: "receive",
        channel: { $ref: `#/channels/${endpoint.operationId}` },
        title: endpoint.summary,
        description: `Opened with \`GET ${endpoint.path}\`.\n\n${opening(operation)}`,
        messages: Object.keys(endpoint.stream!.messages).map((event) => ({
          $ref: `#/channels/${endpoint.operationId}/messages/${event}`,
        })),
        bindings: { http: { method: "GET", query: querySchema(operation), bindingVersion: "0.3.0" } },
      },
    ]),
  );
  document = {
    asyncapi: "3.0.0",
    info: { title: `${openApi.info.title}: streams`, version: openApi.info.version, description: DESCRIPTION },
    defaultContentType: "application/json",
    servers: {
      thisServer: {
        host: "{host}",
        protocol: "http",
        description:
          "The server that serves this document, at the same host and port as every /api/v1 answer (https where it " +
          "is served over https).",
        variables: { host: { default: "localhost:3000", description: "This server's host and port" } },
        security: Object.keys(schemes).map((name) => ({ $ref: `#/components/securitySchemes/${name}` })),
      },
    },
    channels,
    operations,
    // AsyncAPI's default schema format is a superset of JSON Schema draft-07.
    components: {
      schemas: reachable({ channels, operations }, componentSchemas("draft-07")),
      securitySchemes: schemes,
    },
  };
  return document;
}
