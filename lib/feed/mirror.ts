import type { Market } from "../db/schema/index.ts";
import type { Revision } from "./history.ts";
import {
  eventStateSchema,
  lineupsStateSchema,
  marketSchema,
  outcomeSchema,
  playerSchema,
  type EventState,
  type LineupsState,
} from "./schemas.ts";

// PostgreSQL's jsonb keeps keys in its own order; served objects list them as the spec does.
function ordered<T extends object>(keys: readonly string[], value: T): T {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (key in value) out[key] = (value as Record<string, unknown>)[key];
  return out as T;
}
const EVENT_KEYS = Object.keys(eventStateSchema.shape);
const MARKET_KEYS = Object.keys(marketSchema.shape);
const OUTCOME_KEYS = Object.keys(outcomeSchema.shape);
const LINEUPS_KEYS = Object.keys(lineupsStateSchema.shape);
const PLAYER_KEYS = Object.keys(playerSchema.shape);
const SCORE_KEYS = ["home", "away"];
const STAT_KEYS = ["label", "home", "away"];

function orderedEvent(state: EventState): EventState {
  return ordered(EVENT_KEYS, {
    ...state,
    score: ordered(SCORE_KEYS, state.score),
    stats: state.stats.map((stat) => ordered(STAT_KEYS, stat)),
  });
}

function orderedMarkets(markets: Market[]): Market[] {
  return markets.map((market) =>
    ordered(MARKET_KEYS, { ...market, outcomes: market.outcomes.map((outcome) => ordered(OUTCOME_KEYS, outcome)) }),
  );
}

function orderedLineups(lineups: LineupsState): LineupsState {
  return ordered(LINEUPS_KEYS, {
    ...lineups,
    home: lineups.home.map((player) => ordered(PLAYER_KEYS, player)),
    away: lineups.away.map((player) => ordered(PLAYER_KEYS, player)),
  });
}

/** A revision's state with its fields in the spec's order, as the API serves it. */
export function orderedState(revision: Revision): EventState | Market[] | LineupsState {
  if (revision.kind === "event") return orderedEvent(revision.state as EventState);
  if (revision.kind === "markets") return orderedMarkets(revision.state as Market[]);
  return orderedLineups(revision.state as LineupsState);
}

/**
 * An event with its markets and lineups, as of one revision of the feed, and the revision that
 * last changed each (what a stream that fell behind has to catch up on).
 */
export type EventDocument = {
  event: EventState;
  markets: Market[];
  lineups: LineupsState | null;
  changedAt: Record<Revision["kind"], number>;
};

/**
 * The whole feed in memory, as of one revision: every event with its markets and lineups, built
 * by applying revisions in order. The API serves from a mirror instead of reading the database on
 * every request; `version` changes whenever something applied, so caches built on it know when to
 * rebuild.
 */
export class FeedMirror {
  private readonly documents = new Map<string, EventDocument>();
  private ordered: EventDocument[] | null = null;
  /** The last revision applied: the mirror is the feed as it was right after it committed. */
  revision = 0;
  /** When that revision was recorded (the moment the mirror shows). */
  recordedAt = new Date(0);
  version = 0;

  apply(revision: Revision): void {
    if (revision.revision <= this.revision) return;
    const existing = this.documents.get(revision.eventId);
    if (revision.kind === "event") {
      const event = orderedEvent(revision.state as EventState);
      if (existing) {
        if (existing.event.kickoff !== event.kickoff) this.ordered = null;
        existing.event = event;
        existing.changedAt.event = revision.revision;
      } else {
        const changedAt = { event: revision.revision, markets: 0, lineups: 0 };
        this.documents.set(revision.eventId, { event, markets: [], lineups: null, changedAt });
        this.ordered = null;
      }
    } else if (existing) {
      // An event's first revision is always of its event state (the ingest creates it so).
      if (revision.kind === "markets") existing.markets = orderedMarkets(revision.state as Market[]);
      else existing.lineups = orderedLineups(revision.state as LineupsState);
      existing.changedAt[revision.kind] = revision.revision;
    }
    this.revision = revision.revision;
    this.recordedAt = revision.recordedAt;
    this.version++;
  }

  /** Replaces everything with a snapshot taken as of `revision`. */
  reset(revision: number, recordedAt: Date, states: Revision[]): void {
    this.documents.clear();
    this.revision = revision;
    this.recordedAt = recordedAt;
    this.add(states);
  }

  /** Adds the states of a snapshot taken as of the mirror's revision (events it did not hold). */
  add(states: Revision[]): void {
    const { revision, recordedAt } = this;
    // Events first: a snapshot's markets may be older than their event's latest state.
    const kindOrder = { event: 0, markets: 1, lineups: 2 };
    for (const state of [...states].sort((a, b) => kindOrder[a.kind] - kindOrder[b.kind] || a.revision - b.revision)) {
      this.revision = 0;
      this.apply(state);
    }
    this.revision = revision;
    this.recordedAt = recordedAt;
    this.ordered = null;
    this.version++;
  }

  get(eventId: string): EventDocument | undefined {
    return this.documents.get(eventId);
  }

  get size(): number {
    return this.documents.size;
  }

  /** Every event in list order: kickoff, then id. Sorted again only after a kickoff changed. */
  inListOrder(): readonly EventDocument[] {
    if (!this.ordered) {
      this.ordered = [...this.documents.values()].sort((a, b) => compareListOrder(a.event, b.event));
    }
    return this.ordered;
  }
}

/** The list order of the contract: kickoff ascending, then id. */
export function compareListOrder(a: { kickoff: string; id: string }, b: { kickoff: string; id: string }): number {
  const byKickoff = Date.parse(a.kickoff) - Date.parse(b.kickoff);
  if (byKickoff !== 0) return byKickoff;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
