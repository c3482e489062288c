import { KeyRequiredError, NetworkError, problemOf } from "./errors.ts";
import { followStream, type FollowOptions, type StreamRequest } from "./follow.ts";
import { parseRateLimit, type RateLimit } from "./rate-limit.ts";
import { retryDecision, retryPolicy, sleep, type Outcome, type RetryOptions } from "./retry.ts";
import type {
  Answer,
  AsOfQuery,
  BoardQuery,
  BoardStreamMessage,
  Event,
  EventStreamMessage,
  EventOddsQuery,
  EventsQuery,
  MarketHistoryQuery,
  OddsQuery,
  StreamTokenAnswer,
  StreamTokenQuery,
  ChangesQuery,
} from "./types.ts";

// The client: one method per operation of the API, lists as async iterators, and the two streams
// followed across reconnections. A key is sent in `Authorization`; a stream token (for browsers)
// only as `?token=` on the streams, which are all it opens.

/** An API key (`svc_sk_…`, `svc_sb_…`), or a stream token (`svc_st_…`) minted by your server for a browser. */
export type Credentials = { key: string; token?: never } | { token: string; key?: never };

export type ClientOptions = {
  /** Where the service is, such as `https://data.example.com` (its `/api/v1` is added). */
  baseUrl: string;
  /** The fetch to use (default: the platform's). */
  fetch?: typeof fetch;
  /** Retries of REST calls and the longest wait (defaults: 2 retries, 30 s). */
  retry?: RetryOptions;
};

export type CallOptions = { signal?: AbortSignal };

type QueryValue = string | number | boolean | undefined;

export type Client = {
  /** GET /api/v1/me: the calling key, its sports, plan and limits. */
  me(options?: CallOptions): Promise<Answer<"describeKey">>;
  /** GET /api/v1/events: one page of live and upcoming events; `meta.next_cursor` leads to the next. */
  listEvents(query?: EventsQuery, options?: CallOptions): Promise<Answer<"listEvents">>;
  /** Every event of every page, following `meta.next_cursor` until it is null. */
  iterateEvents(query?: Omit<EventsQuery, "cursor">, options?: CallOptions): AsyncGenerator<Event, void>;
  /** GET /api/v1/events/{id}: one event, in any state; with `as_of`, as it was then. */
  getEvent(id: string, query?: AsOfQuery, options?: CallOptions): Promise<Answer<"getEvent">>;
  /** GET /api/v1/events/{id}/lineups; with `as_of`, as they were then. */
  getLineups(id: string, query?: AsOfQuery, options?: CallOptions): Promise<Answer<"getLineups">>;
  /** GET /api/v1/odds: every event in play with its markets; with `as_of`, as they were then. */
  listOdds(query?: OddsQuery, options?: CallOptions): Promise<Answer<"listOdds">>;
  /** GET /api/v1/events/{id}/odds: one event in any state with its markets; with `as_of`, as they were then. */
  getEventOdds(id: string, query?: EventOddsQuery, options?: CallOptions): Promise<Answer<"getEventOdds">>;
  /**
   * GET /api/v1/events/{id}/markets/{market_id}/history: the market as it was at `from` (or the
   * oldest state kept), then every change of it through `to`, oldest first.
   */
  marketHistory(
    eventId: string,
    marketId: string,
    query?: MarketHistoryQuery,
    options?: CallOptions,
  ): Promise<Answer<"getMarketHistory">>;
  /** GET /api/v1/stream-token: a short-lived token that lets a browser follow a stream. */
  streamToken(query?: StreamTokenQuery, options?: CallOptions): Promise<StreamTokenAnswer>;
  /**
   * GET /api/v1/changes: the board stream's messages after `since` (any answer's `meta.revision`),
   * one page; `meta.next_since` is where the next goes on.
   */
  listChanges(query: ChangesQuery, options?: CallOptions): Promise<Answer<"listChanges">>;
  /** Follows one event's stream until its `end`, resuming by itself after any other close. */
  follow(eventId: string, options?: FollowOptions): AsyncGenerator<EventStreamMessage, void>;
  /** Follows the board stream (every event in play), resuming by itself after any close. */
  followBoard(query?: BoardQuery, options?: FollowOptions): AsyncGenerator<BoardStreamMessage, void>;
  /** The rate-limit policies the last answer reported (`RateLimit`, `RateLimit-Policy`), or null before any. */
  readonly lastRateLimit: RateLimit | null;
};

function search(query: Record<string, QueryValue>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  const text = params.toString();
  return text ? `?${text}` : "";
}

export function createClient(credentials: Credentials, options: ClientOptions): Client {
  const base = `${options.baseUrl.replace(/\/+$/, "")}/api/v1`;
  // Called through a closure: a browser's fetch refuses to be called as a method of another object.
  const fetchImpl: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const policy = retryPolicy(options.retry);
  let lastRateLimit: RateLimit | null = null;

  const answered = (response: Response) => {
    lastRateLimit = parseRateLimit(response.headers) ?? lastRateLimit;
  };

  async function get<T>(method: string, path: string, query: Record<string, QueryValue>, call: CallOptions = {}) {
    if (credentials.key === undefined) throw new KeyRequiredError(method);
    const url = `${base}${path}${search(query)}`;
    for (let attempt = 0; ; attempt++) {
      let outcome: Outcome;
      let failure: Error;
      try {
        const response = await fetchImpl(url, {
          headers: { accept: "application/json", authorization: `Bearer ${credentials.key}` },
          signal: call.signal,
        });
        answered(response);
        if (response.ok) return (await response.json()) as T;
        const problem = await problemOf(response);
        failure = problem;
        outcome = { status: problem.status, retryAfter: problem.retryAfter };
      } catch (error) {
        // fetch rejects with a TypeError when no answer came, or the body broke off
        if (call.signal?.aborted || !(error instanceof TypeError)) throw error;
        failure = new NetworkError(`GET ${path} got no whole answer: ${error.message}`, { cause: error });
        outcome = { network: true };
      }
      const decision = retryDecision(outcome, attempt, policy);
      if (!decision.retry) throw failure;
      await sleep(decision.delayMs, call.signal);
    }
  }

  const streamRequest =
    (path: string, query: Record<string, QueryValue>): StreamRequest =>
    (lastEventId) =>
      credentials.key !== undefined
        ? {
            url: `${base}${path}${search(query)}`,
            headers: {
              authorization: `Bearer ${credentials.key}`,
              ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
            },
          }
        : // A token travels in the URL, and so does the resume id, as a browser's EventSource sends it.
          {
            url: `${base}${path}${search({ ...query, token: credentials.token, last_event_id: lastEventId })}`,
            headers: {},
          };

  const follow = <M>(path: string, query: Record<string, QueryValue>, followOptions?: FollowOptions) =>
    followStream<M>({ fetch: fetchImpl, policy, request: streamRequest(path, query), answered }, followOptions);

  const eventPath = (id: string) => `/events/${encodeURIComponent(id)}`;

  const client: Client = {
    me: (call) => get("me", "/me", {}, call),
    listEvents: (query = {}, call) => get("listEvents", "/events", query, call),
    async *iterateEvents(query = {}, call) {
      let cursor: string | undefined;
      do {
        const page = await client.listEvents({ ...query, cursor }, call);
        yield* page.data;
        cursor = page.meta.next_cursor ?? undefined;
      } while (cursor !== undefined);
    },
    getEvent: (id, query = {}, call) => get("getEvent", eventPath(id), query, call),
    getLineups: (id, query = {}, call) => get("getLineups", `${eventPath(id)}/lineups`, query, call),
    listOdds: (query = {}, call) => get("listOdds", "/odds", query, call),
    getEventOdds: (id, query = {}, call) => get("getEventOdds", `${eventPath(id)}/odds`, query, call),
    marketHistory: (eventId, marketId, query = {}, call) =>
      get("marketHistory", `${eventPath(eventId)}/markets/${encodeURIComponent(marketId)}/history`, query, call),
    streamToken: (query = {}, call) => get("streamToken", "/stream-token", query, call),
    listChanges: (query, call) => get("listChanges", "/changes", query, call),
    follow: (eventId, followOptions) => follow(`${eventPath(eventId)}/stream`, {}, followOptions),
    followBoard: (query = {}, followOptions) => follow("/odds/stream", query, followOptions),
    get lastRateLimit() {
      return lastRateLimit;
    },
  };
  return client;
}
