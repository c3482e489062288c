import { describe, expect, it } from "vitest";
import { listOdds } from "./endpoints.ts";
import { API_HEADERS, serve, type ApiRequest, type ApiServices } from "./pipeline.ts";

// What the pipeline decides before any key or session is read: CORS preflights, and whether a
// console session cookie may be used at all. The services fail the test if anything reaches them.

const untouchable = new Proxy(
  {},
  {
    get(_, name) {
      throw new Error(`the pipeline reached services.${String(name)}`);
    },
  },
) as ApiServices;

function request(method: string, headers: Record<string, string>): ApiRequest {
  return { method, path: "/api/v1/odds", query: new URLSearchParams(), header: (name) => headers[name] };
}

const COOKIE = "next-auth.session-token=a.session.token";

describe("CORS preflights", () => {
  it("are answered 204 for GET and HEAD from any origin, without credentials, before any key", async () => {
    const answer = await serve(
      untouchable,
      listOdds,
      {},
      request("OPTIONS", {
        origin: "https://elsewhere.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "authorization",
      }),
    );
    expect(answer.status).toBe(204);
    expect(answer.body).toBeNull();
    expect(answer.headers).toMatchObject({
      "access-control-allow-origin": "*",
      "access-control-allow-methods": "GET, HEAD",
      "x-content-type-options": "nosniff",
    });
    expect(answer.headers["access-control-allow-headers"]).toContain("Authorization");
    expect(answer.headers["access-control-allow-credentials"]).toBeUndefined();
  });

  it("leave an OPTIONS that is not a preflight a 405", async () => {
    const answer = await serve(untouchable, listOdds, {}, request("OPTIONS", {}));
    expect(answer.status).toBe(405);
    expect(answer.headers).toMatchObject({ ...API_HEADERS, allow: "GET, HEAD" });
  });
});

describe("the console's session cookie", () => {
  // Counts the session reads; the session is never valid, so a read cookie answers session_expired.
  const withSessions = () => {
    const reads: string[] = [];
    const services = {
      now: () => new Date("2026-11-23T12:00:00Z"),
      session: async (token: string) => {
        reads.push(token);
        return null;
      },
    } as unknown as ApiServices;
    return { services, reads };
  };
  const codeOf = (body: Buffer[] | null) => (JSON.parse(Buffer.concat(body!).toString()) as { code: string }).code;

  it("is ignored on a request from another origin, which answers as one without credentials", async () => {
    for (const headers of [
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
      { origin: "https://elsewhere.example", host: "data.example.com" },
      { origin: "null", host: "data.example.com" },
      { origin: "not a url", host: "data.example.com" },
    ] as Record<string, string>[]) {
      const { services, reads } = withSessions();
      const answer = await serve(services, listOdds, {}, request("GET", { ...headers, cookie: COOKIE }));
      expect(answer.status, JSON.stringify(headers)).toBe(401);
      expect(codeOf(answer.body)).toBe("missing_api_key");
      expect(answer.headers).toMatchObject(API_HEADERS);
      expect(reads).toEqual([]);
    }
  });

  it("is read on a request from this site's own pages, or with no sign of where it comes from", async () => {
    for (const headers of [
      { "sec-fetch-site": "same-origin" },
      { "sec-fetch-site": "none" },
      { origin: "https://data.example.com", host: "data.example.com" },
      {},
    ] as Record<string, string>[]) {
      const { services, reads } = withSessions();
      const answer = await serve(services, listOdds, {}, request("GET", { ...headers, cookie: COOKIE }));
      expect(codeOf(answer.body), JSON.stringify(headers)).toBe("session_expired");
      expect(reads).toEqual(["a.session.token"]);
    }
  });
});
