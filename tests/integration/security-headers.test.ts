import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectApiHeaders, expectDocumented } from "../../testing/api.ts";
import { BACKENDS, useTestDatabase } from "../../testing/databases.ts";
import { FEED_TOKEN, ingest } from "../../testing/feed.ts";
import { organisationWithKeys } from "../../testing/organisations.ts";
import { startServer, type RunningServer } from "../../testing/processes.ts";
import { openSse } from "../../testing/sse.ts";

// The security headers of every kind of answer (API successes, errors, 304s, streams, the OpenAPI
// and AsyncAPI documents and the texts for language models, health, metrics, pages and their
// assets), the CORS preflight, on both entry points.

const METRICS_TOKEN = "metrics-token-for-the-header-tests-0123456789";
const ELSEWHERE = "https://elsewhere.example";
const JSON_POLICY = "default-src 'none'; frame-ancestors 'none'";
const PGLITE = BACKENDS.find((backend) => backend.name === "pglite")!;

function expectJsonSecurityHeaders(response: Response): void {
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  expect(response.headers.get("content-security-policy")).toBe(JSON_POLICY);
  expect(response.headers.get("referrer-policy")).toBe("no-referrer");
}

/** The nonce of a page's policy, after checking the policy's other rules. */
function pagePolicyNonce(response: Response): string {
  const policy = response.headers.get("content-security-policy") ?? "";
  const directives = new Map(
    policy.split(";").map((directive) => {
      const [name, ...values] = directive.trim().split(/\s+/);
      return [name!, values];
    }),
  );
  const scripts = directives.get("script-src") ?? [];
  const nonce = scripts.map((source) => /^'nonce-([A-Za-z0-9+/]+={0,2})'$/.exec(source)?.[1]).find(Boolean);
  expect(nonce, `a nonce in ${policy}`).toBeDefined();
  expect(scripts).toContain("'strict-dynamic'");
  expect(scripts).not.toContain("'unsafe-inline'");
  expect(scripts).not.toContain("'unsafe-eval'");
  expect(directives.get("frame-ancestors")).toEqual(["'none'"]);
  expect(directives.get("object-src")).toEqual(["'none'"]);
  expect(directives.get("default-src")).toEqual(["'self'"]);
  return nonce!;
}

function expectPageHeaders(response: Response): void {
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  expect(response.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
  expect(response.headers.get("x-frame-options")).toBe("DENY");
  const permissions = response.headers.get("permissions-policy") ?? "";
  for (const feature of ["camera", "microphone", "geolocation", "payment", "usb"]) {
    expect(permissions).toContain(`${feature}=()`);
  }
}

describe.each(["node", "next"] as const)("security headers through %s", (entry) => {
  const database = useTestDatabase(PGLITE);
  let server: RunningServer;
  let key: string;

  beforeAll(async () => {
    const env = database().env;
    key = (await organisationWithKeys(env, "headers-org", { plan: "pro", sandboxSport: "soccer" })).production.key;
    server = await startServer({ ...env, FEED_TOKEN, METRICS_TOKEN, API_ENTRY: entry });
    await ingest(server.url, [
      {
        event_id: "h-live",
        sequence: 1,
        event: {
          sport: "soccer",
          competition: "League",
          home: "Home",
          away: "Away",
          status: "live",
          feed: "official",
          kickoff: new Date(Date.now() - 30 * 60_000).toISOString(),
        },
      },
    ]);
  });
  afterAll(() => server?.stop());

  const get = (path: string, headers: Record<string, string> = {}, method = "GET") =>
    fetch(`${server.url}${path}`, { method, headers });

  it("sends them on successes, 304s, errors and HEAD, readable from any origin with a key", async () => {
    const ok = await get("/api/v1/events", { "x-api-key": key, origin: ELSEWHERE });
    expect(ok.status).toBe(200);
    expectDocumented("/api/v1/events", ok, await ok.json());
    expect(ok.headers.get("access-control-expose-headers")).toContain("RateLimit");
    const etag = ok.headers.get("etag")!;
    const notModified = await get("/api/v1/events", { "x-api-key": key, "if-none-match": etag });
    expect(notModified.status).toBe(304);
    expectApiHeaders(notModified);
    const head = await get("/api/v1/events", { "x-api-key": key }, "HEAD");
    expect(head.status).toBe(200);
    expectApiHeaders(head);
    for (const [path, headers, status] of [
      ["/api/v1/events", {}, 401],
      ["/api/v1/events", { "x-api-key": "svc_sk_not-a-key" }, 401],
      ["/api/v1/events?page=2", { "x-api-key": key }, 400],
      ["/api/v1/events/no-such-event", { "x-api-key": key }, 404],
      ["/api/v1/no-such-path", { "x-api-key": key }, 404],
    ] as const) {
      const answer = await get(path, headers);
      expect(answer.status, path).toBe(status);
      expectDocumented(path.split("?")[0]!, answer, await answer.json());
    }
    const refused = await get("/api/v1/events", { "x-api-key": key }, "DELETE");
    expect(refused.status).toBe(405);
    expectApiHeaders(refused);
  });

  it("sends them on a stream's answer", async () => {
    const stream = await openSse(`${server.url}/api/v1/events/h-live/stream`, { headers: { "x-api-key": key } });
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers["x-content-type-options"]).toBe("nosniff");
      expect(stream.headers["content-security-policy"]).toBe(JSON_POLICY);
      expect(stream.headers["access-control-allow-origin"]).toBe("*");
      await stream.waitFor((message) => message.event === "snapshot");
    } finally {
      stream.close();
    }
  });

  it("answers a CORS preflight for GET and HEAD without credentials, and does not count it", async () => {
    const used = async () => {
      const me = await get("/api/v1/me", { "x-api-key": key });
      return ((await me.json()) as { meta: { requests_used: number } }).meta.requests_used;
    };
    const before = await used();
    for (const path of ["/api/v1/events", "/api/v1/events/h-live/stream", "/api/v1/openapi.json", "/api/v1/nowhere"]) {
      const preflight = await get(
        path,
        {
          origin: ELSEWHERE,
          "access-control-request-method": "GET",
          "access-control-request-headers": "authorization,x-api-key,last-event-id",
        },
        "OPTIONS",
      );
      expect(preflight.status, path).toBe(204);
      expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
      expect(preflight.headers.get("access-control-allow-credentials")).toBeNull();
      expect(preflight.headers.get("access-control-allow-methods")).toBe("GET, HEAD");
      const allowed = (preflight.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(/,\s*/);
      for (const header of ["authorization", "x-api-key", "last-event-id", "if-none-match"]) {
        expect(allowed).toContain(header);
      }
      expect(Number(preflight.headers.get("access-control-max-age"))).toBeGreaterThan(0);
      expect(preflight.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/);
      expectJsonSecurityHeaders(preflight);
      expect(await preflight.text()).toBe("");
    }
    // Two requests to /me since `before` (the one that reads the count included): no preflight counted.
    expect(await used()).toBe(before + 1);
    // An OPTIONS that is not a preflight is a method the API does not have.
    const plain = await get("/api/v1/events", { "x-api-key": key }, "OPTIONS");
    expect(plain.status).toBe(405);
    expect(plain.headers.get("allow")).toBe("GET, HEAD");
    expectApiHeaders(plain);
  });

  it("sends them with the OpenAPI document", async () => {
    const document = await get("/api/v1/openapi.json");
    expect(document.status).toBe(200);
    expectApiHeaders(document);
    const description = ((await document.json()) as { info: { description: string } }).info.description;
    expect(description).toContain("Access-Control-Allow-Origin: *");
  });

  it("serves the AsyncAPI document and the texts for language models, public and of their own types", async () => {
    for (const [path, type, start] of [
      ["/api/v1/asyncapi.json", "application/json", '{"asyncapi":"3.0.0"'],
      ["/llms.txt", "text/plain; charset=utf-8", "# Sports Event Data API\n"],
      ["/llms-full.txt", "text/plain; charset=utf-8", "# Sports Event Data API\n"],
    ]) {
      const answer = await get(path!, { origin: ELSEWHERE });
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get("content-type"), path).toBe(type);
      expect(answer.headers.get("cache-control"), path).toBe("public, max-age=300");
      expect(answer.headers.get("access-control-allow-origin"), path).toBe("*");
      // The texts are outside /api/v1, so Next sends them, with the pages' headers on top.
      if (path!.startsWith("/api/v1/")) expectApiHeaders(answer);
      else expectPageHeaders(answer);
      expect((await answer.text()).startsWith(start!), path).toBe(true);
    }
  });

  it("sends the JSON set on health and metrics", async () => {
    for (const path of ["/healthz", "/readyz"]) expectJsonSecurityHeaders(await get(path));
    expectJsonSecurityHeaders(await get("/metrics", { authorization: `Bearer ${METRICS_TOKEN}` }));
    expectJsonSecurityHeaders(await get("/metrics"));
  });

  it("gives every page a policy with a nonce of its own that its scripts carry", async () => {
    for (const path of ["/", "/docs", "/console/sign-in", "/no-such-page"]) {
      const first = await get(path);
      expect(first.status, path).toBe(path === "/no-such-page" ? 404 : 200);
      expectPageHeaders(first);
      const nonce = pagePolicyNonce(first);
      const html = await first.text();
      const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((match) => match[0]);
      expect(scripts.length, path).toBeGreaterThan(0);
      for (const script of scripts) expect(script, path).toContain(`nonce="${nonce}"`);
      // A fresh nonce for every answer, else it would be a password everyone knows.
      const second = await get(path);
      expect(pagePolicyNonce(second), path).not.toBe(nonce);
    }
    // A policy sent by the client does not choose the nonce.
    const forged = await get("/", { "content-security-policy": "script-src 'nonce-chosenbytheclient'" });
    expect(pagePolicyNonce(forged)).not.toBe("chosenbytheclient");
    expect(await forged.text()).not.toContain("chosenbytheclient");
  });

  it("sends nosniff with built assets and the JSON policy with the other JSON endpoints", async () => {
    const html = await (await get("/")).text();
    const asset = /(\/_next\/static\/[^"]+\.js)"/.exec(html)?.[1];
    expect(asset).toBeDefined();
    const script = await get(asset!);
    expect(script.status).toBe(200);
    expect(script.headers.get("x-content-type-options")).toBe("nosniff");
    const csrf = await get("/api/auth/csrf");
    expect(csrf.status).toBe(200);
    expect(csrf.headers.get("x-content-type-options")).toBe("nosniff");
    expect(csrf.headers.get("content-security-policy")).toBe(JSON_POLICY);
    // The console's endpoints are not for other origins.
    expect(csrf.headers.get("access-control-allow-origin")).toBeNull();
  });
});
