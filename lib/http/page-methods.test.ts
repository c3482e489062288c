import { describe, expect, it } from "vitest";
import { allowedMethods } from "./page-methods.ts";

const FEED = "/api/feed/v1/updates";

describe("the methods each path outside the API is served with", () => {
  it("serves pages with GET, HEAD and the console's POSTs, and nothing else", () => {
    for (const path of ["/", "/board", "/console/keys", "/docs/quickstart", "/no-such-page"]) {
      expect(allowedMethods(path, FEED), path).toEqual(["GET", "HEAD", "POST"]);
    }
  });

  it("serves the operational endpoints as reads, and the ingest with POST alone", () => {
    for (const path of ["/healthz", "/readyz", "/status.json", "/metrics"]) {
      expect(allowedMethods(path, FEED), path).toEqual(["GET", "HEAD"]);
    }
    expect(allowedMethods(FEED, FEED)).toEqual(["POST"]);
  });
});
