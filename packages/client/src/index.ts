// @sports-event-data/client: the typed client of the Sports Event Data API.

export { createClient } from "./client.ts";
export type { CallOptions, Client, ClientOptions, Credentials } from "./client.ts";
export { KeyRequiredError, NetworkError, ProblemError, UNEXPECTED_RESPONSE } from "./errors.ts";
export type { FollowOptions } from "./follow.ts";
export type { RateLimit, RateLimitPolicy } from "./rate-limit.ts";
export type { RetryOptions } from "./retry.ts";
export type {
  Answer,
  BoardQuery,
  BoardStreamMessage,
  Event,
  EventStreamMessage,
  EventsQuery,
  EventWithMarkets,
  KeyDescription,
  Lineup,
  ListMeta,
  Market,
  MarketType,
  Meta,
  OddsQuery,
  Problem,
  ProblemCode,
  ResyncReason,
  Sport,
  StreamTokenAnswer,
  StreamTokenQuery,
  ChangesQuery,
  AsOfQuery,
  MarketHistory,
  MarketHistoryQuery,
  PricePoint,
} from "./types.ts";
export type { components, operations, paths } from "./openapi.ts";
