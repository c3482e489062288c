import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ENDPOINTS } from "./index.ts";

// Behind the Next entry (API_ENTRY=next) each operation is a route file of its own; one without
// its file would answer 404 there while the node entry serves it.
describe("the Next entry's route files", () => {
  it.each(ENDPOINTS.map((e) => [e.operationId, e.path] as const))("serve %s at %s", (operationId, apiPath) => {
    const file = path.join("app", apiPath.replace(/\{(\w+)\}/g, "[$1]"), "route.ts");
    expect(existsSync(file), file).toBe(true);
    expect(readFileSync(file, "utf8"), operationId).toMatch(/routeHandlers\(\w+\)/);
  });
});
