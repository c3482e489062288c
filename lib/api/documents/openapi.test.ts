import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { ENDPOINTS } from "../endpoints/index.ts";
import { API_ERRORS } from "../request/errors.ts";
import { openApiDocument } from "./openapi.ts";

type Operation = {
  operationId: string;
  parameters: { name: string; in: string; required: boolean }[];
  responses: Record<string, { content?: Record<string, { examples?: Record<string, { value: { code: string } }> }> }>;
};
const document = openApiDocument() as {
  openapi: string;
  paths: Record<string, { get: Operation }>;
  components: { schemas: Record<string, { examples?: unknown[] }> };
};

describe("the OpenAPI document", () => {
  it("is OpenAPI 3.1 with one GET operation per endpoint", () => {
    expect(document.openapi).toBe("3.1.0");
    expect(Object.keys(document.paths)).toEqual(ENDPOINTS.map((e) => e.path));
    expect(Object.values(document.paths).map((p) => p.get.operationId)).toEqual(ENDPOINTS.map((e) => e.operationId));
  });

  it("lists every parameter the endpoints accept, path parameters as required", () => {
    const events = document.paths["/api/v1/events"]!.get.parameters;
    expect(events.map((p) => [p.name, p.in, p.required])).toEqual([
      ["sport", "query", false],
      ["status", "query", false],
      ["limit", "query", false],
      ["cursor", "query", false],
      ["as_of", "query", false],
    ]);
    expect(document.paths["/api/v1/events/{id}"]!.get.parameters).toEqual([
      expect.objectContaining({ name: "id", in: "path", required: true }),
      expect.objectContaining({ name: "as_of", in: "query", required: false }),
    ]);
    expect(
      document.paths["/api/v1/events/{id}/markets/{market_id}/history"]!.get.parameters.map((p) => [p.name, p.in]),
    ).toEqual([
      ["id", "path"],
      ["market_id", "path"],
      ["from", "query"],
      ["to", "query"],
    ]);
  });

  it("documents every error code of the contract, each with an example", () => {
    const documented = new Set<string>();
    for (const { get } of Object.values(document.paths)) {
      for (const [status, response] of Object.entries(get.responses)) {
        for (const example of Object.values(response.content?.["application/problem+json"]?.examples ?? {})) {
          expect(API_ERRORS[example.value.code as keyof typeof API_ERRORS].status).toBe(Number(status));
          documented.add(example.value.code);
        }
      }
    }
    expect([...documented].sort()).toEqual(Object.keys(API_ERRORS).sort());
  });

  it("holds examples that its own schemas accept", () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ ...document, $id: "openapi.json" });
    const withExamples = Object.entries(document.components.schemas).filter(([, s]) => s.examples?.length);
    expect(withExamples.map(([name]) => name)).toEqual(
      expect.arrayContaining(["Event", "EventWithMarkets", "Lineup", "KeyDescription", "Market"]),
    );
    for (const [name, schema] of withExamples) {
      for (const example of schema.examples!) {
        expect(
          ajv.validate({ $ref: `openapi.json#/components/schemas/${name}` }, example),
          `${name}: ${ajv.errorsText()}`,
        ).toBe(true);
      }
    }
  });
});
