import type { components, operations } from "./openapi.ts";

// The client's names for what the generated OpenAPI types (openapi.ts) describe: each answer, each
// query and each stream message is read from the document, never written twice.

export type Schemas = components["schemas"];

export type Sport = Schemas["Sport"];
export type MarketType = Schemas["MarketType"];
export type Event = Schemas["Event"];
export type EventWithMarkets = Schemas["EventWithMarkets"];
export type Market = Schemas["Market"];
export type Lineup = Schemas["Lineup"];
export type KeyDescription = Schemas["KeyDescription"];
export type Meta = Schemas["Meta"];
export type ListMeta = Schemas["ListMeta"];
export type Problem = Schemas["Problem"];
/** Every `code` a problem can carry: a stable identifier to switch on. */
export type ProblemCode = Problem["code"];

type Operation = operations[keyof operations];
type Success<O extends Operation> = O["responses"] extends { 200: { content: infer C } } ? C : never;

/** The `{data, meta}` envelope an operation answers with. */
export type Answer<O extends keyof operations> =
  Success<operations[O]> extends { "application/json": infer A } ? A : never;

/** The query parameters an operation takes. */
export type Query<O extends keyof operations> = NonNullable<operations[O]["parameters"]["query"]>;

/** One message of a stream, as the API reference describes it: its `event` name, `id` and parsed `data`. */
type StreamMessageOf<O extends keyof operations> =
  Success<operations[O]> extends { "text/event-stream": infer M } ? M : never;

// Every message may be read for an `id` (none on `end` and `stale`); a resync's reason and
// conflation are lifted from `data` so that one `switch` on the message finds them.
type WithSignals<M> = M extends { event: "snapshot"; data: { reason?: infer R } }
  ? M & {
      /** Set when this snapshot replaces what the client had (a gap): why. Replace your state with it. */
      resync?: Exclude<R, undefined>;
    }
  : M extends { event: "event" | "markets" }
    ? M & {
        /** The client fell behind: this is the latest state, not every change in between. */
        conflated?: true;
      }
    : M & { id?: string };

/** A message of `follow(eventId)`: snapshot, event, markets, lineups, end, stale (error ends the iterator). */
export type EventStreamMessage = WithSignals<Exclude<StreamMessageOf<"streamEvent">, { event: "error" }>>;
/** A message of `followBoard()`: snapshot, event, markets, stale (error ends the iterator). */
export type BoardStreamMessage = WithSignals<Exclude<StreamMessageOf<"streamOdds">, { event: "error" }>>;
/** Why a snapshot replaced what the client had. */
export type ResyncReason = NonNullable<Schemas["EventSnapshotMessage"]["reason"]>;

export type EventsQuery = Query<"listEvents">;
export type OddsQuery = Query<"listOdds">;
export type EventOddsQuery = Query<"getEventOdds">;
export type ChangesQuery = Query<"listChanges">;
/** A moment of the history: `as_of`, an ISO 8601 UTC time or a revision (`meta.revision`, a message's id). */
export type AsOfQuery = Query<"getEvent">;
export type MarketHistoryQuery = Query<"getMarketHistory">;
export type MarketHistory = Schemas["MarketHistory"];
export type PricePoint = Schemas["PricePoint"];
export type BoardQuery = Pick<Query<"streamOdds">, "sport" | "type">;

/** A browser stream token's scope and lifetime, and the answer with the token. */
export type StreamTokenQuery = Query<"mintStreamToken">;
export type StreamTokenAnswer = Answer<"mintStreamToken">;
