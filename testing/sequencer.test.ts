import { describe, expect, it } from "vitest";
import { longestFirst } from "./sequencer.ts";

type File = { name: string; project: string };
const seconds: Record<string, number> = { a: 5, b: 60, c: 20, d: 1, e: 30 };

function order(files: File[]): string[] {
  return longestFirst(
    files,
    (file) => file.project,
    (file) => seconds[file.name],
  ).map((file) => file.name);
}

describe("the order test files start in", () => {
  it("puts the longest first within a project", () => {
    expect(order(["a", "b", "c"].map((name) => ({ name, project: "integration" })))).toEqual(["b", "c", "a"]);
  });

  it("keeps the projects in the order they came, each sorted on its own", () => {
    const files = [
      { name: "d", project: "unit" },
      { name: "e", project: "unit" },
      { name: "a", project: "integration" },
      { name: "b", project: "integration" },
    ];
    expect(order(files)).toEqual(["e", "d", "b", "a"]);
  });

  it("starts a file with no recorded duration first, as it may be long", () => {
    expect(order(["a", "new", "b"].map((name) => ({ name, project: "integration" })))).toEqual(["new", "b", "a"]);
  });
});
