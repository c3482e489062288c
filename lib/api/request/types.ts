import type { z } from "zod";
import type { FeedMirror } from "../../feed/mirror.ts";
import type { FeedViews } from "../../feed/views.ts";
import type { KeyDirectory } from "../../keys/cache.ts";
import type { StreamTokens } from "../../keys/stream-token.ts";
import type { ApiKeyRecord } from "../../keys/lookup.ts";
import type { Meter } from "../../metering/index.ts";
import type { StreamHub, StreamRequest } from "../../streams/hub.ts";
import type { FeedSource } from "../../streams/feed-source.ts";
import type { StreamSink } from "../../streams/sink.ts";
import type { KeyHashes } from "../credentials/key-hashes.ts";
import type { ApiErrorCode } from "./errors.ts";
import type { KeyGuesses } from "../credentials/guesses.ts";
import type { Payload } from "./payload.ts";

/** A console member reading with the session cookie, under the organisation's entitlement. */
export type Member = { key: ApiKeyRecord; userId: string };
export type SessionReader = (token: string, at: Date) => Promise<Member | null>;

/** A request's query, read only: the requests that have none share one empty instance. */
export type QueryParams = Omit<URLSearchParams, "append" | "delete" | "set" | "sort">;

/** A request as the API sees it, whichever server received it (node:http or Next). */
export type ApiRequest = {
  method: string;
  path: string;
  query: QueryParams;
  /** A header by its lower-case name; undefined when absent. */
  header(name: string): string | undefined;
  /** The connection's peer, when X-Forwarded-For does not end with it yet (node:http). */
  peer?: string;
};

/**
 * An answer: `body` is written chunk by chunk (null for HEAD and 304); a stream's answer has no
 * body but `stream`, which the server calls with the connection once the headers are sent.
 */
export type ApiResponse = {
  status: number;
  headers: Record<string, string>;
  body: Buffer[] | null;
  stream?: (sink: StreamSink) => void;
};

/** What every handler gets: the key, the view of the feed it may see, and its parsed input. */
export type RequestContext = {
  key: ApiKeyRecord;
  /** The key as sent (GET /me echoes it: it is the caller's own). */
  keyValue: string;
  at: Date;
  /** The key's count this month as the request was counted, the request included. */
  requestsUsed: number;
  /** The organisation's count, for a key that shares its organisation's limits; else null. */
  organisationUsed: number | null;
  sandbox: boolean;
  delaySeconds: number;
  view: FeedMirror;
  /** Signs browser stream tokens for the key (GET /api/v1/stream-token). */
  tokens: StreamTokens;
  /** The client address the key's IP allowlist is matched against; null for a member. */
  clientAddress: string | null;
  /** The revision history, for what happened before the view's revision (GET /api/v1/changes). */
  history: FeedSource;
  /** How far back the history reaches. */
  historySeconds: number;
  /** For a stream endpoint: what opening the stream needs beyond the key. */
  stream: StreamOpening | null;
};

/** The parts of a stream's request the pipeline settled: who, which slot, which id to resume after. */
export type StreamOpening = Omit<StreamRequest, "sink" | "view"> & {
  hub: StreamHub;
  /** The one event a stream token opened with is limited to; null for any. */
  onlyEvent: string | null;
};

export type Reply = {
  payload: Payload;
  /** Meta beyond the spec's four (a list's next_cursor). */
  meta?: Record<string, unknown>;
  cacheControl?: string;
};

/**
 * A stream endpoint's reply: opens the stream on the client's connection; null when there is
 * nothing to follow (an event that is over), answered 204, which every EventSource stops on.
 */
export type StreamReply = { stream: ((sink: StreamSink) => void) | null };

export type Endpoint<P extends z.ZodObject = z.ZodObject, Q extends z.ZodObject = z.ZodObject> = {
  operationId: string;
  /** The spec's path, with `{name}` for path parameters. */
  path: string;
  summary: string;
  description: string;
  tag: string;
  params?: P;
  query: Q;
  /** The envelope of a 200 answer, for the OpenAPI document. */
  response: z.ZodType;
  /** Errors beyond those every endpoint can answer, for the OpenAPI document. */
  errors: ApiErrorCode[];
  /** A Server-Sent Events stream: the data schema of each message it sends, by event name. */
  /** A stream: its messages, and the path its curl example follows (the reference's code sample). */
  stream?: { messages: Record<string, z.ZodType>; example?: string };
  /**
   * A console member's browser may read it with the session cookie instead of a key (the live
   * board's first state); streams always may. Counted against the member (lib/api/credentials/members.ts).
   */
  console?: true;
  /** A promise only when the answer reads the history: every other answer comes from memory. */
  handle(
    context: RequestContext,
    input: { params: z.infer<P>; query: z.infer<Q> },
  ): Reply | StreamReply | Promise<Reply>;
};

/** Types a handler by its schemas; the pipeline parses the input with the same schemas. */
export function defineEndpoint<P extends z.ZodObject, Q extends z.ZodObject>(endpoint: Endpoint<P, Q>): Endpoint {
  return endpoint as unknown as Endpoint;
}

/** What a stream's handler gets: the context with its stream's opening, which the pipeline made. */
export type StreamContext = RequestContext & { stream: StreamOpening };

/**
 * Types a stream endpoint's handler. The pipeline takes a stream slot for every endpoint that has
 * `stream`, so the opening is always there; the one check stands for that promise.
 */
export function defineStreamEndpoint<P extends z.ZodObject, Q extends z.ZodObject>(
  endpoint: Omit<Endpoint<P, Q>, "handle" | "stream"> & {
    stream: NonNullable<Endpoint["stream"]>;
    handle(context: StreamContext, input: { params: z.infer<P>; query: z.infer<Q> }): StreamReply;
  },
): Endpoint {
  return defineEndpoint<P, Q>({
    ...endpoint,
    handle(context, input) {
      if (!context.stream) throw new Error(`${endpoint.operationId} was served without its stream's opening.`);
      return endpoint.handle({ ...context, stream: context.stream }, input);
    },
  });
}

export type ApiServices = {
  keys: KeyDirectory;
  /** The hashes of keys already seen: one per instance, as the key cache. */
  keyHashes: KeyHashes;
  /** Signs and checks browser stream tokens: every instance derives the same key from the secret. */
  streamTokens: StreamTokens;
  /** The views and the revision history, as the streams read them. */
  history: FeedSource;
  historySeconds: number;
  meter: Meter;
  views: FeedViews;
  now: () => Date;
  /** This instance's streams, and how a console member's session is read (the board's endpoints). */
  streams: StreamHub;
  session: SessionReader;
  /** Unknown keys per client address, and how many load balancers append to X-Forwarded-For. */
  guesses: KeyGuesses;
  trustedHops: number;
};

/** Who a request was for, once known, for its access log line (never the key itself). */
export type RequestTrace = {
  requestId: string;
  key?: { id: string; hint: string; orgId: string };
  userId?: string;
  /** A known key that was refused (revoked, expired, licence, address): the request log files it under it. */
  refusedKey?: KnownKey;
  /** The problem's code, when the answer is one. */
  code?: ApiErrorCode;
};

/** A key the service knows, by its id and its organisation's. */
export type KnownKey = { id: string; orgId: string };
