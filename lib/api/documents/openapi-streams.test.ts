import { describe, expect, it } from "vitest";
import { STREAM_ENDPOINTS } from "../endpoints/streams.ts";
import { openApiDocument } from "./openapi.ts";

// What a reader of the API reference, or a code generator, needs of each stream's operation.

type Operation = {
  description: string;
  responses: Record<
    string,
    { description: string; content?: Record<string, { schema: { oneOf: { properties: { data: unknown } }[] } }> }
  >;
};
const paths = (openApiDocument() as { paths: Record<string, { get: Operation }> }).paths;

describe.each(STREAM_ENDPOINTS)("the OpenAPI operation of $path", (endpoint) => {
  const operation = paths[endpoint.path]!.get;

  it("shows a curl command that follows this stream, not the other one", () => {
    const curl = /curl -N [^\n]*"http:\/\/localhost:3000([^"?]+)/.exec(operation.description);
    expect(curl?.[1]).toMatch(new RegExp(`^${endpoint.path.replace("{id}", "[^/]+")}$`));
  });

  it("says that a stream closed without `end` is reopened with the last id", () => {
    for (const text of [operation.description, operation.responses["200"]!.description]) {
      expect(text).toMatch(/closes without `end`.*reopened with the last id/s);
    }
  });

  it("reaches every message's schema from the body of its 200", () => {
    const messages = operation.responses["200"]!.content!["text/event-stream"]!.schema.oneOf;
    expect(messages.map((m) => m.properties.data)).toEqual(
      Object.keys(endpoint.stream!.messages).map(() => ({ $ref: expect.stringMatching(/^#\/components\/schemas\//) })),
    );
  });
});
