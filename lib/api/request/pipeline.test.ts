import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { activeKey } from "../../../testing/keys.ts";
import { DATABASE_WAIT_MS } from "../../db/wait.ts";
import { generateKey } from "../../keys/format.ts";
import type { ApiKeyRecord } from "../../keys/lookup.ts";
import { listOdds } from "../endpoints/index.ts";
import { KeyHashes } from "../credentials/key-hashes.ts";
import { KeyGuesses } from "../credentials/guesses.ts";
import { API_HEADERS, defineEndpoint, serve, type ApiRequest, type ApiServices } from "./pipeline.ts";

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

const key = activeKey();

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

describe("a database that does not answer", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const never = () => new Promise<never>(() => {});
  const services = (parts: Partial<ApiServices>) =>
    ({
      now: () => new Date("2026-11-23T12:00:00Z"),
      keyHashes: new KeyHashes(),
      guesses: new KeyGuesses(),
      trustedHops: 0,
      ...parts,
    }) as unknown as ApiServices;
  const answerOf = (answer: { status: number; headers: Record<string, string>; body: Buffer[] | null }) => ({
    status: answer.status,
    retryAfter: answer.headers["retry-after"],
    code: (JSON.parse(Buffer.concat(answer.body!).toString()) as { code: string }).code,
  });

  it("answers 503 unavailable with Retry-After once a key's lookup has taken DATABASE_WAIT_MS", async () => {
    vi.useFakeTimers();
    const answering = serve(
      services({ keys: { resolve: never, knows: () => true } as unknown as ApiServices["keys"] }),
      listOdds,
      {},
      request("GET", { authorization: `Bearer ${generateKey("production")}` }),
    );
    let settled = false;
    void answering.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(DATABASE_WAIT_MS - 1);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(answerOf(await answering)).toEqual({ status: 503, retryAfter: "2", code: "unavailable" });
  });

  it("tells the meter the moment after which a count read too late must count nothing", async () => {
    vi.useFakeTimers();
    const deadlines: (number | undefined)[] = [];
    const started = Date.now();
    const answering = serve(
      services({
        keys: { resolve: () => key, knows: () => true } as unknown as ApiServices["keys"],
        meter: {
          admit: (_key: ApiKeyRecord, _at: Date, notAfter?: number) => {
            deadlines.push(notAfter);
            return never();
          },
        } as unknown as ApiServices["meter"],
      }),
      listOdds,
      {},
      request("GET", { authorization: `Bearer ${generateKey("production")}` }),
    );
    await vi.advanceTimersByTimeAsync(DATABASE_WAIT_MS);
    expect(answerOf(await answering)).toEqual({ status: 503, retryAfter: "2", code: "unavailable" });
    expect(deadlines).toEqual([started + DATABASE_WAIT_MS]);
  });
});

describe("a counted request", () => {
  // A stream endpoint whose stream does nothing: what matters is whether its answer is given.
  const streaming = defineEndpoint({
    operationId: "streamNothing",
    path: "/api/v1/stream/nothing",
    summary: "",
    description: "",
    tag: "Streams",
    query: z.object({}),
    response: z.unknown(),
    errors: [],
    stream: { messages: {} },
    handle: () => ({ stream: () => {} }),
  });
  /** Services whose meter admits every request; its count is journaled when `journaled` settles. */
  const meteredBy = (journaled: Promise<void>) => {
    let released = 0;
    const services = {
      now: () => new Date("2026-11-23T12:00:00Z"),
      keys: { resolve: () => key, knows: () => true },
      guesses: new KeyGuesses(),
      trustedHops: 0,
      keyHashes: new KeyHashes(),
      meter: {
        admit: () => ({
          admitted: true,
          used: 1,
          quota: 1_000,
          counts: { key: { used: 1, quota: 1_000 }, organisation: null },
          headers: {},
          journaled,
        }),
        openStream: () => ({ release: () => released++ }),
      },
      streams: { acceptingStreams: true },
      views: { present: {} },
    } as unknown as ApiServices;
    return { services, released: () => released };
  };
  const get = () => request("GET", { authorization: `Bearer ${generateKey("production")}` });
  const turn = () => new Promise((resolve) => setImmediate(resolve));

  it("is answered only once its count is journaled, whatever the answer", async () => {
    const journal = Promise.withResolvers<void>();
    const { services } = meteredBy(journal.promise);
    let settled = false;
    const answering = serve(services, null, {}, get()).then((answer) => ((settled = true), answer));
    await turn();
    expect(settled).toBe(false);
    journal.resolve();
    const answer = await answering;
    expect(answer.status).toBe(404);
    expect(JSON.parse(Buffer.concat(answer.body!).toString())).toMatchObject({ code: "not_found" });
  });

  it("whose count could not be journaled is answered 503, and its stream's place given back", async () => {
    const journal = Promise.withResolvers<void>();
    const { services, released } = meteredBy(journal.promise);
    const answering = serve(services, streaming, {}, get());
    journal.reject(Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" }));
    const answer = await answering;
    expect(answer.status).toBe(503);
    expect(answer.stream).toBeUndefined();
    expect(answer.headers["retry-after"]).toBe("2");
    expect(JSON.parse(Buffer.concat(answer.body!).toString())).toMatchObject({ code: "unavailable" });
    expect(released()).toBe(1);
  });
});
