import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isDocumentPath } from "../documents/index.ts";
import { matchEndpoint } from "../request/router.ts";
import { ENDPOINTS } from "./index.ts";

// Behind the Next entry (API_ENTRY=next) one catch-all hands every operation's path to the router
// the node entry calls: a route file of an operation's own would be a second table to keep in step.
describe("the Next entry's route files", () => {
  const files = readdirSync(path.join("app", "api", "v1"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith("route.ts"))
    .map((file) => path.join("app", "api", "v1", file));

  it("are the catch-all, which calls the router, and the documents' routes", () => {
    const catchAll = path.join("app", "api", "v1", "[...path]", "route.ts");
    expect(readFileSync(catchAll, "utf8")).toMatch(/routeHandlers\(\)/);
    for (const file of files.filter((each) => each !== catchAll)) {
      const served = `/${path.dirname(file).split(path.sep).slice(1).join("/")}`;
      expect(isDocumentPath(served), file).toBe(true);
    }
  });

  it.each(ENDPOINTS.map((e) => [e.operationId, e.path] as const))(
    "find %s at %s by its path",
    (operationId, apiPath) => {
      const concrete = apiPath.replace(/\{(\w+)\}/g, "x");
      expect(isDocumentPath(concrete)).toBe(false);
      expect(matchEndpoint(concrete).endpoint?.operationId).toBe(operationId);
    },
  );
});
