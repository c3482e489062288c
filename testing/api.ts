import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { expect } from "vitest";
import { openApiDocument } from "../lib/api/documents/openapi.ts";
import { recordCredentials, recordQueryCredentials } from "./logs.ts";
import { pacer, type Pace } from "./pace.ts";

// A client of the public API that checks every answer against the OpenAPI document, and the
// checks it makes, for the suites and the fuzzer.

// Every answer the suites receive is checked against the published document.
const document = openApiDocument() as { paths: Record<string, { get: { responses: Record<string, unknown> } }> };
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema({ ...document, $id: "openapi.json" });
const validators = new Map<string, ValidateFunction>();
export const checkedAnswers = { count: 0 };

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");

function templateOf(path: string): string | undefined {
  return Object.keys(document.paths).find((template) =>
    new RegExp(`^${template.replace(/\{\w+\}/g, "[^/]+")}$`).test(path),
  );
}

/** The security and CORS headers every /api/v1 answer carries, success, error or stream. */
export function expectApiHeaders(response: Response): void {
  const headers = response.headers;
  expect(headers.get("x-content-type-options"), "nosniff on every answer").toBe("nosniff");
  expect(headers.get("content-security-policy"), "the JSON policy on every answer").toBe(
    "default-src 'none'; frame-ancestors 'none'",
  );
  expect(headers.get("referrer-policy")).toBe("no-referrer");
  expect(headers.get("access-control-allow-origin"), "any origin may read with a key").toBe("*");
  expect(headers.get("access-control-allow-credentials"), "never with cookies").toBeNull();
  expect(headers.get("access-control-expose-headers")).toContain("X-Request-Id");
}

/** Fails the test when an answer does not match what the OpenAPI document says of it. */
export function expectDocumented(path: string, response: Response, body: unknown): void {
  const status = String(response.status);
  const type = (response.headers.get("content-type") ?? "").split(";")[0]!;
  expect(response.headers.get("x-request-id"), "X-Request-Id on every answer").toMatch(/^req_[0-9a-f]{32}$/);
  expectApiHeaders(response);
  const template = templateOf(path);
  let ref: string;
  if (template) {
    const documented = document.paths[template]!.get.responses[status] as
      { content?: Record<string, unknown> } | undefined;
    expect(documented, `${template} documents status ${status}`).toBeDefined();
    if (response.status === 304 || body === null) return;
    expect(Object.keys(documented!.content ?? {}), `${template} ${status} documents ${type}`).toContain(type);
    ref = `openapi.json#/${pointer("paths", template, "get", "responses", status, "content", type, "schema")}`;
  } else {
    // A path the document does not list: only a problem may come back.
    expect(type).toBe("application/problem+json");
    ref = "openapi.json#/components/schemas/Problem";
  }
  if (type === "application/problem+json") {
    expect((body as { request_id: string }).request_id).toBe(response.headers.get("x-request-id"));
    expect((body as { status: number }).status).toBe(response.status);
  }
  let validate = validators.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    validators.set(ref, validate);
  }
  const valid = validate(body);
  expect(valid, `${path} ${status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  checkedAnswers.count++;
}

export type Answer<T = unknown> = { status: number; headers: Headers; body: T; raw: Response };

/**
 * A client of the API. `perSecond` keeps it within a key's per-second limit. Every key it sends is
 * recorded as a secret, so that no server log may hold it.
 */
/** `pace` keeps it within `perSecond`; given, it is shared with the other requests of the same key. */
export function apiClient(baseUrl: string, perSecond = Infinity, pace: Pace = pacer(perSecond)) {
  return async function call<T = { data: unknown; meta: Record<string, unknown> }>(
    path: string,
    init: { key?: string; headers?: Record<string, string>; method?: string } = {},
  ): Promise<Answer<T>> {
    const headers: Record<string, string> = { ...init.headers };
    if (init.key) headers["x-api-key"] = init.key;
    recordCredentials(headers);
    recordQueryCredentials(path);
    for (let attempt = 1; ; attempt++) {
      const response = await pace(() => fetch(`${baseUrl}${path}`, { method: init.method ?? "GET", headers }));
      const text = await response.text();
      const body = text ? (JSON.parse(text) as T) : (null as T);
      expectDocumented(path.split("?")[0]!, response, body);
      // The pace is kept by this client's clock and the limit by the server's: on a busy machine a
      // request can reach the server in the next second, beside that second's own. A paced client
      // waits out such a 429 as the contract says (Retry-After) instead of failing a test about
      // something else; an unpaced one sees every 429, for the tests of the limit itself.
      const retryAfter = Number(response.headers.get("retry-after"));
      if (perSecond !== Infinity && response.status === 429 && rateLimited(body) && retryAfter > 0 && attempt < 3) {
        await new Promise((resolve) => setTimeout(resolve, retryAfter * 1_000));
        continue;
      }
      return { status: response.status, headers: response.headers, body, raw: response };
    }
  };
}

const rateLimited = (body: unknown) => (body as { code?: string } | null)?.code === "rate_limited";
