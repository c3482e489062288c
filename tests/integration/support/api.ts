import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { expect } from "vitest";
import { openApiDocument } from "../../../lib/api/openapi.ts";
import { OPERATOR } from "../../../lib/audit.ts";
import { loadConfig } from "../../../lib/config.ts";
import { openDatabase } from "../../../lib/db/index.ts";
import { createProductionKey, createSandboxKey } from "../../../lib/keys/index.ts";
import { reviewLicence, setLicence } from "../../../lib/licences.ts";
import { createOrganisation } from "../../../lib/organisations.ts";
import { setPlan } from "../../../lib/plans.ts";
import { seedReferenceData } from "../../../seeds/index.ts";

// What the API suites share: organisations and keys made as the operator CLI makes them, feed
// data posted through the provider ingest, and a client that checks every answer against the
// OpenAPI document.

export const FEED_TOKEN = "feed-token-for-api-tests-0123456789";

type CreatedKey = { id: string; key: string };

/**
 * An organisation with a licence, a plan, its sandbox key and one production key, made in this
 * process with the functions the operator CLI runs for the same commands (the CLI itself is tested
 * in admin-cli.test.ts): a CLI process per step cost the suites minutes of CI. The database is
 * opened and closed again, since PGlite admits one process at a time.
 */
export async function organisationWithKeys(
  env: Record<string, string>,
  slug: string,
  options: { plan: string; sandboxSport: string },
): Promise<{ orgId: string; sandbox: CreatedKey; production: CreatedKey }> {
  const config = loadConfig(env);
  const handle = await openDatabase(config);
  try {
    const { db } = handle;
    await seedReferenceData(db);
    const at = new Date();
    const org = await createOrganisation(db, { name: `Org ${slug}`, slug }, OPERATOR);
    await setLicence(
      db,
      org.id,
      { reference: `L-${slug}`, authority: "Test Authority", holder: `${slug} Ltd`, validUntil: "2031-12-31" },
      OPERATOR,
      at,
    );
    await reviewLicence(db, org.id, "verify", { actor: OPERATOR, at });
    await setPlan(db, org.id, options.plan, OPERATOR);
    const sandbox = await createSandboxKey(
      db,
      org.id,
      { sport: options.sandboxSport },
      { actor: OPERATOR, at, ttlDays: config.SANDBOX_KEY_TTL_DAYS },
    );
    const production = await createProductionKey(db, org.id, {}, { actor: OPERATOR, at });
    return {
      orgId: org.id,
      sandbox: { id: sandbox.summary.id, key: sandbox.key },
      production: { id: production.summary.id, key: production.key },
    };
  } finally {
    await handle.close();
  }
}

/** Posts provider updates and fails unless every line applied. */
export async function ingest(baseUrl: string, updates: unknown[]): Promise<number> {
  let revision = 0;
  for (let i = 0; i < updates.length; i += 500) {
    const response = await fetch(`${baseUrl}/api/feed/v1/updates`, {
      method: "POST",
      headers: { authorization: `Bearer ${FEED_TOKEN}`, "content-type": "application/x-ndjson" },
      body: updates
        .slice(i, i + 500)
        .map((u) => JSON.stringify(u))
        .join("\n"),
    });
    const body = (await response.json()) as {
      data: { rejected: number; results: { status: string; revision?: number; message?: string }[] };
    };
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.data.rejected, JSON.stringify(body.data.results.filter((r) => r.status === "rejected"))).toBe(0);
    revision = Math.max(revision, ...body.data.results.map((r) => r.revision ?? 0));
  }
  return revision;
}

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
 * A client of the API for one key. `perSecond` keeps it within the key's per-second limit (the
 * server's windows are wall-clock seconds, and this machine's clock is the server's).
 */
export function apiClient(baseUrl: string, perSecond = Infinity) {
  let second = 0;
  let sent = 0;
  const pace = async () => {
    for (;;) {
      const now = Date.now();
      const current = Math.floor(now / 1000);
      if (current !== second) {
        second = current;
        sent = 0;
      }
      if (sent < perSecond) {
        sent++;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 1000 - (now % 1000) + 5));
    }
  };
  return async function call<T = { data: unknown; meta: Record<string, unknown> }>(
    path: string,
    init: { key?: string; headers?: Record<string, string>; method?: string } = {},
  ): Promise<Answer<T>> {
    await pace();
    const headers: Record<string, string> = { ...init.headers };
    if (init.key) headers["x-api-key"] = init.key;
    const response = await fetch(`${baseUrl}${path}`, { method: init.method ?? "GET", headers });
    const text = await response.text();
    const body = text ? (JSON.parse(text) as T) : (null as T);
    expectDocumented(path.split("?")[0]!, response, body);
    return { status: response.status, headers: response.headers, body, raw: response };
  };
}
