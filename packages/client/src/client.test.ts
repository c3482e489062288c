import { afterEach, describe, expect, it, vi } from "vitest";
import { createClient } from "./client.ts";
import { KeyRequiredError, NetworkError, ProblemError } from "./errors.ts";

// The REST side of the client with a fake fetch and a fake clock: what it sends, how it reads
// answers and problems, and when it tries again.

const KEY = "svc_sk_testtesttesttesttesttesttesttest";
const LIMITS = {
  "ratelimit-policy": '"second";q=2;w=1, "month";q=1000;w=2592000',
  ratelimit: '"second";r=1;t=1, "month";r=990;t=86400',
};
const META = { sandbox: false, delay_seconds: 0, requests_used: 10, requests_quota: 1000 };

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": status < 400 ? "application/json" : "application/problem+json", ...headers },
  });
const problem = (status: number, code: string, headers: Record<string, string> = {}, extra = {}) =>
  json(
    { type: `/docs/errors#${code}`, title: code, status, detail: `about ${code}`, code, request_id: "req_1", ...extra },
    status,
    headers,
  );

/** A fetch answering from `answers` in turn, recording each request. */
function fakeFetch(...answers: (Response | Error)[]) {
  const requests: { url: string; headers: Headers }[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    requests.push({ url: String(input), headers: new Headers(init?.headers) });
    const answer = answers.shift();
    if (!answer) throw new Error("no more answers");
    if (answer instanceof Error) throw answer;
    return answer;
  });
  return { fetch: fetch as unknown as typeof globalThis.fetch, requests };
}

afterEach(() => vi.useRealTimers());

describe("the client's REST methods", () => {
  it("send the key as a bearer token with the query, and return the envelope and the rate limits", async () => {
    const { fetch, requests } = fakeFetch(json({ data: [], meta: { ...META, next_cursor: null } }, 200, LIMITS));
    const client = createClient({ key: KEY }, { baseUrl: "http://api.test/", fetch });
    expect(client.lastRateLimit).toBeNull();
    const page = await client.listEvents({ sport: "soccer", limit: 5 });
    expect(page.meta.next_cursor).toBeNull();
    expect(requests[0]!.url).toBe("http://api.test/api/v1/events?sport=soccer&limit=5");
    expect(requests[0]!.headers.get("authorization")).toBe(`Bearer ${KEY}`);
    expect(client.lastRateLimit).toEqual({
      second: { quota: 2, windowSeconds: 1, remaining: 1, resetSeconds: 1 },
      month: { quota: 1000, windowSeconds: 2592000, remaining: 990, resetSeconds: 86400 },
    });
  });

  it("iterate every page of events, following next_cursor until it is null", async () => {
    const event = (id: string) => ({ id });
    const { fetch, requests } = fakeFetch(
      json({ data: [event("a"), event("b")], meta: { ...META, next_cursor: "c1" } }),
      json({ data: [event("c")], meta: { ...META, next_cursor: null } }),
    );
    const client = createClient({ key: KEY }, { baseUrl: "http://api.test", fetch });
    const ids: string[] = [];
    for await (const item of client.iterateEvents({ limit: 2 })) ids.push(item.id);
    expect(ids).toEqual(["a", "b", "c"]);
    expect(requests.map((r) => r.url)).toEqual([
      "http://api.test/api/v1/events?limit=2",
      "http://api.test/api/v1/events?limit=2&cursor=c1",
    ]);
  });

  it("send a moment of the history and a market's window in the query, ids encoded in the path", async () => {
    const { fetch, requests } = fakeFetch(
      json({ data: { id: "a" }, meta: META }),
      json({ data: { event_id: "a", market_id: "a:total/x", points: [] }, meta: META }),
      json({ data: { id: "a:b", markets: [] }, meta: META }),
    );
    const client = createClient({ key: KEY }, { baseUrl: "http://api.test", fetch });
    await client.getEvent("a", { as_of: "48213" });
    await client.marketHistory("a", "a:total/x", { from: "2026-11-21T15:00:00Z" });
    await client.getEventOdds("a:b", { type: "total", as_of: "48213" });
    expect(requests.map((r) => r.url)).toEqual([
      "http://api.test/api/v1/events/a?as_of=48213",
      "http://api.test/api/v1/events/a/markets/a%3Atotal%2Fx/history?from=2026-11-21T15%3A00%3A00Z",
      "http://api.test/api/v1/events/a%3Ab/odds?type=total&as_of=48213",
    ]);
  });

  it("throw the problem as a ProblemError with its fields", async () => {
    const { fetch } = fakeFetch(
      problem(400, "unknown_parameter", {}, { errors: [{ param: "page", message: "not a parameter" }] }),
    );
    const client = createClient({ key: KEY }, { baseUrl: "http://api.test", fetch });
    const error = await client.getEvent("nope").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProblemError);
    expect(error).toMatchObject({
      status: 400,
      code: "unknown_parameter",
      title: "unknown_parameter",
      detail: "about unknown_parameter",
      requestId: "req_1",
      errors: [{ param: "page", message: "not a parameter" }],
    });
  });

  it("read an answer that is not a problem as unexpected_response, with its request id", async () => {
    const { fetch } = fakeFetch(
      new Response("<html>Bad gateway</html>", { status: 500, headers: { "x-request-id": "r9" } }),
    );
    const client = createClient({ key: KEY }, { baseUrl: "http://api.test", fetch });
    await expect(client.me()).rejects.toMatchObject({ status: 500, code: "unexpected_response", requestId: "r9" });
  });

  it("wait Retry-After on 429 and try again, up to maxRetries times", async () => {
    vi.useFakeTimers();
    const limited = () => problem(429, "rate_limited", { "retry-after": "1" }, { "violated-policies": ["second"] });
    const { fetch } = fakeFetch(limited(), limited(), json({ data: { key: KEY }, meta: META }));
    const client = createClient({ key: KEY }, { baseUrl: "http://api.test", fetch });
    const answer = client.me();
    await vi.advanceTimersByTimeAsync(999);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(251);
    expect(fetch).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1250);
    await expect(answer).resolves.toMatchObject({ data: { key: KEY } });
    expect(fetch).toHaveBeenCalledTimes(3);

    const { fetch: refusing } = fakeFetch(limited(), limited(), limited());
    const gives = createClient({ key: KEY }, { baseUrl: "http://api.test", fetch: refusing })
      .me()
      .catch((e) => e);
    await vi.advanceTimersByTimeAsync(5000);
    expect(await gives).toMatchObject({ code: "rate_limited", retryAfter: 1, violatedPolicies: ["second"] });
    expect(refusing).toHaveBeenCalledTimes(3);
  });

  it("throw quota_exceeded at once: its wait (until next month) is beyond maxDelayMs", async () => {
    const { fetch } = fakeFetch(
      problem(429, "quota_exceeded", { "retry-after": "86400" }, { "violated-policies": ["month"] }),
    );
    const client = createClient({ key: KEY }, { baseUrl: "http://api.test", fetch });
    await expect(client.me()).rejects.toMatchObject({ code: "quota_exceeded", retryAfter: 86400 });
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it("try a read again when no answer came, then throw a NetworkError", async () => {
    vi.useFakeTimers();
    const { fetch } = fakeFetch(
      new TypeError("fetch failed"),
      new TypeError("fetch failed"),
      new TypeError("fetch failed"),
    );
    const client = createClient({ key: KEY }, { baseUrl: "http://api.test", fetch, retry: { maxDelayMs: 1000 } });
    const failed = client.listOdds().catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(3000);
    const error = await failed;
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).cause).toBeInstanceOf(TypeError);
    expect(fetch).toHaveBeenCalledTimes(3);
  });

  it("stop waiting and throw the signal's reason when the call is aborted", async () => {
    const { fetch } = fakeFetch(problem(503, "unavailable", { "retry-after": "5" }));
    const client = createClient({ key: KEY }, { baseUrl: "http://api.test", fetch });
    const controller = new AbortController();
    const call = client.me({ signal: controller.signal }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledTimes(1));
    controller.abort(new Error("left the page"));
    expect(await call).toMatchObject({ message: "left the page" });
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it("refuse every REST method of a client made with a stream token, before any request", async () => {
    const { fetch } = fakeFetch();
    const client = createClient({ token: "svc_st_abc" }, { baseUrl: "http://api.test", fetch });
    for (const call of [
      () => client.me(),
      () => client.listEvents(),
      () => client.getEvent("e"),
      () => client.getLineups("e"),
      () => client.listOdds(),
      () => client.getEventOdds("e"),
      () => client.marketHistory("e", "e:total"),
      () => client.streamToken(),
      () => client.iterateEvents().next(),
    ]) {
      await expect(call()).rejects.toBeInstanceOf(KeyRequiredError);
    }
    expect(fetch).not.toHaveBeenCalled();
  });
});
