import { describe, expect, it } from "vitest";
import { coveredBy } from "./lookup.ts";

describe("a production key's sports", () => {
  it("are its plan's without a scope, and the plan's narrowed to the scope with one, in the plan's order", () => {
    expect(coveredBy(["soccer", "tennis", "cs2"], null)).toEqual(["soccer", "tennis", "cs2"]);
    expect(coveredBy(["soccer", "tennis", "cs2"], ["cs2", "soccer"])).toEqual(["soccer", "cs2"]);
  });

  it("never widen the plan: a scoped sport the plan dropped is not covered", () => {
    expect(coveredBy(["soccer"], ["soccer", "tennis"])).toEqual(["soccer"]);
    expect(coveredBy(["soccer"], ["tennis"])).toEqual([]);
  });
});
