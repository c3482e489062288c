import { and, eq, inArray, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Database } from "../db/index.ts";
import {
  competitions,
  events,
  revisionCounter,
  teams,
  type Lineups,
  type Market,
  type RevisionKind,
  type Sport,
} from "../db/schema/index.ts";
import { newId } from "../ids.ts";
import { SPORT_MARKET_TYPES } from "../sports.ts";
import { FEED_CHANNEL, encodeChanges, type EventChange } from "./changes.ts";
import type { BatchLine } from "./ndjson.ts";
import { CREATION_FIELDS, feedUpdateSchema, type EventState, type FeedUpdate } from "./schemas.ts";
import { canMove } from "./status.ts";

// The one path by which any change reaches stored state: the simulator and the providers' ingest
// endpoint both call applyBatch. A batch is one transaction; each line is applied or rejected on
// its own merits, and a rejected line changes nothing.

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
};

type Current = {
  state: EventState;
  markets: Market[];
  lineups: Lineups | null;
  sequence: number;
  revision: number;
  dirty: boolean;
};

type RevisionRow = { revision: number; event_id: string; kind: RevisionKind; recorded_at: string; state: unknown };

class Rejection extends Error {
  readonly code: RejectionCode;
  constructor(code: RejectionCode, message: string) {
    super(message);
    this.code = code;
  }
}

const homeTeams = alias(teams, "home_team");
const awayTeams = alias(teams, "away_team");

/** Lines that are already parsed objects (the simulator) skip JSON but not validation. */
export function linesOf(updates: unknown[]): BatchLine[] {
  return updates.map((value, i) => ({ line: i + 1, value }));
}

export async function applyBatch(db: Database, lines: BatchLine[], at: Date): Promise<BatchResult> {
  const results: LineResult[] = new Array(lines.length);
  const valid: { index: number; update: FeedUpdate }[] = [];
  lines.forEach((line, index) => {
    const value = line.value as { event_id?: unknown; sequence?: unknown } | undefined;
    const base = {
      line: line.line,
      event_id: typeof value?.event_id === "string" ? value.event_id : null,
      sequence: typeof value?.sequence === "number" ? value.sequence : null,
    };
    if (line.error !== undefined) {
      results[index] = { ...base, status: "rejected", code: "invalid_json", message: `Not valid JSON: ${line.error}` };
      return;
    }
    const parsed = feedUpdateSchema.safeParse(line.value);
    if (!parsed.success) {
      const errors = parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message }));
      results[index] = {
        ...base,
        status: "rejected",
        code: "invalid_update",
        message: errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join("; "),
        errors,
      };
      return;
    }
    valid.push({ index, update: parsed.data });
  });

  let changes: EventChange[] = [];
  const names = new NameIds(db);
  if (valid.length > 0) {
    changes = await db.transaction(async (tx) => {
      // The counter's row lock orders every ingest transaction, so revision numbers are handed
      // out in commit order: a reader that has seen revision N has seen every revision below it.
      const [counter] = await tx.select().from(revisionCounter).where(eq(revisionCounter.id, 1)).for("update");
      let revision = counter!.lastRevision;
      const current = await loadCurrent(
        tx,
        valid.map((v) => v.update.event_id),
      );
      const revisions: RevisionRow[] = [];
      const kindsByEvent = new Map<string, Set<RevisionKind>>();
      const iso = at.toISOString();

      for (const { index, update } of valid) {
        const base = { line: lines[index]!.line, event_id: update.event_id, sequence: update.sequence };
        try {
          const before = current.get(update.event_id);
          if (before && update.sequence === before.sequence) {
            results[index] = { ...base, status: "duplicate", revision: before.revision };
            continue;
          }
          const { next, kinds } = applyUpdate(before, update, iso);
          for (const kind of kinds) {
            revision++;
            const state =
              kind === "event"
                ? next.state
                : kind === "markets"
                  ? next.markets
                  : { event_id: update.event_id, ...next.lineups };
            revisions.push({ revision, event_id: update.event_id, kind, recorded_at: iso, state });
            next.revision = revision;
            const set = kindsByEvent.get(update.event_id) ?? new Set<RevisionKind>();
            set.add(kind);
            kindsByEvent.set(update.event_id, set);
          }
          current.set(update.event_id, next);
          results[index] = { ...base, status: "applied", revision: next.revision };
        } catch (error) {
          if (!(error instanceof Rejection)) throw error;
          results[index] = { ...base, status: "rejected", code: error.code, message: error.message };
        }
      }

      const dirty = [...current.values()].filter((c) => c.dirty);
      if (dirty.length === 0) return [];
      await writeEvents(tx, names, dirty);
      if (revisions.length > 0) {
        await writeRevisions(tx, revisions);
        await tx.update(revisionCounter).set({ lastRevision: revision }).where(eq(revisionCounter.id, 1));
      }
      const batchChanges: EventChange[] = [...kindsByEvent].map(([eventId, kinds]) => ({
        eventId,
        revision: current.get(eventId)!.revision,
        kinds: [...kinds],
      }));
      // Delivered to every listening instance when, and only if, the transaction commits.
      for (const payload of encodeChanges(batchChanges)) {
        await tx.execute(sql`select pg_notify(${FEED_CHANNEL}, ${payload})`);
      }
      return batchChanges;
    });
    names.commit();
  }

  const count = (status: LineResult["status"]) => results.filter((r) => r.status === status).length;
  return { applied: count("applied"), duplicate: count("duplicate"), rejected: count("rejected"), results, changes };
}

function applyUpdate(
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
  } else if (update.sequence < before.sequence) {
    throw new Rejection(
      "stale_sequence",
      `Event ${update.event_id} is at sequence ${before.sequence}; sequence ${update.sequence} arrived out of order and was not applied`,
    );
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
    },
    kinds,
  };
}

async function loadCurrent(tx: Database, ids: string[]): Promise<Map<string, Current>> {
  const rows = await tx
    .select({
      event: events,
      competition: competitions.name,
      home: homeTeams.name,
      away: awayTeams.name,
    })
    .from(events)
    .innerJoin(competitions, eq(competitions.id, events.competitionId))
    .innerJoin(homeTeams, eq(homeTeams.id, events.homeTeamId))
    .innerJoin(awayTeams, eq(awayTeams.id, events.awayTeamId))
    .where(inArray(events.id, [...new Set(ids)]))
    .for("update", { of: events });
  return new Map(
    rows.map(({ event, competition, home, away }) => [
      event.id,
      {
        state: {
          id: event.id,
          sport: event.sport,
          competition,
          home,
          away,
          status: event.status,
          feed: event.feed,
          kickoff: event.kickoff.toISOString(),
          score: { home: event.scoreHome, away: event.scoreAway },
          clock: event.clock,
          period: event.period,
          stats: event.stats,
          updated_at: event.updatedAt.toISOString(),
        },
        markets: event.markets,
        lineups: event.lineups,
        sequence: event.feedSequence,
        revision: event.revision,
        dirty: false,
      },
    ]),
  );
}

// Competitions and sides are found by name within their sport and created on first sight. Their
// ids never change, so each database handle remembers them, once the transaction has committed.
const nameCache = new WeakMap<Database, Map<string, string>>();

class NameIds {
  private readonly cache: Map<string, string>;
  private readonly pending = new Map<string, string>();

  constructor(db: Database) {
    this.cache = nameCache.get(db) ?? new Map<string, string>();
    nameCache.set(db, this.cache);
  }

  commit(): void {
    for (const [key, id] of this.pending) this.cache.set(key, id);
  }

  async resolve(
    tx: Database,
    table: typeof competitions | typeof teams,
    prefix: "cmp" | "tm",
    wanted: { sport: Sport; name: string }[],
  ): Promise<(sport: string, name: string) => string> {
    const keyOf = (sport: string, name: string) => `${prefix}\u0000${sport}\u0000${name}`;
    const known = (key: string) => this.cache.get(key) ?? this.pending.get(key);
    const missing = [...new Map(wanted.map((w) => [keyOf(w.sport, w.name), w])).entries()].filter(
      ([key]) => !known(key),
    );
    if (missing.length > 0) {
      const unique = missing.map(([, w]) => w);
      await tx
        .insert(table)
        .values(unique.map((m) => ({ id: newId(prefix), sport: m.sport, name: m.name })))
        .onConflictDoNothing();
      const found = await tx
        .select({ id: table.id, sport: table.sport, name: table.name })
        .from(table)
        .where(
          and(
            inArray(table.sport, [...new Set(unique.map((m) => m.sport))]),
            inArray(table.name, [...new Set(unique.map((m) => m.name))]),
          ),
        );
      for (const row of found) this.pending.set(keyOf(row.sport, row.name), row.id);
    }
    return (sport, name) => known(keyOf(sport, name))!;
  }
}

async function writeEvents(tx: Database, names: NameIds, changed: Current[]): Promise<void> {
  const competitionId = await names.resolve(
    tx,
    competitions,
    "cmp",
    changed.map((c) => ({ sport: c.state.sport, name: c.state.competition })),
  );
  const teamId = await names.resolve(
    tx,
    teams,
    "tm",
    changed.flatMap((c) => [
      { sport: c.state.sport, name: c.state.home },
      { sport: c.state.sport, name: c.state.away },
    ]),
  );
  const rows = changed.map(({ state, markets, lineups, sequence, revision }) => ({
    id: state.id,
    sport: state.sport,
    competition_id: competitionId(state.sport, state.competition),
    home_team_id: teamId(state.sport, state.home),
    away_team_id: teamId(state.sport, state.away),
    status: state.status,
    feed: state.feed,
    kickoff: state.kickoff,
    score_home: state.score.home,
    score_away: state.score.away,
    clock: state.clock,
    period: state.period,
    stats: state.stats,
    markets,
    lineups,
    feed_sequence: sequence,
    revision,
    updated_at: state.updated_at,
  }));
  // The rows travel as one JSON parameter and PostgreSQL unpacks them: building a statement with
  // thousands of bound values costs the ingest more than the database's work does.
  await tx.execute(sql`
    insert into events (id, sport, competition_id, home_team_id, away_team_id, status, feed, kickoff, score_home,
      score_away, clock, period, stats, markets, lineups, feed_sequence, revision, updated_at)
    select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(id text, sport text, competition_id text,
      home_team_id text, away_team_id text, status text, feed text, kickoff timestamptz, score_home integer,
      score_away integer, clock text, period text, stats jsonb, markets jsonb, lineups jsonb, feed_sequence bigint,
      revision bigint, updated_at timestamptz)
    on conflict (id) do update set
      competition_id = excluded.competition_id, home_team_id = excluded.home_team_id,
      away_team_id = excluded.away_team_id, status = excluded.status, feed = excluded.feed,
      kickoff = excluded.kickoff, score_home = excluded.score_home, score_away = excluded.score_away,
      clock = excluded.clock, period = excluded.period, stats = excluded.stats, markets = excluded.markets,
      lineups = excluded.lineups, feed_sequence = excluded.feed_sequence, revision = excluded.revision,
      updated_at = excluded.updated_at`);
}

async function writeRevisions(tx: Database, revisions: RevisionRow[]): Promise<void> {
  await tx.execute(sql`
    insert into event_revisions (revision, event_id, kind, recorded_at, state)
    select * from jsonb_to_recordset(${JSON.stringify(revisions)}::jsonb)
      as r(revision bigint, event_id text, kind text, recorded_at timestamptz, state jsonb)`);
}
