import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ApiError } from "./errors.ts";
import { parseQuery } from "./input.ts";

const schema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  sport: z.enum(["soccer", "tennis"]).optional(),
});

describe("a request's query, parsed with its endpoint's schema", () => {
  it("is the schema's defaults when empty, parsed once and shared, so that no request can change the next one's", () => {
    const first = parseQuery(schema, new URLSearchParams());
    expect(first).toEqual({ limit: 50 });
    expect(parseQuery(schema, new URLSearchParams())).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => {
      (first as { limit: number }).limit = 1;
    }).toThrow(TypeError);
  });

  it("is parsed afresh when given, with each problem named by its parameter", () => {
    expect(parseQuery(schema, new URLSearchParams("limit=5&sport=tennis"))).toEqual({ limit: 5, sport: "tennis" });
    const refused = (query: string) => {
      try {
        parseQuery(schema, new URLSearchParams(query));
      } catch (error) {
        return error instanceof ApiError ? [error.code, error.message] : error;
      }
      return null;
    };
    expect(refused("limit=500")).toEqual(["invalid_parameter", expect.stringMatching(/^limit: /)]);
    expect(refused("limit=5&limit=6")).toEqual(["invalid_parameter", "limit: given more than once; give it once"]);
    expect(refused("colour=red")).toEqual(["unknown_parameter", expect.stringContaining('"colour"')]);
  });

  it("an empty query of an endpoint with a required parameter is refused each time, not remembered", () => {
    const required = z.strictObject({ from: z.string() });
    for (let i = 0; i < 2; i++) expect(() => parseQuery(required, new URLSearchParams())).toThrow(ApiError);
  });
});
