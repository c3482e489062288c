// Generated from the service's OpenAPI document by packages/client/scripts/generate.ts: do not edit.
// `npm run generate -w @sports-event-data/client` writes it again.

export interface paths {
  "/api/v1/me": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Describe the calling key
     * @description The key that made the request, its environment, sports, plan and limits, and its usage this month with when the quota runs out at the month's pace. Answered with `Cache-Control: no-store`, since it echoes the key.
     *
     *     HEAD is answered too, with the same headers and no body.
     */
    get: operations["describeKey"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/events": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List events
     * @description Live and upcoming events of the sports the key covers, ordered by kickoff, then id, in pages of `limit`. Follow `meta.next_cursor` until it is null; paging is by position, so an event is never served twice in one pass. Events in other states (finished, postponed, cancelled, suspended) are reachable by id. With `as_of` (a time or a revision), the answer is the state at that moment, read from the revision history, with `meta.revision` the revision it shows; the objects are the same as now. Send the same `as_of` with every page.
     *
     *     ```sh
     *     curl -H "Authorization: Bearer $KEY" "http://localhost:3000/api/v1/events?status=live&as_of=$REVISION"
     *     ```
     *
     *     HEAD is answered too, with the same headers and no body.
     */
    get: operations["listEvents"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/events/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One event
     * @description The event in any state, the same object as a list item. With `as_of` (a time or a revision), the answer is the state at that moment, read from the revision history, with `meta.revision` the revision it shows; the objects are the same as now.
     *
     *     A signed-in console member's browser may read it with the console's session cookie instead of a key (the live board does), with the organisation's entitlement: its plan's sports in real time while it may hold production keys, otherwise the sandbox's view of one sport (its sandbox key's, else the first sport). Each member has limits of their own, across instances: 10 requests per second and 20000 a month (UTC), reported in `RateLimit` and `meta` as a key's are; the organisation's keys are not charged. A key sent with the request always wins over the cookie.
     *
     *     HEAD is answered too, with the same headers and no body.
     */
    get: operations["getEvent"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/events/{id}/lineups": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Lineups of one event
     * @description The players of both sides with their numbers and position codes; for tennis, the two players as the two sides. Both lists are empty until the lineups are published (about an hour before kickoff). With `as_of` (a time or a revision), the answer is the state at that moment, read from the revision history, with `meta.revision` the revision it shows; the objects are the same as now.
     *
     *     A signed-in console member's browser may read it with the console's session cookie instead of a key (the live board does), with the organisation's entitlement: its plan's sports in real time while it may hold production keys, otherwise the sandbox's view of one sport (its sandbox key's, else the first sport). Each member has limits of their own, across instances: 10 requests per second and 20000 a month (UTC), reported in `RateLimit` and `meta` as a key's are; the organisation's keys are not charged. A key sent with the request always wins over the cookie.
     *
     *     HEAD is answered too, with the same headers and no body.
     */
    get: operations["getLineups"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/odds": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * All events in play with their markets
     * @description Every live event, and every suspended one (its markets suspended), with its markets, in one response (not paged), in kickoff order. `type` keeps only markets of that type; an event whose sport does not offer it is listed with no markets. With `as_of` (a time or a revision), the answer is the state at that moment, read from the revision history, with `meta.revision` the revision it shows; the objects are the same as now.
     *
     *     ```sh
     *     curl -H "Authorization: Bearer $KEY" "http://localhost:3000/api/v1/odds?sport=soccer&as_of=$REVISION"
     *     ```
     *
     *     A signed-in console member's browser may read it with the console's session cookie instead of a key (the live board does), with the organisation's entitlement: its plan's sports in real time while it may hold production keys, otherwise the sandbox's view of one sport (its sandbox key's, else the first sport). Each member has limits of their own, across instances: 10 requests per second and 20000 a month (UTC), reported in `RateLimit` and `meta` as a key's are; the organisation's keys are not charged. A key sent with the request always wins over the cookie.
     *
     *     HEAD is answered too, with the same headers and no body.
     */
    get: operations["listOdds"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/events/{id}/odds": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One event with its markets
     * @description One event in any state with its markets, the same object as an item of `GET /api/v1/odds`: an upcoming event's pre-match markets (open from the announcement), a live or suspended one's in-play markets, a finished one's settled markets. `type` keeps only markets of that type; a sport that does not offer it shows none. With `as_of` (a time or a revision), the answer is the state at that moment, read from the revision history, with `meta.revision` the revision it shows; the objects are the same as now.
     *
     *     ```sh
     *     curl -H "Authorization: Bearer $KEY" "http://localhost:3000/api/v1/events/$EVENT/odds?type=match_winner"
     *     ```
     *
     *     HEAD is answered too, with the same headers and no body.
     */
    get: operations["getEventOdds"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/events/{id}/stream": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Follow one event
     * @description The event, its markets and lineups as they change, until it is over: then `end`, sent with `retry:` of an hour, and the stream closes; an EventSource that reconnects anyway is answered 204, on which it stops. An event already over is answered 204 at once, unless the client resumes from before its end: then it is sent what it missed, and `end`. `$EVENT` below is an event's `id`, from `GET /api/v1/events?status=live` for one in play.
     *
     *     Server-Sent Events (`text/event-stream`): `snapshot` first, then changes. Each message's `id` is the feed revision, strictly increasing; reconnect with `Last-Event-ID` (or `lastEventId`, or `last_event_id`) to get every change missed, in order, none repeated, over the whole history kept (`history_seconds` in `GET /api/v1/me`, 7 days by default). When that is impossible the stream starts with a `snapshot` marked `resync: true` and a `reason`: a gap is never silent. A `: ping` comment comes at least every 15 s; `stale` says when the instance cannot hear the feed, and again when it can. A stream the service ends sends a last `error` with the problem (for example `key_revoked`, within a second of the revocation), or, when the instance stops, a short `retry:`. Opening a stream counts as one request; the plan sets how many can be open at once (429 `rate_limited` with `violated-policies: ["streams"]`). Sandbox keys get each message 60 s after the change, never earlier. A console member's browser may use the session cookie instead of a key.
     *
     *     ```sh
     *     curl -N -H "Authorization: Bearer $KEY" "http://localhost:3000/api/v1/events/$EVENT/stream"
     *     ```
     *
     *     A stream that closes without `end` (a deploy, a restart, a client that fell behind) is to be reopened with the last id received, in `Last-Event-ID` (or the `lastEventId` or `last_event_id` query parameter): it goes on after that message, missing nothing.
     *
     *     HEAD answers the headers of the stream without opening it.
     */
    get: operations["streamEvent"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/odds/stream": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Follow every event in play (the odds board)
     * @description Every event in play with its markets, as `GET /api/v1/odds` (same `sport` and `type`), then each change: an event coming into play (with all its markets), its changes, the change that ends its play, and changed markets. A client that falls behind is not sent the backlog: once it reads again it gets the latest state of each event and each event's markets that changed, marked `conflated: true`.
     *
     *     Server-Sent Events (`text/event-stream`): `snapshot` first, then changes. Each message's `id` is the feed revision, strictly increasing; reconnect with `Last-Event-ID` (or `lastEventId`, or `last_event_id`) to get every change missed, in order, none repeated, over the whole history kept (`history_seconds` in `GET /api/v1/me`, 7 days by default). When that is impossible the stream starts with a `snapshot` marked `resync: true` and a `reason`: a gap is never silent. A `: ping` comment comes at least every 15 s; `stale` says when the instance cannot hear the feed, and again when it can. A stream the service ends sends a last `error` with the problem (for example `key_revoked`, within a second of the revocation), or, when the instance stops, a short `retry:`. Opening a stream counts as one request; the plan sets how many can be open at once (429 `rate_limited` with `violated-policies: ["streams"]`). Sandbox keys get each message 60 s after the change, never earlier. A console member's browser may use the session cookie instead of a key.
     *
     *     ```sh
     *     curl -N -H "Authorization: Bearer $KEY" "http://localhost:3000/api/v1/odds/stream?sport=soccer"
     *     ```
     *
     *     A stream that closes without `end` (a deploy, a restart, a client that fell behind) is to be reopened with the last id received, in `Last-Event-ID` (or the `lastEventId` or `last_event_id` query parameter): it goes on after that message, missing nothing.
     *
     *     HEAD answers the headers of the stream without opening it.
     */
    get: operations["streamOdds"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stream-token": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Mint a browser stream token
     * @description A browser's EventSource cannot send headers, and a key never goes in a URL; so your server mints a token for the page, which opens `/api/v1/odds/stream?token=…` or `/api/v1/events/{id}/stream?token=…`. Nothing is stored: the token is signed, opens streams only (anywhere else: 401 `invalid_api_key`), from any origin, until `expires_at` (then 401 `token_expired`; a stream already open goes on), and only what the key sees, narrowed to `sport` or to one event (outside it: 403 `sport_not_covered`). A stream opened with it counts against the key (one request), holds one of the key's concurrent streams, sees the key's view (a sandbox key's delay included) and ends when the key is revoked. Answered with `Cache-Control: no-store`.
     *
     *     ```sh
     *     curl -H "Authorization: Bearer $KEY" "http://localhost:3000/api/v1/stream-token?sport=soccer&ttl=600"
     *     ```
     *
     *     HEAD is answered too, with the same headers and no body.
     */
    get: operations["mintStreamToken"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/changes": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * What changed since a revision
     * @description The messages a board stream (`GET /api/v1/odds/stream` with the same `sport`, every market type) sent after `since`, in order, each as the stream sent it: `event` (an event in play changed, came into play with all its markets, or left play) and `markets` (the markets that changed, each whole). For polling instead of a stream: read `GET /api/v1/odds`, then ask for `since=<its meta.revision>`, then `since=<meta.next_since>` of each answer; nothing is missed or repeated. One answer examines at most 10,000 revisions (of every sport, those filtered out included), so a page may hold fewer than `limit` changes, or none, while more follow: `meta.more` says so; ask again from `next_since` at once. An empty page with `more: false` means nothing changed yet. A revision older than the history kept (`history_seconds` in `GET /api/v1/me`) is 410 `retention_exceeded`. A sandbox key reads the delayed view: nothing younger than its delay.
     *
     *     ```sh
     *     curl -H "Authorization: Bearer $KEY" "http://localhost:3000/api/v1/changes?since=$REVISION&limit=10"
     *     ```
     *
     *     HEAD is answered too, with the same headers and no body.
     */
    get: operations["listChanges"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/events/{id}/markets/{market_id}/history": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One market's history
     * @description Every change of one market of an event, oldest first, read from the revision history: the market as it was at `from` (or, without it, the oldest state kept) as the first point, so a chart starts with a value, then one point per change through `to`, each with its price per outcome, the market's status and line, and the revision (the `id` of the stream message that carried it). `to` is at most now; for a sandbox key, its delay ago, so it never sees a later change. `from` older than the history kept (`history_seconds` in `GET /api/v1/me`): 410 `retention_exceeded`.
     *
     *     ```sh
     *     curl -H "Authorization: Bearer $KEY" "http://localhost:3000/api/v1/events/$EVENT/markets/$MARKET/history"
     *     ```
     *
     *     A signed-in console member's browser may read it with the console's session cookie instead of a key (the live board does), with the organisation's entitlement: its plan's sports in real time while it may hold production keys, otherwise the sandbox's view of one sport (its sandbox key's, else the first sport). Each member has limits of their own, across instances: 10 requests per second and 20000 a month (UTC), reported in `RateLimit` and `meta` as a key's are; the organisation's keys are not charged. A key sent with the request always wins over the cookie.
     *
     *     HEAD is answered too, with the same headers and no body.
     */
    get: operations["getMarketHistory"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    /**
     * @description A sport the service covers
     * @enum {string}
     */
    Sport: "soccer" | "basketball" | "tennis" | "american-football" | "ice-hockey" | "baseball" | "cs2";
    /**
     * @description A kind of market; each sport offers the ones that make sense for it
     * @enum {string}
     */
    MarketType:
      | "match_winner"
      | "handicap"
      | "total"
      | "both_teams_to_score"
      | "next_goal"
      | "set_winner"
      | "map_winner"
      | "next_round";
    Score: {
      home: number;
      away: number;
    };
    Stat: {
      label: string;
      home: number;
      away: number;
    };
    Outcome: {
      id: string;
      name: string;
      price: number;
      /**
       * @description won, lost or void once its market is settled; void returns the stake (the event was abandoned or cancelled, or a two-way market ended in a tie)
       * @enum {string}
       */
      status: "active" | "suspended" | "won" | "lost" | "void";
    };
    /**
     * @description A market of an event. Markets open before kickoff too (pre-match: the result, the handicap, the main total, both teams to score), and at kickoff the same market, with the same id, carries on in play from its last pre-match price; markets such as the next goal open in play. A market has no phase of its own: the event's `status` says whether it is pre-match (`upcoming`, suspended while `postponed`) or in play. GET /odds and the board stream list events in play only; an event's pre-match markets are on its own stream and in its market history.
     * @example {
     *       "id": "soc-bdrn-983512:match_winner",
     *       "type": "match_winner",
     *       "name": "Match result",
     *       "line": null,
     *       "status": "open",
     *       "outcomes": [
     *         {
     *           "id": "soc-bdrn-983512:match_winner:home",
     *           "name": "Harbour Town",
     *           "price": 1.62,
     *           "status": "active"
     *         },
     *         {
     *           "id": "soc-bdrn-983512:match_winner:draw",
     *           "name": "Draw",
     *           "price": 3.9,
     *           "status": "active"
     *         },
     *         {
     *           "id": "soc-bdrn-983512:match_winner:away",
     *           "name": "River City",
     *           "price": 5.5,
     *           "status": "active"
     *         }
     *       ],
     *       "updated_at": "2026-11-21T15:41:07.214Z"
     *     }
     */
    Market: {
      id: string;
      /** @enum {string} */
      type:
        | "match_winner"
        | "handicap"
        | "total"
        | "both_teams_to_score"
        | "next_goal"
        | "set_winner"
        | "map_winner"
        | "next_round";
      name: string;
      line: number | null;
      /**
       * @description settled once every outcome is won, lost or void
       * @enum {string}
       */
      status: "open" | "suspended" | "settled";
      outcomes: components["schemas"]["Outcome"][];
      /**
       * Format: date-time
       * @description ISO 8601 timestamp, UTC
       */
      updated_at: string;
    };
    Player: {
      number: number;
      name: string;
      /** @description Short position code */
      position: string;
    };
    /**
     * @example {
     *       "id": "soc-bdrn-983512",
     *       "sport": "soccer",
     *       "competition": "Premier Division",
     *       "home": "Harbour Town",
     *       "away": "River City",
     *       "status": "live",
     *       "feed": "official",
     *       "kickoff": "2026-11-21T14:30:00.000Z",
     *       "score": {
     *         "home": 1,
     *         "away": 0
     *       },
     *       "clock": "67:12",
     *       "period": "2nd half",
     *       "stats": [
     *         {
     *           "label": "Possession %",
     *           "home": 54,
     *           "away": 46
     *         },
     *         {
     *           "label": "Shots",
     *           "home": 11,
     *           "away": 6
     *         }
     *       ],
     *       "updated_at": "2026-11-21T15:41:07.214Z",
     *       "sandbox": false
     *     }
     */
    Event: {
      /** @description Event identifier */
      id: string;
      /** @enum {string} */
      sport: "soccer" | "basketball" | "tennis" | "american-football" | "ice-hockey" | "baseball" | "cs2";
      competition: string;
      /** @description Home side (for tennis, the first player) */
      home: string;
      /** @description Away side (for tennis, the second player) */
      away: string;
      /** @enum {string} */
      status: "upcoming" | "live" | "finished" | "postponed" | "cancelled" | "suspended";
      /** @enum {string} */
      feed: "official" | "scout" | "broadcast" | "simulation";
      /**
       * Format: date-time
       * @description ISO 8601 timestamp, UTC
       */
      kickoff: string;
      score: components["schemas"]["Score"];
      /** @description Game clock in the sport's own form; empty when the sport has none */
      clock: string;
      /** @description Period label in the sport's own terms */
      period: string;
      stats: components["schemas"]["Stat"][];
      /**
       * Format: date-time
       * @description ISO 8601 timestamp, UTC
       */
      updated_at: string;
      /** @description true when served to a sandbox key (the state of 60 seconds ago) */
      sandbox: boolean;
    };
    /**
     * @example {
     *       "id": "soc-bdrn-983512",
     *       "sport": "soccer",
     *       "competition": "Premier Division",
     *       "home": "Harbour Town",
     *       "away": "River City",
     *       "status": "live",
     *       "feed": "official",
     *       "kickoff": "2026-11-21T14:30:00.000Z",
     *       "score": {
     *         "home": 1,
     *         "away": 0
     *       },
     *       "clock": "67:12",
     *       "period": "2nd half",
     *       "stats": [
     *         {
     *           "label": "Possession %",
     *           "home": 54,
     *           "away": 46
     *         },
     *         {
     *           "label": "Shots",
     *           "home": 11,
     *           "away": 6
     *         }
     *       ],
     *       "updated_at": "2026-11-21T15:41:07.214Z",
     *       "sandbox": false,
     *       "markets": [
     *         {
     *           "id": "soc-bdrn-983512:match_winner",
     *           "type": "match_winner",
     *           "name": "Match result",
     *           "line": null,
     *           "status": "open",
     *           "outcomes": [
     *             {
     *               "id": "soc-bdrn-983512:match_winner:home",
     *               "name": "Harbour Town",
     *               "price": 1.62,
     *               "status": "active"
     *             },
     *             {
     *               "id": "soc-bdrn-983512:match_winner:draw",
     *               "name": "Draw",
     *               "price": 3.9,
     *               "status": "active"
     *             },
     *             {
     *               "id": "soc-bdrn-983512:match_winner:away",
     *               "name": "River City",
     *               "price": 5.5,
     *               "status": "active"
     *             }
     *           ],
     *           "updated_at": "2026-11-21T15:41:07.214Z"
     *         }
     *       ]
     *     }
     */
    EventWithMarkets: {
      /** @description Event identifier */
      id: string;
      /** @enum {string} */
      sport: "soccer" | "basketball" | "tennis" | "american-football" | "ice-hockey" | "baseball" | "cs2";
      competition: string;
      /** @description Home side (for tennis, the first player) */
      home: string;
      /** @description Away side (for tennis, the second player) */
      away: string;
      /** @enum {string} */
      status: "upcoming" | "live" | "finished" | "postponed" | "cancelled" | "suspended";
      /** @enum {string} */
      feed: "official" | "scout" | "broadcast" | "simulation";
      /**
       * Format: date-time
       * @description ISO 8601 timestamp, UTC
       */
      kickoff: string;
      score: components["schemas"]["Score"];
      /** @description Game clock in the sport's own form; empty when the sport has none */
      clock: string;
      /** @description Period label in the sport's own terms */
      period: string;
      stats: components["schemas"]["Stat"][];
      /**
       * Format: date-time
       * @description ISO 8601 timestamp, UTC
       */
      updated_at: string;
      /** @description The event's markets, filtered by `type` when given */
      markets: components["schemas"]["Market"][];
      /** @description true when served to a sandbox key (the state of 60 seconds ago) */
      sandbox: boolean;
    };
    /**
     * @description For tennis the two players are the two sides
     * @example {
     *       "event_id": "soc-bdrn-983512",
     *       "home": [
     *         {
     *           "number": 1,
     *           "name": "Tomas Varga",
     *           "position": "GK"
     *         },
     *         {
     *           "number": 9,
     *           "name": "Leon Achterberg",
     *           "position": "ST"
     *         }
     *       ],
     *       "away": [
     *         {
     *           "number": 10,
     *           "name": "Rui Carvalho",
     *           "position": "CAM"
     *         }
     *       ],
     *       "sandbox": false
     *     }
     */
    Lineup: {
      /** @description Event identifier */
      event_id: string;
      home: components["schemas"]["Player"][];
      away: components["schemas"]["Player"][];
      /** @description true when served to a sandbox key (the state of 60 seconds ago) */
      sandbox: boolean;
    };
    /** @description The organisation's count this month and its plan's limits, which hold for all its production keys and its members' reads together; a request is admitted within both the key's limits and these */
    OrganisationUsage: {
      /** @description Requests counted this month for the organisation: all its production keys and its members' reads */
      requests_used: number;
      /** @description The plan's monthly quota, which the organisation's keys and members share */
      requests_quota: number;
      /** @description The plan's per-second limit, shared likewise */
      requests_per_second: number;
      /** @description The plan's concurrent streams, shared likewise */
      concurrent_streams: number;
    };
    /** @description The key's monthly count, as the request was counted, and its organisation's */
    KeyUsage: {
      /** @description Requests counted this month for this key, this one included */
      requests_used: number;
      /** @description Requests the key may make this month */
      requests_quota: number;
      /**
       * Format: date-time
       * @description When the monthly count starts again (the next month, UTC)
       */
      resets_at: string;
      /** @description When the quota runs out at the month's pace so far; null when that pace does not reach it before `resets_at` */
      projected_exhaustion_at: string | null;
      /** @description The organisation's figures beside the key's, for a production key; null for a sandbox key, whose limits are its own */
      organisation: components["schemas"]["OrganisationUsage"] | null;
    };
    /**
     * @example {
     *       "key": "svc_sb_3YeWOuRAwr1LcfmOtnh7RqkQr53gFRLm",
     *       "environment": "sandbox",
     *       "sports": [
     *         "soccer"
     *       ],
     *       "name": null,
     *       "allowed_ips": null,
     *       "last_used_at": "2026-11-21T10:42:00.000Z",
     *       "expires_at": "2026-12-21T09:00:00.000Z",
     *       "plan": null,
     *       "created_at": "2026-11-21T09:00:00.000Z",
     *       "delay_seconds": 60,
     *       "limits": {
     *         "requests_per_month": 1000,
     *         "requests_per_second": 2,
     *         "concurrent_streams": 2
     *       },
     *       "own_limits": null,
     *       "quota_resets_at": "2026-12-01T00:00:00.000Z",
     *       "history_seconds": 604800,
     *       "usage": {
     *         "requests_used": 412,
     *         "requests_quota": 1000,
     *         "resets_at": "2026-12-01T00:00:00.000Z",
     *         "projected_exhaustion_at": null,
     *         "organisation": null
     *       }
     *     }
     */
    KeyDescription: {
      /** @description The key that made the request, `<prefix><random part>` */
      key: string;
      /** @enum {string} */
      environment: "sandbox" | "production";
      /** @description Sports the key covers: the sandbox key's one, or the plan's, narrowed to the key's sport scope when it has one */
      sports: components["schemas"]["Sport"][];
      /** @description The production key's name, as set in the console; null when it has none */
      name: string | null;
      /** @description The networks (CIDR) a production key may be used from, as set in the console; null: any address. Others are answered 403 `ip_not_allowed` */
      allowed_ips: string[] | null;
      /** @description The minute the key was last used, to the minute, as last recorded: it may be a minute or two behind, and this request may not be in it yet; null when never */
      last_used_at: string | null;
      /** @description When the key stops working: always for a sandbox key; for a production key, the expiry set in the console or the end of a roll's overlap, else null */
      expires_at: string | null;
      /** @description Code of the plan (such as "pro"); null for a sandbox key */
      plan: string | null;
      /**
       * Format: date-time
       * @description ISO 8601 timestamp, UTC
       */
      created_at: string;
      /** @description How far behind real time the key sees the feed */
      delay_seconds: number;
      /** @description The key's limits: its plan's, lowered by its own where it has them; a production key is also held to its organisation's (`usage.organisation`) */
      limits: {
        /** @description Monthly request quota */
        requests_per_month: number;
        /** @description Requests admitted per second */
        requests_per_second: number;
        /** @description Streams open at once */
        concurrent_streams: number;
      };
      /** @description A production key's own lower limits inside its organisation's pool, as set in the console; null for other credentials */
      own_limits: {
        /** @description The key's own monthly quota; null: the plan's */
        requests_per_month: number | null;
        /** @description The key's own per-second limit; null: the plan's */
        requests_per_second: number | null;
      } | null;
      /**
       * Format: date-time
       * @description When the monthly count starts again (the next month, UTC)
       */
      quota_resets_at: string;
      /** @description How far back the revision history reaches: streams resume and `GET /api/v1/changes` pages within it */
      history_seconds: number;
      usage: components["schemas"]["KeyUsage"];
    };
    Meta: {
      /** @description true when the key is a sandbox key */
      sandbox: boolean;
      /** @description Seconds the data lags real time: 60 for sandbox keys, 0 for production */
      delay_seconds: number;
      /** @description Requests counted this month, this one included: the key's, or its organisation's when that is nearer its quota (a production key's plan quota is shared by the organisation's keys and members) */
      requests_used: number;
      /** @description The monthly quota `requests_used` is counted against */
      requests_quota: number;
      /** @description The feed revision the answer shows (a sandbox key's: the delayed view's). A stream opened with `last_event_id` set to it, or `GET /api/v1/changes?since=` it, misses nothing after this answer */
      revision: number;
    };
    ListMeta: {
      /** @description true when the key is a sandbox key */
      sandbox: boolean;
      /** @description Seconds the data lags real time: 60 for sandbox keys, 0 for production */
      delay_seconds: number;
      /** @description Requests counted this month, this one included: the key's, or its organisation's when that is nearer its quota (a production key's plan quota is shared by the organisation's keys and members) */
      requests_used: number;
      /** @description The monthly quota `requests_used` is counted against */
      requests_quota: number;
      /** @description The feed revision the answer shows (a sandbox key's: the delayed view's). A stream opened with `last_event_id` set to it, or `GET /api/v1/changes?since=` it, misses nothing after this answer */
      revision: number;
      /** @description Pass as `cursor` for the next page; null on the last page */
      next_cursor: string | null;
    };
    /** @description RFC 9457 problem details */
    Problem: {
      /**
       * Format: uri-reference
       * @description The problem type: `/docs/errors#<code>`, a reference resolved against the request's URL (RFC 9457) to this service's page of error codes, at the section for the code
       * @example /docs/errors#invalid_parameter
       */
      type: string;
      title: string;
      status: number;
      /** @description What went wrong, for people */
      detail: string;
      /**
       * @description Stable code for clients to switch on
       * @enum {string}
       */
      code:
        | "invalid_parameter"
        | "unknown_parameter"
        | "conflicting_credentials"
        | "missing_api_key"
        | "invalid_api_key"
        | "key_revoked"
        | "key_expired"
        | "token_expired"
        | "session_expired"
        | "sport_not_covered"
        | "licence_inactive"
        | "ip_not_allowed"
        | "not_found"
        | "retention_exceeded"
        | "method_not_allowed"
        | "rate_limited"
        | "quota_exceeded"
        | "internal_error"
        | "unavailable";
      /** @description Equal to the X-Request-Id header */
      request_id: string;
      /** @description One entry per invalid or unknown parameter */
      errors?: {
        param: string;
        message: string;
      }[];
      /** @description On 429: the policy that was exceeded (`streams`: the plan's concurrent streams; `unknown_keys`: too many keys no one holds from the client's address) */
      "violated-policies"?: ("second" | "month" | "streams" | "unknown_keys")[];
    };
    /** @description One state of a market */
    PricePoint: {
      /**
       * Format: date-time
       * @description When the market changed to this state; for the first point, `from` if given
       */
      at: string;
      /** @description The feed revision of this state: the `id` of the stream message that carried it */
      revision: number;
      /**
       * @description settled once every outcome is won, lost or void
       * @enum {string}
       */
      status: "open" | "suspended" | "settled";
      line: number | null;
      outcomes: {
        id: string;
        price: number;
        /**
         * @description won, lost or void once its market is settled; void returns the stake (the event was abandoned or cancelled, or a two-way market ended in a tie)
         * @enum {string}
         */
        status: "active" | "suspended" | "won" | "lost" | "void";
      }[];
    };
    /**
     * @example {
     *       "event_id": "soc-bdrn-983512",
     *       "market_id": "soc-bdrn-983512:match_winner",
     *       "points": [
     *         {
     *           "at": "2026-11-21T15:30:00.000Z",
     *           "revision": 48102,
     *           "status": "open",
     *           "line": null,
     *           "outcomes": [
     *             {
     *               "id": "soc-bdrn-983512:match_winner:home",
     *               "price": 1.8,
     *               "status": "active"
     *             },
     *             {
     *               "id": "soc-bdrn-983512:match_winner:draw",
     *               "price": 3.6,
     *               "status": "active"
     *             },
     *             {
     *               "id": "soc-bdrn-983512:match_winner:away",
     *               "price": 4.75,
     *               "status": "active"
     *             }
     *           ]
     *         },
     *         {
     *           "at": "2026-11-21T15:41:07.214Z",
     *           "revision": 48213,
     *           "status": "open",
     *           "line": null,
     *           "outcomes": [
     *             {
     *               "id": "soc-bdrn-983512:match_winner:home",
     *               "price": 1.62,
     *               "status": "active"
     *             },
     *             {
     *               "id": "soc-bdrn-983512:match_winner:draw",
     *               "price": 3.9,
     *               "status": "active"
     *             },
     *             {
     *               "id": "soc-bdrn-983512:match_winner:away",
     *               "price": 5.5,
     *               "status": "active"
     *             }
     *           ]
     *         }
     *       ]
     *     }
     */
    MarketHistory: {
      /** @description Event identifier */
      event_id: string;
      market_id: string;
      /** @description The market's state at the start of the window, then one point per change of it, oldest first */
      points: components["schemas"]["PricePoint"][];
    };
    /**
     * @example {
     *       "token": "svc_st_eyJrIjoia2V5XzRacTEiLCJzIjoic29jY2VyIiwiZSI6bnVsbCwieCI6MTc5NTcxNDAwMH0.Xq0V…",
     *       "expires_at": "2026-11-21T15:56:07.000Z",
     *       "sport": "soccer",
     *       "event_id": null
     *     }
     */
    StreamToken: {
      /** @description Pass as `?token=` on `/api/v1/odds/stream` or `/api/v1/events/{id}/stream` */
      token: string;
      /**
       * Format: date-time
       * @description After this a stream cannot be opened with it (one already open goes on)
       */
      expires_at: string;
      /** @description The one sport it opens streams of; null: every sport the key covers */
      sport: components["schemas"]["Sport"] | null;
      /** @description The one event whose stream it opens; null: any */
      event_id: string | null;
    };
    /** @description `snapshot` of an event's stream: the event, its markets and lineups, as of the message's id */
    EventSnapshotMessage: {
      event: components["schemas"]["Event"];
      markets: components["schemas"]["Market"][];
      lineups: components["schemas"]["Lineup"];
      /** @description true for a sandbox key (or a console member without a production plan) */
      sandbox: boolean;
      /** @description How far behind real time this stream is: 60 for sandbox, 0 for production */
      delay_seconds: number;
      /**
       * Format: date-time
       * @description The moment of the feed this message shows
       */
      as_of: string;
      /**
       * @description Present when this snapshot replaces what the client had: a gap
       * @constant
       */
      resync?: true;
      /**
       * @description Why there was a gap: the last id is older than the history kept, or more than 10,000 revisions behind, more than a resume replays (`retention_exceeded`), or not one this instance can place (`unknown_id`); the client did not read fast enough (`slow_client`); the instance lost the feed for longer than the history holds (`bus_reconnected`)
       * @enum {string}
       */
      reason?: "retention_exceeded" | "unknown_id" | "slow_client" | "bus_reconnected";
    };
    /** @description `snapshot` of the board stream: every event in play with its markets, as GET /api/v1/odds */
    BoardSnapshotMessage: {
      events: components["schemas"]["EventWithMarkets"][];
      /** @description true for a sandbox key (or a console member without a production plan) */
      sandbox: boolean;
      /** @description How far behind real time this stream is: 60 for sandbox, 0 for production */
      delay_seconds: number;
      /**
       * Format: date-time
       * @description The moment of the feed this message shows
       */
      as_of: string;
      /**
       * @description Present when this snapshot replaces what the client had: a gap
       * @constant
       */
      resync?: true;
      /**
       * @description Why there was a gap: the last id is older than the history kept, or more than 10,000 revisions behind, more than a resume replays (`retention_exceeded`), or not one this instance can place (`unknown_id`); the client did not read fast enough (`slow_client`); the instance lost the feed for longer than the history holds (`bus_reconnected`)
       * @enum {string}
       */
      reason?: "retention_exceeded" | "unknown_id" | "slow_client" | "bus_reconnected";
    };
    /** @description `event`: the event after a change (on the board: while in play, and the change that ends its play) */
    EventMessage: {
      event: components["schemas"]["Event"];
      /** @description Board stream: all the event's markets, when the event has just come into play */
      markets?: components["schemas"]["Market"][];
      /** @description true for a sandbox key (or a console member without a production plan) */
      sandbox: boolean;
      /** @description How far behind real time this stream is: 60 for sandbox, 0 for production */
      delay_seconds: number;
      /**
       * Format: date-time
       * @description The moment of the feed this message shows
       */
      as_of: string;
      /**
       * @description The client fell behind: this is the latest state, not every change in between
       * @constant
       */
      conflated?: true;
    };
    /** @description `markets`: the markets that changed, each whole (conflated: all the event's markets) */
    MarketsMessage: {
      event_id: string;
      markets: components["schemas"]["Market"][];
      /** @description true for a sandbox key (or a console member without a production plan) */
      sandbox: boolean;
      /** @description How far behind real time this stream is: 60 for sandbox, 0 for production */
      delay_seconds: number;
      /**
       * Format: date-time
       * @description The moment of the feed this message shows
       */
      as_of: string;
      /**
       * @description The client fell behind: this is the latest state, not every change in between
       * @constant
       */
      conflated?: true;
    };
    /** @description `lineups`: both lineups after a change */
    LineupsMessage: {
      lineups: components["schemas"]["Lineup"];
      /** @description true for a sandbox key (or a console member without a production plan) */
      sandbox: boolean;
      /** @description How far behind real time this stream is: 60 for sandbox, 0 for production */
      delay_seconds: number;
      /**
       * Format: date-time
       * @description The moment of the feed this message shows
       */
      as_of: string;
    };
    /** @description `end`: the event is finished (or cancelled); the event's stream closes after it */
    EndMessage: {
      event_id: string;
      /** @enum {string} */
      status: "upcoming" | "live" | "finished" | "postponed" | "cancelled" | "suspended";
      /** @description true for a sandbox key (or a console member without a production plan) */
      sandbox: boolean;
      /** @description How far behind real time this stream is: 60 for sandbox, 0 for production */
      delay_seconds: number;
      /**
       * Format: date-time
       * @description The moment of the feed this message shows
       */
      as_of: string;
    };
    /** @description `stale`: whether what the stream shows may be out of date; the missed changes follow when it clears */
    StaleMessage: {
      /** @description true: the instance cannot hear the feed; false: it can again */
      stale: boolean;
      /**
       * Format: date-time
       * @description When it last heard the feed
       */
      since?: string;
      /** @description true for a sandbox key (or a console member without a production plan) */
      sandbox: boolean;
      /** @description How far behind real time this stream is: 60 for sandbox, 0 for production */
      delay_seconds: number;
      /**
       * Format: date-time
       * @description The moment of the feed this message shows
       */
      as_of: string;
    };
    /** @description `error`: the stream's last message when the service ends it (`key_revoked`, `key_expired`, `sport_not_covered`, `unavailable`) */
    ErrorMessage: {
      /**
       * Format: uri-reference
       * @description The problem type: `/docs/errors#<code>`, a reference resolved against the request's URL (RFC 9457) to this service's page of error codes, at the section for the code
       * @example /docs/errors#invalid_parameter
       */
      type: string;
      title: string;
      status: number;
      /** @description What went wrong, for people */
      detail: string;
      /**
       * @description Stable code for clients to switch on
       * @enum {string}
       */
      code:
        | "invalid_parameter"
        | "unknown_parameter"
        | "conflicting_credentials"
        | "missing_api_key"
        | "invalid_api_key"
        | "key_revoked"
        | "key_expired"
        | "token_expired"
        | "session_expired"
        | "sport_not_covered"
        | "licence_inactive"
        | "ip_not_allowed"
        | "not_found"
        | "retention_exceeded"
        | "method_not_allowed"
        | "rate_limited"
        | "quota_exceeded"
        | "internal_error"
        | "unavailable";
      /** @description Equal to the X-Request-Id header */
      request_id: string;
      /** @description One entry per invalid or unknown parameter */
      errors?: {
        param: string;
        message: string;
      }[];
      /** @description On 429: the policy that was exceeded (`streams`: the plan's concurrent streams; `unknown_keys`: too many keys no one holds from the client's address) */
      "violated-policies"?: ("second" | "month" | "streams" | "unknown_keys")[];
      /** @description true for a sandbox key (or a console member without a production plan) */
      sandbox: boolean;
      /** @description How far behind real time this stream is: 60 for sandbox, 0 for production */
      delay_seconds: number;
      /**
       * Format: date-time
       * @description The moment of the feed this message shows
       */
      as_of: string;
    };
    /** @description One message of the board stream: its `id` (the revision), `event` name and `data`, as the stream sent it */
    Change:
      | {
          id: number;
          /** @constant */
          event: "event";
          data: components["schemas"]["EventMessage"];
        }
      | {
          id: number;
          /** @constant */
          event: "markets";
          data: components["schemas"]["MarketsMessage"];
        };
    ChangesMeta: {
      /** @description true when the key is a sandbox key */
      sandbox: boolean;
      /** @description Seconds the data lags real time: 60 for sandbox keys, 0 for production */
      delay_seconds: number;
      /** @description Requests counted this month, this one included: the key's, or its organisation's when that is nearer its quota (a production key's plan quota is shared by the organisation's keys and members) */
      requests_used: number;
      /** @description The monthly quota `requests_used` is counted against */
      requests_quota: number;
      /** @description The feed revision the answer shows (a sandbox key's: the delayed view's). A stream opened with `last_event_id` set to it, or `GET /api/v1/changes?since=` it, misses nothing after this answer */
      revision: number;
      /** @description Pass as `since` for what comes next; equal to `revision`, the last revision this page examined (it ends at `limit` changes, or after 10,000 revisions examined) */
      next_since: number;
      /** @description true when later revisions exist already (the page ended early): ask again from `next_since` at once */
      more: boolean;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: {
    /** @description Identifies the request; equal to `request_id` in an error body. Quote it when reporting a problem. */
    "X-Request-Id": string;
    /** @description What is left of each policy and seconds until it resets (draft-ietf-httpapi-ratelimit-headers-10), e.g. `"second";r=9;t=1, "month";r=4711;t=86400`. */
    RateLimit: string;
    /** @description The key's policies, e.g. `"second";q=10;w=1, "month";q=100000;w=2592000`. */
    "RateLimit-Policy": string;
    /** @description Weak validator of `data`; send it back in `If-None-Match` to get 304 while nothing changed. */
    ETag: string;
    /** @description Seconds to wait before trying again. */
    "Retry-After": number;
    /** @description The methods the API answers. */
    Allow: "GET, HEAD";
    /** @description `Bearer`, with `error` when a key was sent. */
    "WWW-Authenticate": string;
  };
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  describeKey: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The `{data, meta}` envelope. Bodies of 1 KB and more are gzipped when `Accept-Encoding` allows it. */
      200: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          ETag: components["headers"]["ETag"];
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            data: components["schemas"]["KeyDescription"];
            meta: components["schemas"]["Meta"];
          };
        };
      };
      /** @description `If-None-Match` matched the current `ETag`: nothing changed. Counted like any request. */
      304: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          ETag: components["headers"]["ETag"];
          [name: string]: unknown;
        };
        content?: never;
      };
      /**
       * @description `invalid_parameter`: A path or query parameter has a value outside what it allows.
       *
       *     `unknown_parameter`: The request carries a query parameter the endpoint does not know.
       *
       *     `conflicting_credentials`: `Authorization` and `X-Api-Key` carry different keys; neither is used, and the request is not counted.
       */
      400: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `missing_api_key`: No key in `Authorization: Bearer` or `X-Api-Key`.
       *
       *     `invalid_api_key`: The key is malformed, fails its checksum, does not exist, or was sent in the query string; or a stream token was not valid, or was sent anywhere but as `?token=` on a stream.
       *
       *     `key_revoked`: The key was revoked in the console.
       *
       *     `key_expired`: The key passed its `expires_at`: a sandbox key's end, or a production key's expiry (set in the console, or the overlap of a key that was rolled, after which its successor takes over).
       */
      401: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `licence_inactive`: A production key whose organisation's licence is not verified and in force (pending, rejected, revoked, lapsed or not yet valid); the detail names the licence and the date. Not counted.
       *
       *     `ip_not_allowed`: The key has an IP allowlist and the request came from an address outside it (the client's address: the connection's peer, or behind the service's load balancers the address they saw). Not counted.
       */
      403: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `method_not_allowed`: The API is read-only: GET and HEAD only. */
      405: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          Allow: components["headers"]["Allow"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `rate_limited`: Over the key's (or the console member's) requests per second, or (streams) its concurrent streams, or too many unknown keys from the client's address: `violated-policies` says which. Not counted; retry after `Retry-After` seconds.
       *
       *     `quota_exceeded`: The key (or the console member) used its monthly quota. Not counted; `Retry-After` is the time until the next month (UTC).
       */
      429: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "Retry-After": components["headers"]["Retry-After"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `internal_error`: Something failed on our side; the `request_id` finds it in our logs. */
      500: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `unavailable`: The service cannot answer right now; retry after `Retry-After` seconds. */
      503: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "Retry-After": components["headers"]["Retry-After"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  listEvents: {
    parameters: {
      query?: {
        /** @description Default: every sport the key covers */
        sport?: components["schemas"]["Sport"];
        /** @description Default: both */
        status?: "live" | "upcoming";
        /** @description Page size, 1 to 100, in decimal digits (no sign, spaces, exponent or leading zeros) */
        limit?: number;
        cursor?: string;
        as_of?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The `{data, meta}` envelope. Bodies of 1 KB and more are gzipped when `Accept-Encoding` allows it. */
      200: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          ETag: components["headers"]["ETag"];
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            data: components["schemas"]["Event"][];
            meta: components["schemas"]["ListMeta"];
          };
        };
      };
      /** @description `If-None-Match` matched the current `ETag`: nothing changed. Counted like any request. */
      304: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          ETag: components["headers"]["ETag"];
          [name: string]: unknown;
        };
        content?: never;
      };
      /**
       * @description `invalid_parameter`: A path or query parameter has a value outside what it allows.
       *
       *     `unknown_parameter`: The request carries a query parameter the endpoint does not know.
       *
       *     `conflicting_credentials`: `Authorization` and `X-Api-Key` carry different keys; neither is used, and the request is not counted.
       */
      400: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `missing_api_key`: No key in `Authorization: Bearer` or `X-Api-Key`.
       *
       *     `invalid_api_key`: The key is malformed, fails its checksum, does not exist, or was sent in the query string; or a stream token was not valid, or was sent anywhere but as `?token=` on a stream.
       *
       *     `key_revoked`: The key was revoked in the console.
       *
       *     `key_expired`: The key passed its `expires_at`: a sandbox key's end, or a production key's expiry (set in the console, or the overlap of a key that was rolled, after which its successor takes over).
       */
      401: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `licence_inactive`: A production key whose organisation's licence is not verified and in force (pending, rejected, revoked, lapsed or not yet valid); the detail names the licence and the date. Not counted.
       *
       *     `ip_not_allowed`: The key has an IP allowlist and the request came from an address outside it (the client's address: the connection's peer, or behind the service's load balancers the address they saw). Not counted.
       *
       *     `sport_not_covered`: The key's sandbox sport or plan does not include the sport asked for.
       */
      403: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `method_not_allowed`: The API is read-only: GET and HEAD only. */
      405: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          Allow: components["headers"]["Allow"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `retention_exceeded`: The revision or moment asked for is older than the revision history reaches (`history_seconds` in `GET /api/v1/me`): ask for a later one, or start again from the current state. */
      410: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `rate_limited`: Over the key's (or the console member's) requests per second, or (streams) its concurrent streams, or too many unknown keys from the client's address: `violated-policies` says which. Not counted; retry after `Retry-After` seconds.
       *
       *     `quota_exceeded`: The key (or the console member) used its monthly quota. Not counted; `Retry-After` is the time until the next month (UTC).
       */
      429: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "Retry-After": components["headers"]["Retry-After"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `internal_error`: Something failed on our side; the `request_id` finds it in our logs. */
      500: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `unavailable`: The service cannot answer right now; retry after `Retry-After` seconds. */
      503: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "Retry-After": components["headers"]["Retry-After"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  getEvent: {
    parameters: {
      query?: {
        as_of?: string;
      };
      header?: never;
      path: {
        /** @description Event identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The `{data, meta}` envelope. Bodies of 1 KB and more are gzipped when `Accept-Encoding` allows it. */
      200: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          ETag: components["headers"]["ETag"];
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            data: components["schemas"]["Event"];
            meta: components["schemas"]["Meta"];
          };
        };
      };
      /** @description `If-None-Match` matched the current `ETag`: nothing changed. Counted like any request. */
      304: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          ETag: components["headers"]["ETag"];
          [name: string]: unknown;
        };
        content?: never;
      };
      /**
       * @description `invalid_parameter`: A path or query parameter has a value outside what it allows.
       *
       *     `unknown_parameter`: The request carries a query parameter the endpoint does not know.
       *
       *     `conflicting_credentials`: `Authorization` and `X-Api-Key` carry different keys; neither is used, and the request is not counted.
       */
      400: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `missing_api_key`: No key in `Authorization: Bearer` or `X-Api-Key`.
       *
       *     `invalid_api_key`: The key is malformed, fails its checksum, does not exist, or was sent in the query string; or a stream token was not valid, or was sent anywhere but as `?token=` on a stream.
       *
       *     `key_revoked`: The key was revoked in the console.
       *
       *     `key_expired`: The key passed its `expires_at`: a sandbox key's end, or a production key's expiry (set in the console, or the overlap of a key that was rolled, after which its successor takes over).
       *
       *     `session_expired`: The console session cookie sent instead of a key is not valid any more; sign in again.
       */
      401: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `licence_inactive`: A production key whose organisation's licence is not verified and in force (pending, rejected, revoked, lapsed or not yet valid); the detail names the licence and the date. Not counted.
       *
       *     `ip_not_allowed`: The key has an IP allowlist and the request came from an address outside it (the client's address: the connection's peer, or behind the service's load balancers the address they saw). Not counted.
       *
       *     `sport_not_covered`: The key's sandbox sport or plan does not include the sport asked for.
       */
      403: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `not_found`: No such event, or no such path under /api/v1. */
      404: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `method_not_allowed`: The API is read-only: GET and HEAD only. */
      405: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          Allow: components["headers"]["Allow"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `retention_exceeded`: The revision or moment asked for is older than the revision history reaches (`history_seconds` in `GET /api/v1/me`): ask for a later one, or start again from the current state. */
      410: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `rate_limited`: Over the key's (or the console member's) requests per second, or (streams) its concurrent streams, or too many unknown keys from the client's address: `violated-policies` says which. Not counted; retry after `Retry-After` seconds.
       *
       *     `quota_exceeded`: The key (or the console member) used its monthly quota. Not counted; `Retry-After` is the time until the next month (UTC).
       */
      429: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "Retry-After": components["headers"]["Retry-After"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `internal_error`: Something failed on our side; the `request_id` finds it in our logs. */
      500: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `unavailable`: The service cannot answer right now; retry after `Retry-After` seconds. */
      503: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "Retry-After": components["headers"]["Retry-After"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  getLineups: {
    parameters: {
      query?: {
        as_of?: string;
      };
      header?: never;
      path: {
        /** @description Event identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The `{data, meta}` envelope. Bodies of 1 KB and more are gzipped when `Accept-Encoding` allows it. */
      200: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          ETag: components["headers"]["ETag"];
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            data: components["schemas"]["Lineup"];
            meta: components["schemas"]["Meta"];
          };
        };
      };
      /** @description `If-None-Match` matched the current `ETag`: nothing changed. Counted like any request. */
      304: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          ETag: components["headers"]["ETag"];
          [name: string]: unknown;
        };
        content?: never;
      };
      /**
       * @description `invalid_parameter`: A path or query parameter has a value outside what it allows.
       *
       *     `unknown_parameter`: The request carries a query parameter the endpoint does not know.
       *
       *     `conflicting_credentials`: `Authorization` and `X-Api-Key` carry different keys; neither is used, and the request is not counted.
       */
      400: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `missing_api_key`: No key in `Authorization: Bearer` or `X-Api-Key`.
       *
       *     `invalid_api_key`: The key is malformed, fails its checksum, does not exist, or was sent in the query string; or a stream token was not valid, or was sent anywhere but as `?token=` on a stream.
       *
       *     `key_revoked`: The key was revoked in the console.
       *
       *     `key_expired`: The key passed its `expires_at`: a sandbox key's end, or a production key's expiry (set in the console, or the overlap of a key that was rolled, after which its successor takes over).
       *
       *     `session_expired`: The console session cookie sent instead of a key is not valid any more; sign in again.
       */
      401: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `licence_inactive`: A production key whose organisation's licence is not verified and in force (pending, rejected, revoked, lapsed or not yet valid); the detail names the licence and the date. Not counted.
       *
       *     `ip_not_allowed`: The key has an IP allowlist and the request came from an address outside it (the client's address: the connection's peer, or behind the service's load balancers the address they saw). Not counted.
       *
       *     `sport_not_covered`: The key's sandbox sport or plan does not include the sport asked for.
       */
      403: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `not_found`: No such event, or no such path under /api/v1. */
      404: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `method_not_allowed`: The API is read-only: GET and HEAD only. */
      405: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          Allow: components["headers"]["Allow"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `retention_exceeded`: The revision or moment asked for is older than the revision history reaches (`history_seconds` in `GET /api/v1/me`): ask for a later one, or start again from the current state. */
      410: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `rate_limited`: Over the key's (or the console member's) requests per second, or (streams) its concurrent streams, or too many unknown keys from the client's address: `violated-policies` says which. Not counted; retry after `Retry-After` seconds.
       *
       *     `quota_exceeded`: The key (or the console member) used its monthly quota. Not counted; `Retry-After` is the time until the next month (UTC).
       */
      429: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "Retry-After": components["headers"]["Retry-After"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `internal_error`: Something failed on our side; the `request_id` finds it in our logs. */
      500: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `unavailable`: The service cannot answer right now; retry after `Retry-After` seconds. */
      503: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "Retry-After": components["headers"]["Retry-After"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  listOdds: {
    parameters: {
      query?: {
        /** @description Default: every sport the key covers */
        sport?: components["schemas"]["Sport"];
        /** @description Only markets of this type; a sport that does not offer it shows none */
        type?: components["schemas"]["MarketType"];
        as_of?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The `{data, meta}` envelope. Bodies of 1 KB and more are gzipped when `Accept-Encoding` allows it. */
      200: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          ETag: components["headers"]["ETag"];
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            data: components["schemas"]["EventWithMarkets"][];
            meta: components["schemas"]["Meta"];
          };
        };
      };
      /** @description `If-None-Match` matched the current `ETag`: nothing changed. Counted like any request. */
      304: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          ETag: components["headers"]["ETag"];
          [name: string]: unknown;
        };
        content?: never;
      };
      /**
       * @description `invalid_parameter`: A path or query parameter has a value outside what it allows.
       *
       *     `unknown_parameter`: The request carries a query parameter the endpoint does not know.
       *
       *     `conflicting_credentials`: `Authorization` and `X-Api-Key` carry different keys; neither is used, and the request is not counted.
       */
      400: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `missing_api_key`: No key in `Authorization: Bearer` or `X-Api-Key`.
       *
       *     `invalid_api_key`: The key is malformed, fails its checksum, does not exist, or was sent in the query string; or a stream token was not valid, or was sent anywhere but as `?token=` on a stream.
       *
       *     `key_revoked`: The key was revoked in the console.
       *
       *     `key_expired`: The key passed its `expires_at`: a sandbox key's end, or a production key's expiry (set in the console, or the overlap of a key that was rolled, after which its successor takes over).
       *
       *     `session_expired`: The console session cookie sent instead of a key is not valid any more; sign in again.
       */
      401: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `licence_inactive`: A production key whose organisation's licence is not verified and in force (pending, rejected, revoked, lapsed or not yet valid); the detail names the licence and the date. Not counted.
       *
       *     `ip_not_allowed`: The key has an IP allowlist and the request came from an address outside it (the client's address: the connection's peer, or behind the service's load balancers the address they saw). Not counted.
       *
       *     `sport_not_covered`: The key's sandbox sport or plan does not include the sport asked for.
       */
      403: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `method_not_allowed`: The API is read-only: GET and HEAD only. */
      405: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          Allow: components["headers"]["Allow"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `retention_exceeded`: The revision or moment asked for is older than the revision history reaches (`history_seconds` in `GET /api/v1/me`): ask for a later one, or start again from the current state. */
      410: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `rate_limited`: Over the key's (or the console member's) requests per second, or (streams) its concurrent streams, or too many unknown keys from the client's address: `violated-policies` says which. Not counted; retry after `Retry-After` seconds.
       *
       *     `quota_exceeded`: The key (or the console member) used its monthly quota. Not counted; `Retry-After` is the time until the next month (UTC).
       */
      429: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "Retry-After": components["headers"]["Retry-After"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `internal_error`: Something failed on our side; the `request_id` finds it in our logs. */
      500: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `unavailable`: The service cannot answer right now; retry after `Retry-After` seconds. */
      503: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "Retry-After": components["headers"]["Retry-After"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  getEventOdds: {
    parameters: {
      query?: {
        /** @description Only markets of this type; a sport that does not offer it shows none */
        type?: components["schemas"]["MarketType"];
        as_of?: string;
      };
      header?: never;
      path: {
        /** @description Event identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The `{data, meta}` envelope. Bodies of 1 KB and more are gzipped when `Accept-Encoding` allows it. */
      200: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          ETag: components["headers"]["ETag"];
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            data: components["schemas"]["EventWithMarkets"];
            meta: components["schemas"]["Meta"];
          };
        };
      };
      /** @description `If-None-Match` matched the current `ETag`: nothing changed. Counted like any request. */
      304: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          ETag: components["headers"]["ETag"];
          [name: string]: unknown;
        };
        content?: never;
      };
      /**
       * @description `invalid_parameter`: A path or query parameter has a value outside what it allows.
       *
       *     `unknown_parameter`: The request carries a query parameter the endpoint does not know.
       *
       *     `conflicting_credentials`: `Authorization` and `X-Api-Key` carry different keys; neither is used, and the request is not counted.
       */
      400: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `missing_api_key`: No key in `Authorization: Bearer` or `X-Api-Key`.
       *
       *     `invalid_api_key`: The key is malformed, fails its checksum, does not exist, or was sent in the query string; or a stream token was not valid, or was sent anywhere but as `?token=` on a stream.
       *
       *     `key_revoked`: The key was revoked in the console.
       *
       *     `key_expired`: The key passed its `expires_at`: a sandbox key's end, or a production key's expiry (set in the console, or the overlap of a key that was rolled, after which its successor takes over).
       */
      401: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `licence_inactive`: A production key whose organisation's licence is not verified and in force (pending, rejected, revoked, lapsed or not yet valid); the detail names the licence and the date. Not counted.
       *
       *     `ip_not_allowed`: The key has an IP allowlist and the request came from an address outside it (the client's address: the connection's peer, or behind the service's load balancers the address they saw). Not counted.
       *
       *     `sport_not_covered`: The key's sandbox sport or plan does not include the sport asked for.
       */
      403: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `not_found`: No such event, or no such path under /api/v1. */
      404: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `method_not_allowed`: The API is read-only: GET and HEAD only. */
      405: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          Allow: components["headers"]["Allow"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `retention_exceeded`: The revision or moment asked for is older than the revision history reaches (`history_seconds` in `GET /api/v1/me`): ask for a later one, or start again from the current state. */
      410: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `rate_limited`: Over the key's (or the console member's) requests per second, or (streams) its concurrent streams, or too many unknown keys from the client's address: `violated-policies` says which. Not counted; retry after `Retry-After` seconds.
       *
       *     `quota_exceeded`: The key (or the console member) used its monthly quota. Not counted; `Retry-After` is the time until the next month (UTC).
       */
      429: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "Retry-After": components["headers"]["Retry-After"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `internal_error`: Something failed on our side; the `request_id` finds it in our logs. */
      500: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `unavailable`: The service cannot answer right now; retry after `Retry-After` seconds. */
      503: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "Retry-After": components["headers"]["Retry-After"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  streamEvent: {
    parameters: {
      query?: {
        /** @description The `id` of the last message received, to resume after it. Same as the `Last-Event-ID` header, which wins when both are sent; for a browser's EventSource that was closed by an error and must be opened again. */
        last_event_id?: string;
        /** @description Alias of `last_event_id`, the name EventSource polyfills (event-source-polyfill) send when they reconnect. The `Last-Event-ID` header wins over it, and it wins over `last_event_id`. */
        lastEventId?: string;
        /** @description A browser stream token (`svc_st_…`) from `GET /api/v1/stream-token`, instead of a key, for a browser's EventSource, which cannot send headers. Accepted on the two streams only, from any origin; checked when the stream opens. */
        token?: string;
      };
      header?: {
        /** @description The `id` of the last message received: the stream resumes after it. Wins over the query parameters. */
        "Last-Event-ID"?: string;
      };
      path: {
        /** @description Event identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Server-Sent Events, uncompressed and unbuffered. Messages: `snapshot`, `event`, `markets`, `lineups`, `end`, `stale`, `error`; each `data` is one line of JSON. Every message with new data has an `id` (the feed revision). A stream that closes without `end` (a deploy, a restart, a client that fell behind) is to be reopened with the last id received, in `Last-Event-ID` (or the `lastEventId` or `last_event_id` query parameter): it goes on after that message, missing nothing. */
      200: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "text/event-stream":
            | {
                /**
                 * @description The `event:` field
                 * @constant
                 */
                event: "snapshot";
                /** @description The `id:` field: the feed revision */
                id: string;
                data: components["schemas"]["EventSnapshotMessage"];
              }
            | {
                /**
                 * @description The `event:` field
                 * @constant
                 */
                event: "event";
                /** @description The `id:` field: the feed revision */
                id: string;
                data: components["schemas"]["EventMessage"];
              }
            | {
                /**
                 * @description The `event:` field
                 * @constant
                 */
                event: "markets";
                /** @description The `id:` field: the feed revision */
                id: string;
                data: components["schemas"]["MarketsMessage"];
              }
            | {
                /**
                 * @description The `event:` field
                 * @constant
                 */
                event: "lineups";
                /** @description The `id:` field: the feed revision */
                id: string;
                data: components["schemas"]["LineupsMessage"];
              }
            | {
                /**
                 * @description The `event:` field
                 * @constant
                 */
                event: "end";
                /** @description The `retry:` field: an hour or more */
                retry?: number;
                data: components["schemas"]["EndMessage"];
              }
            | {
                /**
                 * @description The `event:` field
                 * @constant
                 */
                event: "stale";
                data: components["schemas"]["StaleMessage"];
              }
            | {
                /**
                 * @description The `event:` field
                 * @constant
                 */
                event: "error";
                data: components["schemas"]["ErrorMessage"];
              };
        };
      };
      /** @description The event is already over (finished or cancelled): nothing to follow, and every EventSource stops here instead of reconnecting. Counted as one request. */
      204: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content?: never;
      };
      /**
       * @description `invalid_parameter`: A path or query parameter has a value outside what it allows.
       *
       *     `unknown_parameter`: The request carries a query parameter the endpoint does not know.
       *
       *     `conflicting_credentials`: `Authorization` and `X-Api-Key` carry different keys; neither is used, and the request is not counted.
       */
      400: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `missing_api_key`: No key in `Authorization: Bearer` or `X-Api-Key`.
       *
       *     `invalid_api_key`: The key is malformed, fails its checksum, does not exist, or was sent in the query string; or a stream token was not valid, or was sent anywhere but as `?token=` on a stream.
       *
       *     `key_revoked`: The key was revoked in the console.
       *
       *     `key_expired`: The key passed its `expires_at`: a sandbox key's end, or a production key's expiry (set in the console, or the overlap of a key that was rolled, after which its successor takes over).
       *
       *     `session_expired`: The console session cookie sent instead of a key is not valid any more; sign in again.
       *
       *     `token_expired`: The browser stream token passed its `expires_at` before the stream was opened; mint another with `GET /api/v1/stream-token`.
       */
      401: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `licence_inactive`: A production key whose organisation's licence is not verified and in force (pending, rejected, revoked, lapsed or not yet valid); the detail names the licence and the date. Not counted.
       *
       *     `ip_not_allowed`: The key has an IP allowlist and the request came from an address outside it (the client's address: the connection's peer, or behind the service's load balancers the address they saw). Not counted.
       *
       *     `sport_not_covered`: The key's sandbox sport or plan does not include the sport asked for.
       */
      403: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `not_found`: No such event, or no such path under /api/v1. */
      404: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `method_not_allowed`: The API is read-only: GET and HEAD only. */
      405: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          Allow: components["headers"]["Allow"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `rate_limited`: Over the key's (or the console member's) requests per second, or (streams) its concurrent streams, or too many unknown keys from the client's address: `violated-policies` says which. Not counted; retry after `Retry-After` seconds.
       *
       *     `quota_exceeded`: The key (or the console member) used its monthly quota. Not counted; `Retry-After` is the time until the next month (UTC).
       */
      429: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "Retry-After": components["headers"]["Retry-After"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `internal_error`: Something failed on our side; the `request_id` finds it in our logs. */
      500: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `unavailable`: The service cannot answer right now; retry after `Retry-After` seconds. */
      503: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "Retry-After": components["headers"]["Retry-After"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  streamOdds: {
    parameters: {
      query?: {
        /** @description Default: every sport the key covers */
        sport?: components["schemas"]["Sport"];
        /** @description Only markets of this type; a sport that does not offer it shows none */
        type?: components["schemas"]["MarketType"];
        /** @description The `id` of the last message received, to resume after it. Same as the `Last-Event-ID` header, which wins when both are sent; for a browser's EventSource that was closed by an error and must be opened again. */
        last_event_id?: string;
        /** @description Alias of `last_event_id`, the name EventSource polyfills (event-source-polyfill) send when they reconnect. The `Last-Event-ID` header wins over it, and it wins over `last_event_id`. */
        lastEventId?: string;
        /** @description A browser stream token (`svc_st_…`) from `GET /api/v1/stream-token`, instead of a key, for a browser's EventSource, which cannot send headers. Accepted on the two streams only, from any origin; checked when the stream opens. */
        token?: string;
      };
      header?: {
        /** @description The `id` of the last message received: the stream resumes after it. Wins over the query parameters. */
        "Last-Event-ID"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Server-Sent Events, uncompressed and unbuffered. Messages: `snapshot`, `event`, `markets`, `stale`, `error`; each `data` is one line of JSON. Every message with new data has an `id` (the feed revision). A stream that closes without `end` (a deploy, a restart, a client that fell behind) is to be reopened with the last id received, in `Last-Event-ID` (or the `lastEventId` or `last_event_id` query parameter): it goes on after that message, missing nothing. */
      200: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "text/event-stream":
            | {
                /**
                 * @description The `event:` field
                 * @constant
                 */
                event: "snapshot";
                /** @description The `id:` field: the feed revision */
                id: string;
                data: components["schemas"]["BoardSnapshotMessage"];
              }
            | {
                /**
                 * @description The `event:` field
                 * @constant
                 */
                event: "event";
                /** @description The `id:` field: the feed revision */
                id: string;
                data: components["schemas"]["EventMessage"];
              }
            | {
                /**
                 * @description The `event:` field
                 * @constant
                 */
                event: "markets";
                /** @description The `id:` field: the feed revision */
                id: string;
                data: components["schemas"]["MarketsMessage"];
              }
            | {
                /**
                 * @description The `event:` field
                 * @constant
                 */
                event: "stale";
                data: components["schemas"]["StaleMessage"];
              }
            | {
                /**
                 * @description The `event:` field
                 * @constant
                 */
                event: "error";
                data: components["schemas"]["ErrorMessage"];
              };
        };
      };
      /**
       * @description `invalid_parameter`: A path or query parameter has a value outside what it allows.
       *
       *     `unknown_parameter`: The request carries a query parameter the endpoint does not know.
       *
       *     `conflicting_credentials`: `Authorization` and `X-Api-Key` carry different keys; neither is used, and the request is not counted.
       */
      400: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `missing_api_key`: No key in `Authorization: Bearer` or `X-Api-Key`.
       *
       *     `invalid_api_key`: The key is malformed, fails its checksum, does not exist, or was sent in the query string; or a stream token was not valid, or was sent anywhere but as `?token=` on a stream.
       *
       *     `key_revoked`: The key was revoked in the console.
       *
       *     `key_expired`: The key passed its `expires_at`: a sandbox key's end, or a production key's expiry (set in the console, or the overlap of a key that was rolled, after which its successor takes over).
       *
       *     `session_expired`: The console session cookie sent instead of a key is not valid any more; sign in again.
       *
       *     `token_expired`: The browser stream token passed its `expires_at` before the stream was opened; mint another with `GET /api/v1/stream-token`.
       */
      401: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `licence_inactive`: A production key whose organisation's licence is not verified and in force (pending, rejected, revoked, lapsed or not yet valid); the detail names the licence and the date. Not counted.
       *
       *     `ip_not_allowed`: The key has an IP allowlist and the request came from an address outside it (the client's address: the connection's peer, or behind the service's load balancers the address they saw). Not counted.
       *
       *     `sport_not_covered`: The key's sandbox sport or plan does not include the sport asked for.
       */
      403: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `method_not_allowed`: The API is read-only: GET and HEAD only. */
      405: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          Allow: components["headers"]["Allow"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `rate_limited`: Over the key's (or the console member's) requests per second, or (streams) its concurrent streams, or too many unknown keys from the client's address: `violated-policies` says which. Not counted; retry after `Retry-After` seconds.
       *
       *     `quota_exceeded`: The key (or the console member) used its monthly quota. Not counted; `Retry-After` is the time until the next month (UTC).
       */
      429: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "Retry-After": components["headers"]["Retry-After"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `internal_error`: Something failed on our side; the `request_id` finds it in our logs. */
      500: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `unavailable`: The service cannot answer right now; retry after `Retry-After` seconds. */
      503: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "Retry-After": components["headers"]["Retry-After"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  mintStreamToken: {
    parameters: {
      query?: {
        /** @description Narrows the token to one of the key's sports. Default: every sport the key covers */
        sport?: components["schemas"]["Sport"];
        /** @description Narrows the token to this event's stream (and its sport) */
        event_id?: string;
        /** @description Seconds the token can open streams for, 60 to 3600 */
        ttl?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The `{data, meta}` envelope. Bodies of 1 KB and more are gzipped when `Accept-Encoding` allows it. */
      200: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          ETag: components["headers"]["ETag"];
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            data: components["schemas"]["StreamToken"];
            meta: components["schemas"]["Meta"];
          };
        };
      };
      /** @description `If-None-Match` matched the current `ETag`: nothing changed. Counted like any request. */
      304: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          ETag: components["headers"]["ETag"];
          [name: string]: unknown;
        };
        content?: never;
      };
      /**
       * @description `invalid_parameter`: A path or query parameter has a value outside what it allows.
       *
       *     `unknown_parameter`: The request carries a query parameter the endpoint does not know.
       *
       *     `conflicting_credentials`: `Authorization` and `X-Api-Key` carry different keys; neither is used, and the request is not counted.
       */
      400: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `missing_api_key`: No key in `Authorization: Bearer` or `X-Api-Key`.
       *
       *     `invalid_api_key`: The key is malformed, fails its checksum, does not exist, or was sent in the query string; or a stream token was not valid, or was sent anywhere but as `?token=` on a stream.
       *
       *     `key_revoked`: The key was revoked in the console.
       *
       *     `key_expired`: The key passed its `expires_at`: a sandbox key's end, or a production key's expiry (set in the console, or the overlap of a key that was rolled, after which its successor takes over).
       */
      401: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `licence_inactive`: A production key whose organisation's licence is not verified and in force (pending, rejected, revoked, lapsed or not yet valid); the detail names the licence and the date. Not counted.
       *
       *     `ip_not_allowed`: The key has an IP allowlist and the request came from an address outside it (the client's address: the connection's peer, or behind the service's load balancers the address they saw). Not counted.
       *
       *     `sport_not_covered`: The key's sandbox sport or plan does not include the sport asked for.
       */
      403: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `not_found`: No such event, or no such path under /api/v1. */
      404: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `method_not_allowed`: The API is read-only: GET and HEAD only. */
      405: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          Allow: components["headers"]["Allow"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `rate_limited`: Over the key's (or the console member's) requests per second, or (streams) its concurrent streams, or too many unknown keys from the client's address: `violated-policies` says which. Not counted; retry after `Retry-After` seconds.
       *
       *     `quota_exceeded`: The key (or the console member) used its monthly quota. Not counted; `Retry-After` is the time until the next month (UTC).
       */
      429: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "Retry-After": components["headers"]["Retry-After"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `internal_error`: Something failed on our side; the `request_id` finds it in our logs. */
      500: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `unavailable`: The service cannot answer right now; retry after `Retry-After` seconds. */
      503: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "Retry-After": components["headers"]["Retry-After"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  listChanges: {
    parameters: {
      query: {
        /** @description Required. A revision: `meta.revision` of an answer, the `id` of a stream message, or `meta.next_since` of the previous page */
        since: number;
        /** @description Default: every sport the key covers */
        sport?: components["schemas"]["Sport"];
        /** @description At most this many changes, 1 to 1000 */
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The `{data, meta}` envelope. Bodies of 1 KB and more are gzipped when `Accept-Encoding` allows it. */
      200: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          ETag: components["headers"]["ETag"];
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            data: components["schemas"]["Change"][];
            meta: components["schemas"]["ChangesMeta"];
          };
        };
      };
      /** @description `If-None-Match` matched the current `ETag`: nothing changed. Counted like any request. */
      304: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          ETag: components["headers"]["ETag"];
          [name: string]: unknown;
        };
        content?: never;
      };
      /**
       * @description `invalid_parameter`: A path or query parameter has a value outside what it allows.
       *
       *     `unknown_parameter`: The request carries a query parameter the endpoint does not know.
       *
       *     `conflicting_credentials`: `Authorization` and `X-Api-Key` carry different keys; neither is used, and the request is not counted.
       */
      400: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `missing_api_key`: No key in `Authorization: Bearer` or `X-Api-Key`.
       *
       *     `invalid_api_key`: The key is malformed, fails its checksum, does not exist, or was sent in the query string; or a stream token was not valid, or was sent anywhere but as `?token=` on a stream.
       *
       *     `key_revoked`: The key was revoked in the console.
       *
       *     `key_expired`: The key passed its `expires_at`: a sandbox key's end, or a production key's expiry (set in the console, or the overlap of a key that was rolled, after which its successor takes over).
       */
      401: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `licence_inactive`: A production key whose organisation's licence is not verified and in force (pending, rejected, revoked, lapsed or not yet valid); the detail names the licence and the date. Not counted.
       *
       *     `ip_not_allowed`: The key has an IP allowlist and the request came from an address outside it (the client's address: the connection's peer, or behind the service's load balancers the address they saw). Not counted.
       *
       *     `sport_not_covered`: The key's sandbox sport or plan does not include the sport asked for.
       */
      403: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `method_not_allowed`: The API is read-only: GET and HEAD only. */
      405: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          Allow: components["headers"]["Allow"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `retention_exceeded`: The revision or moment asked for is older than the revision history reaches (`history_seconds` in `GET /api/v1/me`): ask for a later one, or start again from the current state. */
      410: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `rate_limited`: Over the key's (or the console member's) requests per second, or (streams) its concurrent streams, or too many unknown keys from the client's address: `violated-policies` says which. Not counted; retry after `Retry-After` seconds.
       *
       *     `quota_exceeded`: The key (or the console member) used its monthly quota. Not counted; `Retry-After` is the time until the next month (UTC).
       */
      429: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "Retry-After": components["headers"]["Retry-After"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `internal_error`: Something failed on our side; the `request_id` finds it in our logs. */
      500: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `unavailable`: The service cannot answer right now; retry after `Retry-After` seconds. */
      503: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "Retry-After": components["headers"]["Retry-After"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  getMarketHistory: {
    parameters: {
      query?: {
        /** @description From this time: the first point is the market as it was then. Default: the oldest state kept */
        from?: string;
        /** @description Through this time. Default, and at most: now (for a sandbox key, its delay ago) */
        to?: string;
      };
      header?: never;
      path: {
        /** @description Event identifier */
        id: string;
        /** @description A market of the event: its `id` in `markets` */
        market_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The `{data, meta}` envelope. Bodies of 1 KB and more are gzipped when `Accept-Encoding` allows it. */
      200: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          ETag: components["headers"]["ETag"];
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            data: components["schemas"]["MarketHistory"];
            meta: components["schemas"]["Meta"];
          };
        };
      };
      /** @description `If-None-Match` matched the current `ETag`: nothing changed. Counted like any request. */
      304: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          ETag: components["headers"]["ETag"];
          [name: string]: unknown;
        };
        content?: never;
      };
      /**
       * @description `invalid_parameter`: A path or query parameter has a value outside what it allows.
       *
       *     `unknown_parameter`: The request carries a query parameter the endpoint does not know.
       *
       *     `conflicting_credentials`: `Authorization` and `X-Api-Key` carry different keys; neither is used, and the request is not counted.
       */
      400: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `missing_api_key`: No key in `Authorization: Bearer` or `X-Api-Key`.
       *
       *     `invalid_api_key`: The key is malformed, fails its checksum, does not exist, or was sent in the query string; or a stream token was not valid, or was sent anywhere but as `?token=` on a stream.
       *
       *     `key_revoked`: The key was revoked in the console.
       *
       *     `key_expired`: The key passed its `expires_at`: a sandbox key's end, or a production key's expiry (set in the console, or the overlap of a key that was rolled, after which its successor takes over).
       *
       *     `session_expired`: The console session cookie sent instead of a key is not valid any more; sign in again.
       */
      401: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `licence_inactive`: A production key whose organisation's licence is not verified and in force (pending, rejected, revoked, lapsed or not yet valid); the detail names the licence and the date. Not counted.
       *
       *     `ip_not_allowed`: The key has an IP allowlist and the request came from an address outside it (the client's address: the connection's peer, or behind the service's load balancers the address they saw). Not counted.
       *
       *     `sport_not_covered`: The key's sandbox sport or plan does not include the sport asked for.
       */
      403: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `not_found`: No such event, or no such path under /api/v1. */
      404: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `method_not_allowed`: The API is read-only: GET and HEAD only. */
      405: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          Allow: components["headers"]["Allow"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `retention_exceeded`: The revision or moment asked for is older than the revision history reaches (`history_seconds` in `GET /api/v1/me`): ask for a later one, or start again from the current state. */
      410: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /**
       * @description `rate_limited`: Over the key's (or the console member's) requests per second, or (streams) its concurrent streams, or too many unknown keys from the client's address: `violated-policies` says which. Not counted; retry after `Retry-After` seconds.
       *
       *     `quota_exceeded`: The key (or the console member) used its monthly quota. Not counted; `Retry-After` is the time until the next month (UTC).
       */
      429: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "Retry-After": components["headers"]["Retry-After"];
          RateLimit: components["headers"]["RateLimit"];
          "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `internal_error`: Something failed on our side; the `request_id` finds it in our logs. */
      500: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description `unavailable`: The service cannot answer right now; retry after `Retry-After` seconds. */
      503: {
        headers: {
          "X-Request-Id": components["headers"]["X-Request-Id"];
          "Retry-After": components["headers"]["Retry-After"];
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
}
