import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import type { z } from "zod";
import { ENDPOINTS } from "../lib/api/endpoints/index.ts";
import { openApiDocument } from "../lib/api/documents/openapi.ts";
import { crc32 } from "node:zlib";
import { toBase62 } from "../lib/ids.ts";
import { checkKeyFormat } from "../lib/keys/format.ts";
import { expectDocumented } from "../testing/api.ts";
import { pacer } from "../testing/pace.ts";
import { sseReader, type SseMessage } from "../testing/sse.ts";
import { redact, type Finding, type Tally } from "./report.ts";

// The fuzzer: requests for every operation of our OpenAPI document, generated from its parameter
// schemas with fast-check, valid ones and ones with one thing broken, each answer checked as
// Schemathesis checks it: no 5xx, a status the document lists for the operation, a body that
// matches the document's schema for that status, valid input accepted, invalid input refused
// with a 4xx problem, and no answer without a key that works.

type JsonSchema = Record<string, unknown>;
type Parameter = { name: string; in: "path" | "query" | "header"; required: boolean; schema: JsonSchema };
type Operation = {
  operationId: string;
  template: string;
  parameters: Parameter[];
  statuses: Set<number>;
  /** The data schemas of a stream's messages by event name; null for a JSON operation. */
  messages: Record<string, z.ZodType> | null;
};

/** What an answer must be, decided when the request is made. */
type Expectation =
  | "accepted" // 200, or 304 for a conditional request; a stream opens
  | "not_found" // 404 problem: a well-formed id of no event
  | "invalid" // 400 problem
  | "refused" // any 4xx problem (a method the API does not answer: 405)
  | "unauthenticated" // 401 problem
  | "either"; // 200, or any 4xx problem: a well-formed moment the case cannot place in the history

export type FuzzCase = {
  operationId: string;
  method: string;
  /** Path and query as sent, percent-encoding included (never normalised). */
  target: string;
  headers: Record<string, string>;
  /** Which production key it uses (an index), or null for the credentials in `headers`. */
  key: number | null;
  credentials: "authorization" | "x-api-key" | "both";
  expect: Expectation;
  /** What was broken, for the report. */
  broken: string;
};

export type FuzzContext = {
  baseUrl: string;
  /** Production keys whose plan covers every sport; the fuzzer spreads its requests over them. */
  keys: string[];
  requestsPerSecond: number;
  eventIds: string[];
  cursors: string[];
  revisions: number[];
  /** Moments of the history at which every event existed: revisions (digits) and times (ISO 8601). */
  moments: string[];
  /** Every market, with its event: a market's history is asked of its own event. */
  markets: { eventId: string; marketId: string }[];
};

const document = openApiDocument() as {
  paths: Record<string, { get: { operationId: string; parameters: Parameter[]; responses: Record<string, unknown> } }>;
  components: { schemas: Record<string, JsonSchema> };
};

function resolve(schema: JsonSchema): JsonSchema {
  const ref = schema.$ref as string | undefined;
  return ref ? document.components.schemas[ref.replace("#/components/schemas/", "")]! : schema;
}

export const OPERATIONS: Operation[] = Object.entries(document.paths).map(([template, item]) => {
  const endpoint = ENDPOINTS.find((e) => e.operationId === item.get.operationId);
  if (!endpoint) throw new Error(`the document lists ${item.get.operationId}, which no endpoint serves`);
  return {
    operationId: item.get.operationId,
    template,
    // A stream token is a credential, not input: every case sends a key, and the security suite
    // and the abuse checks try tokens.
    parameters: item.get.parameters.filter((p) => p.name !== "token").map((p) => ({ ...p, schema: resolve(p.schema) })),
    statuses: new Set(Object.keys(item.get.responses).map(Number)),
    messages: endpoint.stream?.messages ?? null,
  };
});

// Whether a value is one the parameter's schema allows, as a client reading the document would
// judge: an integer parameter takes the decimal digits of an integer in its range, without a sign
// of its own, spaces or leading zeros.
const ajv = new Ajv2020({ strict: false, validateFormats: false });
const conformance = new Map<Parameter, (value: string) => boolean>();
function conforms(parameter: Parameter, value: string): boolean {
  let check = conformance.get(parameter);
  if (!check) {
    const validate = ajv.compile(parameter.schema);
    check =
      parameter.schema.type === "integer"
        ? (v) => /^(?:0|-?[1-9][0-9]{0,15})$/.test(v) && validate(Number(v))
        : (v) => validate(v) as boolean;
    conformance.set(parameter, check);
  }
  return check(value);
}

/** The value the server reads from what is sent, by the URL standard. */
function decoded(parameter: Parameter, raw: string): string {
  if (parameter.in === "query") return new URLSearchParams(`v=${raw}`).get("v") ?? "";
  if (parameter.in === "header") return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Whether a path segment reaches the server as written (the URL standard drops dot segments). */
function sentAsIs(segment: string): boolean {
  return new URL(`http://host/a/${segment}/b`).pathname === `/a/${segment}/b`;
}

/** Valid values of a parameter, as they appear in a URL (or a header). */
function validRaw(parameter: Parameter, context: FuzzContext): fc.Arbitrary<string> {
  const schema = parameter.schema;
  if ((parameter.in === "path" && parameter.name === "id") || parameter.name === "event_id") {
    return fc.constantFrom(...context.eventIds);
  }
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as string[]));
  // Revisions the history holds, before the integers: any other is ahead of the feed or gone.
  if (/last.event.id/i.test(parameter.name) || parameter.name === "since") {
    return fc.constantFrom(...context.revisions.map(String));
  }
  if (schema.type === "integer") {
    return fc
      .integer({ min: (schema.minimum as number) ?? -1_000_000, max: (schema.maximum as number) ?? 1_000_000 })
      .map(String);
  }
  if (parameter.in === "path" && parameter.name === "market_id") {
    return fc.constantFrom(...context.markets.map((m) => encodeURIComponent(m.marketId)));
  }
  if (parameter.name === "as_of") return fc.constantFrom(...context.moments).map(encodeURIComponent);
  if (parameter.name === "from" || parameter.name === "to") {
    return fc.constantFrom(...context.moments.filter((m) => m.includes("T"))).map(encodeURIComponent);
  }
  if (parameter.name === "cursor") return fc.constantFrom(...context.cursors).map(encodeURIComponent);
  if (schema.type === "string") return fc.string({ maxLength: 20 }).map(encodeURIComponent);
  throw new Error(`no generator for parameter ${parameter.name} of ${JSON.stringify(schema)}`);
}

/**
 * What a broken parameter carries, as it appears in the URL: wrong types, values out of range, very
 * long ones, invalid UTF-8 and percent-encoding, control characters, SQL and path traversal.
 */
function brokenRaw(parameter: Parameter): fc.Arbitrary<{ raw: string; kind: string }> {
  const schema = parameter.schema;
  const enc = (kind: string, values: string[]) => values.map((v) => ({ raw: encodeURIComponent(v), kind }));
  const lit = (kind: string, values: string[]) => values.map((raw) => ({ raw, kind }));
  const min = (schema.minimum as number | undefined) ?? 1;
  const max = (schema.maximum as number | undefined) ?? 100;
  const fixed = [
    ...enc("wrong type", ["abc", "1.5", "true", "null", "[]", "{}", "-", " ", "1e1", "0x10", "１"]),
    ...enc("out of range", [String(min - 1), String(max + 1), "-2147483649", "9007199254740993", "1e309", "NaN"]),
    ...lit("invalid percent-encoding", ["%", "%%", "%G1", "%E0%A4%A", "%FF", "%C0%AF", "%ED%A0%80", "%F4%90%80%80"]),
    ...lit("control characters", ["%00", "%0A", "%0D%0ASet-Cookie:%20a=b", "%1B%5B31m", "%7F", "a%08b"]),
    ...enc("SQL", [
      "' OR '1'='1",
      "1; DROP TABLE events;--",
      "soccer' --",
      '" OR 1=1 --',
      "1 UNION SELECT key_hash FROM api_keys",
    ]),
    ...enc("path traversal", ["../../etc/passwd", "..\\..\\windows\\win.ini", "/etc/passwd"]),
    ...lit("path traversal", ["..%2F..%2Fetc%2Fpasswd", "%2e%2e%2f%2e%2e%2f", "%252e%252e%252f", "..%c0%af"]),
    ...enc("unicode", ["⚽", "\u202Esoccer", "socc\u00E9r", "\uFEFFsoccer"]),
    ...lit("empty", [""]),
  ];
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...fixed) },
    ...(schema.type === "integer" ? [{ weight: 6, arbitrary: malformedNumber(parameter) }] : []),
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 65, max: 8_000 })
        .chain((bytes) => fc.constantFrom("a", "9", "%FF", "%C3%A9").map((unit) => ({ bytes, unit })))
        // Up to 8 KB in the URL: past Node's 16 KB for the whole head, the HTTP parser refuses
        // the request (431) before the API sees it; the header checks send that much.
        .map(({ bytes, unit }) => ({ raw: unit.repeat(Math.ceil(bytes / unit.length)), kind: "very long" })),
    },
    {
      weight: 2,
      arbitrary: fc
        .string({ minLength: 1, maxLength: 40 })
        .map((v) => ({ raw: encodeURIComponent(v), kind: "random" })),
    },
  );
}

/**
 * An integer in range, written in a form `Number()` reads but a decimal integer is not: other
 * bases, an exponent, a sign, spaces, leading zeros, a fraction, or nothing at all.
 */
function malformedNumber(parameter: Parameter): fc.Arbitrary<{ raw: string; kind: string }> {
  const schema = parameter.schema;
  const min = Math.max((schema.minimum as number | undefined) ?? 1, 1);
  const max = Math.min((schema.maximum as number | undefined) ?? 100, 1_000_000);
  const forms: [string, (n: number) => string][] = [
    ["hexadecimal", (n) => `0x${n.toString(16)}`],
    ["hexadecimal", (n) => `0X${n.toString(16).toUpperCase()}`],
    ["binary", (n) => `0b${n.toString(2)}`],
    ["octal", (n) => `0o${n.toString(8)}`],
    ["exponent", (n) => `${n}e0`],
    ["exponent", (n) => (n % 10 === 0 && n > 0 ? `${n / 10}e1` : `${n * 10}e-1`)],
    ["exponent", (n) => `${n}E+0`],
    ["leading space", (n) => `%20${n}`],
    ["leading space", (n) => `+${n}`], // a `+` in a query is a space
    ["trailing space", (n) => `${n}%20`],
    ["tab", (n) => `%09${n}`],
    ["newline", (n) => `${n}%0A`],
    ["plus sign", (n) => `%2B${n}`],
    ["leading zeros", (n) => `0${n}`],
    ["leading zeros", (n) => `000${n}`],
    ["decimal", (n) => `${n}.0`],
    ["decimal", (n) => `${n}.`],
    ["decimal", (n) => `${n}.00001`],
    ["empty", () => ""],
  ];
  return fc
    .tuple(fc.integer({ min, max }), fc.constantFrom(...forms))
    .map(([n, [kind, write]]) => ({ raw: write(n), kind: `malformed number (${kind})` }));
}

// Query parameters no operation takes; some name a key, which the API refuses outright (401).
const UNKNOWN = ["page", "offset", "SPORT", "sport[]", "__proto__", "constructor", "q", "fields", "limit%00"];
const KEY_PARAMETERS = ["api_key", "key", "token", "access_token"];
const OTHER_METHODS = ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

const BASE62 = [..."0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"];

/** A key of the right form whose checksum matches (one nobody holds), from the seed. */
const guessedKey = fc
  .tuple(
    fc.constantFrom("svc_sk_", "svc_sb_"),
    fc.string({ unit: fc.constantFrom(...BASE62), minLength: 26, maxLength: 26 }),
  )
  .map(([prefix, random]) => `${prefix}${random}${toBase62(crc32(random), 6)}`);

// Credentials that open nothing: none, malformed, a bad checksum, a well-formed key nobody holds.
function wrongCredentials(): fc.Arbitrary<{ headers: Record<string, string>; broken: string }> {
  const badChecksum = (key: string) => `${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`;
  return fc.oneof(
    fc.constant({ headers: {}, broken: "no key" }),
    fc.constant({ headers: { authorization: "Bearer" }, broken: "empty bearer" }),
    fc.constant({ headers: { authorization: "Basic dXNlcjpwYXNz" }, broken: "basic credentials" }),
    guessedKey.map((key) => ({ headers: { authorization: `Bearer ${badChecksum(key)}` }, broken: "bad checksum" })),
    guessedKey.map((key) => ({ headers: { "x-api-key": badChecksum(key) }, broken: "bad checksum" })),
    guessedKey
      .filter((key) => checkKeyFormat(key) !== null)
      .map((key) => ({ headers: { "x-api-key": key }, broken: "guessed key" })),
    fc.constant({ headers: { "x-api-key": `svc_sk_${"a".repeat(4_000)}` }, broken: "very long key" }),
    fc
      .string({ minLength: 1, maxLength: 60 })
      .filter((s) => /^[\x21-\x7e]+$/.test(s))
      .map((s) => ({ headers: { authorization: `Bearer ${s}` }, broken: "random key" })),
  );
}

function urlOf(operation: Operation, values: Map<Parameter, string>, extra: string[] = []): string {
  let path = operation.template;
  const query: string[] = [];
  for (const [parameter, raw] of values) {
    if (parameter.in === "path") path = path.replace(`{${parameter.name}}`, raw);
    else if (parameter.in === "query") query.push(`${parameter.name}=${raw}`);
  }
  query.push(...extra);
  return query.length ? `${path}?${query.join("&")}` : path;
}

function headersOf(values: Map<Parameter, string>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [parameter, raw] of values) if (parameter.in === "header") headers[parameter.name.toLowerCase()] = raw;
  return headers;
}

/**
 * Whether a path parameter's value names what exists: an event; on a market's history, the case's
 * market of that event, or that market's own event.
 */
function pathFound(
  operation: Operation,
  parameter: Parameter,
  value: string,
  market: FuzzContext["markets"][number],
  context: FuzzContext,
): boolean {
  const ofMarket = operation.parameters.some((p) => p.in === "path" && p.name === "market_id");
  if (!ofMarket) return context.eventIds.includes(value);
  const pair = parameter.name === "market_id" ? { ...market, marketId: value } : { ...market, eventId: value };
  return context.markets.some((m) => m.eventId === pair.eventId && m.marketId === pair.marketId);
}

function operationCases(operation: Operation, context: FuzzContext): fc.Arbitrary<FuzzCase> {
  // A valid value of every parameter; every required one is sent, each optional one or not.
  const base = fc
    .record({
      raws: fc.tuple(...operation.parameters.map((p) => validRaw(p, context))),
      sent: fc.tuple(...operation.parameters.map((p) => (p.required ? fc.constant(true) : fc.boolean()))),
      key: fc.nat({ max: context.keys.length - 1 }),
      credentials: fc.constantFrom("authorization" as const, "x-api-key" as const, "both" as const),
      method: fc.oneof({ weight: 9, arbitrary: fc.constant("GET") }, { weight: 1, arbitrary: fc.constant("HEAD") }),
      market: fc.constantFrom(...context.markets),
    })
    .map((b) => {
      const values = new Map<Parameter, string>();
      operation.parameters.forEach((p, i) => b.sent[i] && values.set(p, b.raws[i]!));
      // An event and a sport must agree (400 otherwise), and the cases do not pair them: the event wins.
      if ([...values.keys()].some((p) => p.name === "event_id")) {
        for (const p of [...values.keys()]) if (p.name === "sport") values.delete(p);
      }
      // A market's history: the market and its own event.
      const marketId = operation.parameters.find((p) => p.in === "path" && p.name === "market_id");
      if (marketId) {
        values.set(marketId, encodeURIComponent(b.market.marketId));
        values.set(
          operation.parameters.find((p) => p.in === "path" && p.name === "id")!,
          b.market.eventId,
        );
      }
      return { ...b, values };
    });

  const valid = base.map(({ values, key, credentials, method }) => ({
    operationId: operation.operationId,
    method,
    target: urlOf(operation, values),
    headers: headersOf(values),
    key,
    credentials,
    expect: "accepted" as Expectation,
    broken: "",
  }));

  const targets: string[] = [
    ...operation.parameters.map((p) => p.name),
    "unknown parameter",
    "key parameter",
    "method",
    ...operation.parameters.filter((p) => p.in === "query").map((p) => `repeated ${p.name}`),
  ];
  const broken = fc
    .tuple(
      base,
      fc.constantFrom(...targets),
      fc.constantFrom(...UNKNOWN),
      fc.constantFrom(...KEY_PARAMETERS),
      fc.constantFrom(...OTHER_METHODS),
    )
    .chain(([b, target, unknown, keyParameter, otherMethod]) => {
      const parameter = operation.parameters.find((p) => p.name === target);
      type Payload = { raw: string; kind: string } | null;
      if (!parameter) {
        return fc.constant({ b, target, unknown, keyParameter, otherMethod, payload: null as Payload });
      }
      return (
        brokenRaw(parameter)
          .filter((payload) => parameter.in !== "header" || /^[\x20-\x7e]*$/.test(payload.raw))
          // "." and ".." are path segments of their own: the URL is another path, not a broken id.
          .filter((payload) => parameter.in !== "path" || sentAsIs(payload.raw))
          .map((payload) => ({ b, target, unknown, keyParameter, otherMethod, payload: payload as Payload }))
      );
    })
    .map(({ b, target, unknown, keyParameter, otherMethod, payload }): FuzzCase => {
      const values = new Map(b.values);
      const extra: string[] = [];
      let expect: Expectation = "invalid";
      let method = "GET";
      let what = target;
      const parameter = operation.parameters.find((p) => p.name === target);
      if (parameter && payload) {
        values.set(parameter, payload.raw);
        what = `${parameter.name}: ${payload.kind}`;
        const value = decoded(parameter, payload.raw);
        if (/svc_s[bk]_/.test(value)) expect = "unauthenticated";
        else if (parameter.in === "path" && payload.raw === "")
          expect = "not_found"; // another path
        else if (!conforms(parameter, value)) expect = "invalid";
        // Opaque: only what the API gave out is a cursor.
        else if (parameter.name === "cursor" && !context.cursors.includes(value)) expect = "invalid";
        // Any well-formed moment: the state then (200), not yet or not kept (400, 410), no event then (404).
        else if (["as_of", "from", "to", "since"].includes(parameter.name)) expect = "either";
        else if (parameter.name === "event_id" && !context.eventIds.includes(value)) expect = "not_found";
        else if (parameter.in === "path" && !pathFound(operation, parameter, value, b.market, context)) {
          expect = "not_found";
        } else expect = "accepted";
      } else if (target === "unknown parameter") {
        extra.push(`${unknown}=1`);
        what = `unknown parameter ${unknown}`;
      } else if (target === "key parameter") {
        extra.push(`${keyParameter}=${context.keys[b.key]}`);
        expect = "unauthenticated";
        what = `key in the query (${keyParameter})`;
      } else if (target === "method") {
        method = otherMethod;
        expect = "refused";
        what = `method ${method}`;
      } else {
        const name = target.replace("repeated ", "");
        const index = operation.parameters.findIndex((p) => p.name === name);
        const repeated = operation.parameters[index]!;
        const first = b.raws[index]!;
        values.set(repeated, first);
        extra.push(`${name}=${first}`);
      }
      return {
        operationId: operation.operationId,
        method,
        target: urlOf(operation, values, extra),
        headers: headersOf(values),
        key: b.key,
        credentials: b.credentials,
        expect,
        broken: what,
      };
    });

  const unauthenticated = fc.tuple(base, wrongCredentials()).map(([b, wrong]): FuzzCase => ({
    operationId: operation.operationId,
    method: "GET",
    target: urlOf(operation, b.values),
    headers: { ...headersOf(b.values), ...wrong.headers },
    key: null,
    credentials: "authorization",
    expect: "unauthenticated",
    broken: wrong.broken,
  }));

  return fc.oneof(
    { weight: 4, arbitrary: valid },
    { weight: 5, arbitrary: broken },
    { weight: 1, arbitrary: unauthenticated },
  );
}

/** The cases of one run: the same seed gives the same cases. */
export function fuzzCases(context: FuzzContext, count: number, seed: number): FuzzCase[] {
  const all = fc.oneof(...OPERATIONS.map((operation) => operationCases(operation, context)));
  return fc.sample(all, { seed, numRuns: count });
}

const STREAM_READ_MS = 10_000;

/**
 * The first message of a stream, then the connection is closed: null for a `: ping` comment, which
 * is all a client that resumes where the feed is has to be sent.
 */
async function firstMessage(response: Response, abort: AbortController): Promise<SseMessage | null> {
  const reader = response.body!.getReader();
  const timer = setTimeout(() => abort.abort(), STREAM_READ_MS);
  let first: SseMessage | null | undefined;
  const parser = sseReader({
    onMessage: (message) => (first ??= message),
    onComment: (comment) => {
      if (comment === "ping" && first === undefined) first = null;
    },
  });
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const chunk = Buffer.from(value).toString("utf8");
      text += chunk;
      parser.feed(chunk);
      if (first !== undefined) return first;
    }
    throw new Error(`the stream ended before its first message (got ${JSON.stringify(text.slice(0, 200))})`);
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

/** Sends one case and returns what is wrong with its answer (nothing, when all is well). */
export async function runCase(fuzzCase: FuzzCase, context: FuzzContext, tally: Tally): Promise<string[]> {
  const operation = OPERATIONS.find((o) => o.operationId === fuzzCase.operationId)!;
  const headers: Record<string, string> = { ...fuzzCase.headers };
  if (fuzzCase.key !== null) {
    const key = context.keys[fuzzCase.key]!;
    if (fuzzCase.credentials !== "x-api-key") headers.authorization = `Bearer ${key}`;
    if (fuzzCase.credentials !== "authorization") headers["x-api-key"] = key;
  }
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), STREAM_READ_MS);
  let response: Response;
  try {
    response = await fetch(`${context.baseUrl}${fuzzCase.target}`, {
      method: fuzzCase.method,
      headers,
      signal: abort.signal,
    });
  } catch (error) {
    return [`no answer: ${(error as Error).message}`];
  } finally {
    clearTimeout(timer);
  }
  const problems: string[] = [];
  const status = response.status;
  tally.status(`${fuzzCase.operationId} ${status}`);
  if (status >= 500) problems.push(`a server error (${status})`);
  if (!operation.statuses.has(status))
    problems.push(`status ${status} is not one the document lists for the operation`);

  const type = (response.headers.get("content-type") ?? "").split(";")[0]!;
  let body: unknown = null;
  try {
    if (operation.messages && status === 200 && fuzzCase.method === "GET") {
      const message = await firstMessage(response, abort);
      const resuming = "last-event-id" in headers || /[?&](last_event_id|lastEventId)=/.test(fuzzCase.target);
      if (message === null) {
        if (!resuming) problems.push("a new stream began with a ping, not a snapshot");
      } else {
        const { event, id, retry } = message;
        const data = JSON.parse(message.data) as unknown;
        const schema = operation.messages[event];
        if (!schema) problems.push(`the stream's first message is "${event}", which the document does not list`);
        else if (!schema.safeParse(data).success) problems.push(`the stream's "${event}" does not match its schema`);
        // A resuming client is sent what it missed first; any other begins with the whole state.
        if (!resuming && event !== "snapshot") problems.push(`the stream began with "${event}", not a snapshot`);
        // The document describes a stream's body as its messages, each by its SSE fields.
        body = {
          event,
          ...(id === undefined ? {} : { id: String(id) }),
          ...(retry === undefined ? {} : { retry }),
          data,
        };
      }
    } else {
      const text = await response.text();
      body = text ? (JSON.parse(text) as unknown) : null;
    }
  } catch (error) {
    problems.push(`unreadable body: ${(error as Error).message}`);
    abort.abort();
  }
  if (operation.messages === null || status !== 200 || fuzzCase.method !== "GET" || body !== null) {
    try {
      expectDocumented(fuzzCase.target.split("?")[0]!, response, body);
    } catch (error) {
      problems.push(`not as documented: ${(error as Error).message.split("\n")[0]}`);
    }
  }

  const problem = type === "application/problem+json";
  const expected = fuzzCase.expect;
  if (expected === "accepted") {
    // A stream of an event that is over answers 204: nothing to follow, as documented.
    const nothingToFollow = status === 204 && operation.messages !== null;
    if (status !== 200 && status !== 304 && !nothingToFollow) problems.push(`valid input refused with ${status}`);
  } else if (expected === "either") {
    if (status !== 200 && status !== 304 && (status < 400 || status >= 500 || (fuzzCase.method !== "HEAD" && !problem)))
      problems.push(`a moment (${fuzzCase.broken}) answered ${status}, neither 200 nor a 4xx problem`);
  } else {
    tally.invalidInput(status);
    const wanted = { invalid: [400], not_found: [404], unauthenticated: [401], refused: [] as number[] }[expected];
    if (status < 400 || status >= 500) problems.push(`invalid input (${fuzzCase.broken}) answered ${status}, not 4xx`);
    else if (wanted.length && !wanted.includes(status))
      problems.push(`${fuzzCase.broken}: ${status}, expected ${wanted.join(" or ")}`);
    if (fuzzCase.method !== "HEAD" && !problem) problems.push(`a refusal that is not a problem (${type || "no type"})`);
  }
  return problems;
}

/** Runs the cases `concurrency` at a time, each key within its per-second limit. */
export async function runFuzz(
  cases: FuzzCase[],
  context: FuzzContext,
  options: { concurrency: number; tally: Tally; deadline: number },
): Promise<Finding[]> {
  const findings: Finding[] = [];
  const pacers = context.keys.map(() => pacer(context.requestsPerSecond));
  let next = 0;
  const worker = async () => {
    while (next < cases.length && Date.now() < options.deadline) {
      const index = next++;
      const fuzzCase = cases[index]!;
      const run = () => runCase(fuzzCase, context, options.tally);
      const problems = await (fuzzCase.key === null ? run() : pacers[fuzzCase.key]!(run));
      options.tally.cases++;
      for (const problem of problems) {
        findings.push({
          check: `fuzz ${fuzzCase.operationId}`,
          problem,
          detail: redact(
            `case ${index}: ${fuzzCase.method} ${fuzzCase.target} ${JSON.stringify(fuzzCase.headers)} (${fuzzCase.credentials})`,
            context.keys,
          ),
        });
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return findings;
}
