import type { z } from "zod";
import type { Endpoint } from "../request/pipeline.ts";
import { components } from "../endpoints/schemas.ts";
import { streamCurl } from "./stream-curl.ts";

// The streams' operations in the OpenAPI document. OpenAPI 3.1 has no place of its own for the
// items of a `text/event-stream` body (3.2's `itemSchema`); the form here is the one code
// generators and linters read in 3.1: the body's schema is one of its messages, each an object of
// the SSE fields with `data` parsed as JSON, so every message schema is reachable from the operation.

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

// Messages without new data carry no id (SSE leaves the client's last id as it was).
const WITHOUT_ID = new Set(["end", "stale", "error"]);

/** The SSE fields a message carries besides `event:` and `data:`, as JSON Schema properties. */
export function sseFields(event: string) {
  const hasId = !WITHOUT_ID.has(event);
  return {
    properties: {
      ...(hasId
        ? { id: { type: "string", pattern: "^[0-9]+$", description: "The `id:` field: the feed revision" } }
        : {}),
      ...(event === "end"
        ? { retry: { type: "integer", minimum: 3_600_000, description: "The `retry:` field: an hour or more" } }
        : {}),
    },
    required: hasId ? ["id"] : [],
  };
}

/** The name under which a message's data schema is among the documents' components. */
export function componentIdOf(event: string, schema: z.ZodType): string {
  const id = components.get(schema)?.id;
  if (!id) throw new Error(`The stream message "${event}" is not a registered component.`);
  return id;
}

function messageSchema(event: string, schema: z.ZodType) {
  const fields = sseFields(event);
  return {
    type: "object",
    title: event,
    description: schema.description,
    properties: {
      event: { const: event, description: "The `event:` field" },
      ...fields.properties,
      data: { $ref: `#/components/schemas/${componentIdOf(event, schema)}` },
    },
    required: ["event", ...fields.required, "data"],
  };
}

/** What the API reference says next to each stream about a close without `end`. */
export const RESUME_NOTE =
  "A stream that closes without `end` (a deploy, a restart, a client that fell behind) is to be reopened with the " +
  "last id received, in `Last-Event-ID` (or the `lastEventId` or `last_event_id` query parameter): it goes on after " +
  "that message, missing nothing.";

export function streamOperation(endpoint: Endpoint, parameters: unknown[], errors: Record<string, unknown>) {
  const messages = endpoint.stream!.messages;
  const list = Object.keys(messages)
    .map((event) => `\`${event}\``)
    .join(", ");
  const ends = "end" in messages;
  return {
    operationId: endpoint.operationId,
    tags: [endpoint.tag],
    summary: endpoint.summary,
    description: `${endpoint.description}\n\n${RESUME_NOTE}\n\nHEAD answers the headers of the stream without opening it.`,
    // A browser's EventSource opens it with a stream token in the URL instead of a key in a header.
    security: [{ bearerAuth: [] }, { apiKeyHeader: [] }, { streamToken: [] }],
    // The reference shows this first: a generated curl would buffer the stream (no -N) and keep `{id}`.
    "x-codeSamples": [{ lang: "shell", label: "curl", source: streamCurl(endpoint.stream!.example ?? endpoint.path) }],
    parameters: [
      ...parameters,
      {
        name: "Last-Event-ID",
        in: "header",
        required: false,
        description:
          "The `id` of the last message received: the stream resumes after it. Wins over the query parameters.",
        schema: { type: "string" },
      },
    ],
    responses: {
      200: {
        description:
          `Server-Sent Events, uncompressed and unbuffered. Messages: ${list}; each \`data\` is one line of JSON. ` +
          `Every message with new data has an \`id\` (the feed revision). ${RESUME_NOTE}`,
        headers: {
          "X-Request-Id": headerRef("X-Request-Id"),
          RateLimit: headerRef("RateLimit"),
          "RateLimit-Policy": headerRef("RateLimit-Policy"),
        },
        content: {
          "text/event-stream": {
            schema: {
              description:
                "One message of the stream: its `event`, `id` and `retry` fields, and its `data` parsed as JSON",
              oneOf: Object.entries(messages).map(([event, schema]) => messageSchema(event, schema)),
            },
          },
        },
      },
      ...(ends
        ? {
            204: {
              description:
                "The event is already over (finished or cancelled): nothing to follow, and every EventSource stops " +
                "here instead of reconnecting. Counted as one request.",
              headers: {
                "X-Request-Id": headerRef("X-Request-Id"),
                RateLimit: headerRef("RateLimit"),
                "RateLimit-Policy": headerRef("RateLimit-Policy"),
              },
            },
          }
        : {}),
      ...errors,
    },
  };
}
