import { describe, expect, it } from "vitest";
import { committedTypes, generatedTypes } from "./generate.ts";

describe("the client's generated types", () => {
  it("are what the OpenAPI document makes now (else: npm run generate -w @sports-event-data/client)", async () => {
    expect(committedTypes()).toBe(await generatedTypes());
  });
});
