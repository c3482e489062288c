import { afterAll, beforeAll, expect, it } from "vitest";
import { openApiDocument } from "../../lib/api/documents/openapi.ts";
import { expectDocumented } from "../../testing/api.ts";
import { describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { recordCredentials, recordQueryCredentials } from "../../testing/logs.ts";
import type { RunningServer } from "../../testing/processes.ts";
import {
  BURST,
  CASES,
  EVENT_ID,
  header,
  MARKET_ID,
  securityKeys,
  securityServer,
  SPORT,
  type Keys,
} from "../../testing/security.ts";
import { openSse, responseOf, type SseClient } from "../../testing/sse.ts";

// The security cases every operation of the OpenAPI document shares, streams included, as one
// table (testing/security.ts; the MCP server's tools run it too, in security-mcp.test.ts): each
// operation is read from the document, sent a real path (an event that exists, a sport the
// operation filters by) and each credential case, and each answer must be documented for it and
// carry the contract's problem code. Events are the feed's shared data, not an organisation's: no
// operation reads a resource that belongs to an organisation, so there is no "another
// organisation's resource" case to run.

type OpenApiOperation = {
  security?: unknown[];
  parameters?: { name: string; in: string; required?: boolean }[];
  responses: Record<string, { content?: Record<string, unknown> }>;
};
type OpenApiDocument = { security?: unknown[]; paths: Record<string, Record<string, OpenApiOperation>> };

// The value each path parameter of the document is given: `{id}` is always an event's id, and
// `{market_id}` one of its markets.
const PATH_VALUES: Record<string, string> = { id: EVENT_ID, market_id: MARKET_ID };
// The value each required query parameter is given: `since` the first revision, always kept here.
const QUERY_VALUES: Record<string, string> = { since: "0" };

type Operation = {
  /** "GET /api/v1/events/{id}", as the document names it. */
  label: string;
  method: string;
  /** The path sent, with its query. */
  path: string;
  stream: boolean;
  /** It reads an event by id or filters by sport, so a key that does not cover the sport is refused. */
  readsASport: boolean;
};

/**
 * The operations of the document that need a key. One whose `security` is empty would be public
 * and is left out; the document lists none: the only public /api/v1 answers are the documents
 * (/api/v1/openapi.json, /api/v1/asyncapi.json), which are not among its paths.
 */
function operationsOf(document: OpenApiDocument): Operation[] {
  return Object.entries(document.paths).flatMap(([template, methods]) =>
    Object.entries(methods)
      .filter(([, operation]) => (operation.security ?? document.security ?? []).length > 0)
      .map(([method, operation]) => {
        const parameters = operation.parameters ?? [];
        const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
          const value = PATH_VALUES[name];
          if (value === undefined) throw new Error(`no value for {${name}} of ${template}: add one to PATH_VALUES`);
          return value;
        });
        const bySport = parameters.some((p) => p.in === "query" && p.name === "sport");
        const query = parameters
          .filter((p) => p.in === "query" && p.required)
          .map((p) => {
            const value = QUERY_VALUES[p.name];
            if (value === undefined) throw new Error(`no value for ${p.name} of ${template}: add one to QUERY_VALUES`);
            return `${p.name}=${value}`;
          });
        if (bySport) query.push(`sport=${SPORT}`);
        return {
          label: `${method.toUpperCase()} ${template}`,
          method: method.toUpperCase(),
          path: query.length > 0 ? `${path}?${query.join("&")}` : path,
          stream: Object.keys(operation.responses["200"]?.content ?? {}).includes("text/event-stream"),
          readsASport: bySport || template.includes("{id}"),
        };
      }),
  );
}

const OPERATIONS = operationsOf(openApiDocument() as unknown as OpenApiDocument);

const ROWS = OPERATIONS.flatMap((operation) =>
  CASES.filter((c) => c.appliesTo?.(operation) ?? true).map((c) => ({
    name: `${operation.label} refuses ${c.refuses} with ${c.status} ${c.code}`,
    operation,
    case: c,
  })),
);

type Problem = { code: string; "violated-policies"?: string[] };
type Answer = { status: number; headers: Headers; problem: Problem | null; stream: SseClient | null };

describeEachBackend("the security of every operation on $name", (backend) => {
  const database = useTestDatabase(backend);
  let server: RunningServer;
  let keys: Keys;

  beforeAll(async () => {
    keys = await securityKeys(database().env);
    ({ server } = await securityServer(database().env, keys));
  });
  afterAll(async () => {
    await server?.stop();
  });

  /**
   * Sends `operation` with `headers` (and `query` added to its own), and checks the answer against
   * what the document says of the operation. A stream is opened with the harness's SSE client.
   */
  async function send(operation: Operation, headers: Record<string, string>, query?: string): Promise<Answer> {
    const path = query ? `${operation.path}${operation.path.includes("?") ? "&" : "?"}${query}` : operation.path;
    const documentedPath = path.split("?")[0]!;
    recordCredentials(headers);
    recordQueryCredentials(path);
    if (operation.stream) {
      const client = await openSse(`${server.url}${path}`, { headers });
      const response = responseOf(client);
      expectDocumented(documentedPath, response, client.problem);
      return {
        status: client.status,
        headers: response.headers,
        problem: client.problem as Problem | null,
        stream: client,
      };
    }
    const response = await fetch(`${server.url}${path}`, { method: operation.method, headers });
    const text = await response.text();
    const body: unknown = text ? JSON.parse(text) : null;
    expectDocumented(documentedPath, response, body);
    const problem = response.ok ? null : (body as Problem);
    return { status: response.status, headers: response.headers, problem, stream: null };
  }

  it("runs the table over every operation of the document the server serves", async () => {
    const served = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as OpenApiDocument;
    expect(operationsOf(served).map((o) => o.label)).toEqual(OPERATIONS.map((o) => o.label));
    expect(OPERATIONS.some((o) => o.stream)).toBe(true);
  });

  it.each(OPERATIONS)("$label admits a working key", async (operation) => {
    const answer = await send(operation, header(keys.working));
    expect(answer.status, JSON.stringify(answer.problem)).toBe(200);
    try {
      await answer.stream?.waitFor((message) => message.event === "snapshot");
    } finally {
      answer.stream?.close();
    }
  });

  // Every read a sandbox key makes, /changes and the streams included, as one table: the live
  // event was created less than the delay ago, so no answer's data may name it. The sandbox plan
  // admits 2 requests a second: a 429 for the second is waited out, as a client would.
  it.each(OPERATIONS)("$label shows a sandbox key nothing newer than its delay", async (operation) => {
    let data: unknown = null;
    for (let tries = 0; ; tries++) {
      expect(tries, "the sandbox key's second has room").toBeLessThan(20);
      if (operation.stream) {
        const stream = await openSse(`${server.url}${operation.path}`, { headers: header(keys.sandbox) });
        try {
          if (stream.status === 429) {
            await new Promise((resolve) => setTimeout(resolve, 1_100));
            continue;
          }
          // An event's stream is not found in the delayed view; the board's is answered.
          expect([200, 404], JSON.stringify(stream.problem)).toContain(stream.status);
          if (stream.status === 200) data = (await stream.waitFor((message) => message.event === "snapshot")).data;
        } finally {
          stream.close();
        }
        break;
      }
      const response = await fetch(`${server.url}${operation.path}`, { headers: header(keys.sandbox) });
      const body = (await response.json()) as { data?: unknown };
      if (response.status === 429) {
        await new Promise((resolve) => setTimeout(resolve, 1_100));
        continue;
      }
      // An event read by id is not found in the delayed view; everything else is answered.
      expect([200, 404], `${operation.label}: ${JSON.stringify(body)}`).toContain(response.status);
      if (response.status === 200) data = body.data;
      break;
    }
    expect(JSON.stringify(data), operation.label).not.toContain(EVENT_ID);
  });

  it.each(OPERATIONS.filter((o) => o.stream))(
    "$label admits a working stream token, with no header",
    async (operation) => {
      const answer = await send(operation, {}, `token=${keys.tokens.working}`);
      expect(answer.status, JSON.stringify(answer.problem)).toBe(200);
      try {
        await answer.stream?.waitFor((message) => message.event === "snapshot");
      } finally {
        answer.stream?.close();
      }
    },
  );

  // A key's server mints tokens for its users' browsers, which are anywhere: the allowlist holds the key, not them.
  it.each(OPERATIONS.filter((o) => o.stream))(
    "$label admits a stream token of a key with an IP allowlist, from outside it",
    async (operation) => {
      const answer = await send(operation, {}, `token=${keys.tokens.elsewhere}`);
      expect(answer.status, JSON.stringify(answer.problem)).toBe(200);
      answer.stream?.close();
    },
  );

  it.each(ROWS)("$name", async ({ operation, case: c }) => {
    const answer = await send(operation, c.headers(keys), c.query?.(keys));
    answer.stream?.close();
    expect(answer.status, JSON.stringify(answer.problem)).toBe(c.status);
    expect(answer.problem).toMatchObject({ code: c.code });
    if (c.status === 401) expect(answer.headers.get("www-authenticate")).toMatch(/^Bearer/);
    if (c.violated) {
      expect(answer.problem).toMatchObject({ "violated-policies": c.violated });
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
  });

  it.each(OPERATIONS)(
    "$label refuses requests beyond the key's per-second limit with 429 rate_limited",
    async (operation) => {
      const answers = await Promise.all(Array.from({ length: BURST }, () => send(operation, header(keys.oneASecond))));
      for (const answer of answers) answer.stream?.close();
      // How many fall in one second depends on the machine's speed; that one at least is refused does not.
      expect(answers.every((answer) => answer.status === 200 || answer.status === 429)).toBe(true);
      const refused = answers.filter((answer) => answer.status === 429);
      expect(refused.length).toBeGreaterThanOrEqual(1);
      for (const answer of refused) {
        expect(answer.problem).toMatchObject({ code: "rate_limited", "violated-policies": ["second"] });
        expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      }
    },
  );
});
