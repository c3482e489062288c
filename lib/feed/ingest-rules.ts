import { createHash } from "node:crypto";
import type { Lineups, Market, RevisionKind, Sport } from "../db/schema/index.ts";
import { SPORT_MARKET_TYPES } from "../sports.ts";
import type { EventChange } from "../bus/channels.ts";
import type { Revision } from "./history.ts";
import type { BatchLine } from "./ndjson.ts";
import { CREATION_FIELDS, feedUpdateSchema, type EventState, type FeedUpdate } from "./schemas.ts";
import { canMove } from "./status.ts";

// The ingest's rules, apart from storage: which lines are valid, which are applied, duplicates of
// an update already applied or stale, and what an update makes of an event's state, markets and lineups.

export type RejectionCode =
  | "invalid_json"
  | "invalid_update"
  | "unknown_event"
  | "stale_sequence"
  | "invalid_transition"
  | "sport_mismatch"
  | "market_type_not_offered"
  | "duplicate_id";

export type LineResult = {
  line: number;
  event_id: string | null;
  sequence: number | null;
  status: "applied" | "duplicate" | "rejected";
  /** The event's revision after this line (applied lines). */
  revision?: number;
  code?: RejectionCode;
  message?: string;
  errors?: { path: string; message: string }[];
};

export type BatchResult = {
  applied: number;
  duplicate: number;
  rejected: number;
  results: LineResult[];
  changes: EventChange[];
  /** The revisions the batch committed, in order: what this instance's views apply without reading them back. */
  revisions: Revision[];
};

/** An update applied to an event: its content's digest, and the event's revision after it. */
export type AppliedLine = { digest: string; revision: number };

/** An event as the ingest knows it: stored, or as the batch's earlier lines left it. */
export type Current = {
  state: EventState;
  markets: Market[];
  lineups: Lineups | null;
  sequence: number;
  revision: number;
  dirty: boolean;
  /** The applied updates, by sequence, that the batch may repeat (those at or below `sequence`). */
  applied: Map<number, AppliedLine>;
};

/** An applied update as feed_lines keeps it. */
export type FeedLineRow = { event_id: string; sequence: number; digest: string; revision: number; applied_at: string };

export type RevisionRow = {
  revision: number;
  event_id: string;
  kind: RevisionKind;
  recorded_at: string;
  state: unknown;
};

class Rejection extends Error {
  readonly code: RejectionCode;
  constructor(code: RejectionCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** A valid line's update, with where it stands in the batch and its content's digest. */
export type ValidLine = { index: number; update: FeedUpdate; digest: string };

/**
 * The digest of an update as validated: the schema fixes the order of its fields, so a resent line
 * has the digest of the original however its JSON was spaced or ordered.
 */
export function updateDigest(update: FeedUpdate): string {
  return createHash("sha256").update(JSON.stringify(update)).digest("base64url");
}

/** The update a line carries, or its rejection when it is not JSON or not a valid update. */
export function checkLine(line: BatchLine): { update: FeedUpdate; digest: string } | { rejected: LineResult } {
  const value = line.value as { event_id?: unknown; sequence?: unknown } | undefined;
  const base = {
    line: line.line,
    event_id: typeof value?.event_id === "string" ? value.event_id : null,
    sequence: typeof value?.sequence === "number" ? value.sequence : null,
  };
  if (line.error !== undefined) {
    return {
      rejected: { ...base, status: "rejected", code: "invalid_json", message: `Not valid JSON: ${line.error}` },
    };
  }
  const parsed = feedUpdateSchema.safeParse(line.value);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message }));
    return {
      rejected: {
        ...base,
        status: "rejected",
        code: "invalid_update",
        message: errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join("; "),
        errors,
      },
    };
  }
  return { update: parsed.data, digest: updateDigest(parsed.data) };
}

/**
 * What an update's sequence makes of it against the event's: a sequence above the event's is
 * applied, as is the first update of an event; one at or below it is a duplicate when it repeats
 * the update applied with that sequence (a resend: answered, not applied again), and stale
 * (refused) otherwise.
 */
export function sequenceDecision(
  before: Pick<Current, "sequence" | "applied"> | undefined,
  sequence: number,
  digest: string,
): "apply" | "duplicate" | "stale" {
  if (!before || sequence > before.sequence) return "apply";
  return before.applied.get(sequence)?.digest === digest ? "duplicate" : "stale";
}

function staleMessage(before: Current, update: FeedUpdate): string {
  if (before.applied.has(update.sequence)) {
    return `Event ${update.event_id} applied sequence ${update.sequence} already, with other content; this line was not applied`;
  }
  return `Event ${update.event_id} is at sequence ${before.sequence}; sequence ${update.sequence} arrived out of order and was not applied`;
}

/**
 * Applies a batch's valid lines, in order, to the events they name (`current`, which it updates),
 * numbering a revision after `lastRevision` for each kind of state a line changed. Each line's
 * result goes to its index in `results`.
 */
export function applyUpdates(
  current: Map<string, Current>,
  valid: ValidLine[],
  lines: BatchLine[],
  lastRevision: number,
  at: string,
  results: LineResult[],
): { revision: number; revisions: RevisionRow[]; changes: EventChange[]; applied: FeedLineRow[] } {
  let revision = lastRevision;
  const revisions: RevisionRow[] = [];
  const appliedLines: FeedLineRow[] = [];
  const kindsByEvent = new Map<string, Set<RevisionKind>>();
  for (const { index, update, digest } of valid) {
    const base = { line: lines[index]!.line, event_id: update.event_id, sequence: update.sequence };
    try {
      const before = current.get(update.event_id);
      const decision = sequenceDecision(before, update.sequence, digest);
      if (decision === "duplicate") {
        results[index] = { ...base, status: "duplicate", revision: before!.applied.get(update.sequence)!.revision };
        continue;
      }
      if (decision === "stale") throw new Rejection("stale_sequence", staleMessage(before!, update));
      const { next, kinds } = applyUpdate(before, update, at);
      for (const kind of kinds) {
        revision++;
        const state =
          kind === "event"
            ? next.state
            : kind === "markets"
              ? next.markets
              : { event_id: update.event_id, ...next.lineups };
        revisions.push({ revision, event_id: update.event_id, kind, recorded_at: at, state });
        next.revision = revision;
        const set = kindsByEvent.get(update.event_id) ?? new Set<RevisionKind>();
        set.add(kind);
        kindsByEvent.set(update.event_id, set);
      }
      current.set(update.event_id, next);
      next.applied.set(update.sequence, { digest, revision: next.revision });
      appliedLines.push({
        event_id: update.event_id,
        sequence: update.sequence,
        digest,
        revision: next.revision,
        applied_at: at,
      });
      results[index] = { ...base, status: "applied", revision: next.revision };
    } catch (error) {
      if (!(error instanceof Rejection)) throw error;
      results[index] = { ...base, status: "rejected", code: error.code, message: error.message };
    }
  }

  const changes: EventChange[] = [...kindsByEvent].map(([eventId, kinds]) => ({
    eventId,
    revision: current.get(eventId)!.revision,
    kinds: [...kinds],
  }));
  return { revision, revisions, changes, applied: appliedLines };
}

/** What an update makes of an event (none yet: `before` undefined); throws a Rejection if it breaks a rule. */
export function applyUpdate(
  before: Current | undefined,
  update: FeedUpdate,
  at: string,
): { next: Current; kinds: RevisionKind[] } {
  const fields = update.event ?? {};
  if (!before) {
    const missing = CREATION_FIELDS.filter((field) => fields[field] === undefined);
    if (missing.length > 0) {
      throw new Rejection(
        "unknown_event",
        `Event ${update.event_id} does not exist; the update that creates it must carry event.${missing.join(", event.")}`,
      );
    }
  }
  const sport = (fields.sport ?? before?.state.sport) as Sport;
  if (before && fields.sport && fields.sport !== before.state.sport) {
    throw new Rejection(
      "sport_mismatch",
      `Event ${update.event_id} is ${before.state.sport}; its sport cannot change to ${fields.sport}`,
    );
  }
  if (before && fields.status && !canMove(before.state.status, fields.status)) {
    throw new Rejection(
      "invalid_transition",
      `Event ${update.event_id} cannot move from ${before.state.status} to ${fields.status}`,
    );
  }

  const kinds: RevisionKind[] = [];
  const previous = before?.state;
  const state: EventState = {
    id: update.event_id,
    sport,
    competition: fields.competition ?? previous!.competition,
    home: fields.home ?? previous!.home,
    away: fields.away ?? previous!.away,
    status: fields.status ?? previous!.status,
    feed: fields.feed ?? previous!.feed,
    kickoff: fields.kickoff ? new Date(fields.kickoff).toISOString() : previous!.kickoff,
    score: fields.score ?? previous?.score ?? { home: 0, away: 0 },
    clock: fields.clock ?? previous?.clock ?? "",
    period: fields.period ?? previous?.period ?? "",
    stats: fields.stats ?? previous?.stats ?? [],
    updated_at: previous?.updated_at ?? at,
  };
  if (state.home === state.away) throw new Rejection("invalid_update", "event.home and event.away name the same side");
  const eventChanged =
    !previous || JSON.stringify({ ...state, updated_at: "" }) !== JSON.stringify({ ...previous, updated_at: "" });
  if (eventChanged) {
    state.updated_at = at;
    kinds.push("event");
  }

  let markets = before?.markets ?? [];
  if (update.markets && update.markets.length > 0) {
    const offered = SPORT_MARKET_TYPES[sport];
    const seen = new Set<string>();
    for (const market of update.markets) {
      if (!offered.includes(market.type)) {
        throw new Rejection(
          "market_type_not_offered",
          `${sport} offers ${offered.join(", ")}; market ${market.id} is ${market.type}`,
        );
      }
      if (seen.has(market.id)) throw new Rejection("duplicate_id", `Market ${market.id} appears twice in one update`);
      seen.add(market.id);
      const outcomeIds = new Set(market.outcomes.map((o) => o.id));
      if (outcomeIds.size !== market.outcomes.length) {
        throw new Rejection("duplicate_id", `Market ${market.id} has two outcomes with one id`);
      }
    }
    const byId = new Map(update.markets.map((m) => [m.id, { ...m, updated_at: at }]));
    const merged = markets.map((m) => byId.get(m.id) ?? m);
    const fresh = update.markets.filter((m) => !markets.some((old) => old.id === m.id)).map((m) => byId.get(m.id)!);
    markets = [...merged, ...fresh];
    kinds.push("markets");
  }

  let lineups = before?.lineups ?? null;
  if (update.lineups) {
    lineups = { home: update.lineups.home, away: update.lineups.away };
    kinds.push("lineups");
  }

  return {
    next: {
      state,
      markets,
      lineups,
      sequence: update.sequence,
      revision: before?.revision ?? 0,
      dirty: true,
      // Shared with `before`, which this state replaces; written to only once the line is applied.
      applied: before?.applied ?? new Map(),
    },
    kinds,
  };
}
