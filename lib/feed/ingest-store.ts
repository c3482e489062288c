import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { rowsOf, type Database } from "../db/index.ts";
import { competitions, events, feedLines, teams, type Sport } from "../db/schema/index.ts";
import { newId } from "../ids.ts";
import type { AppliedLine, Current, FeedLineRow, RevisionRow } from "./ingest-rules.ts";

// The ingest's storage: the events a batch names, read and locked, and what it made of them written
// back, with their revisions.

const homeTeams = alias(teams, "home_team");
const awayTeams = alias(teams, "away_team");

/**
 * The stored state of the events these updates name, locked until the transaction ends, with the
 * applied updates among them that are not newer than their event's (a resend's, or stale ones).
 */
export async function loadCurrent(
  tx: Database,
  updates: { event_id: string; sequence: number }[],
): Promise<Map<string, Current>> {
  const current = await loadEvents(
    tx,
    updates.map((u) => u.event_id),
  );
  const repeated = updates.filter((u) => u.sequence <= (current.get(u.event_id)?.sequence ?? 0));
  if (repeated.length > 0) {
    const rows = await tx
      .select()
      .from(feedLines)
      .where(
        and(
          inArray(feedLines.eventId, [...new Set(repeated.map((u) => u.event_id))]),
          inArray(feedLines.sequence, [...new Set(repeated.map((u) => u.sequence))]),
        ),
      );
    for (const row of rows) {
      const line: AppliedLine = { digest: row.digest, revision: row.revision };
      current.get(row.eventId)!.applied.set(row.sequence, line);
    }
  }
  return current;
}

async function loadEvents(tx: Database, ids: string[]): Promise<Map<string, Current>> {
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
        applied: new Map(),
      },
    ]),
  );
}

/**
 * Competitions and sides by name within their sport, created on first sight. Their ids never
 * change, so they are kept once a transaction that found them has committed. One per database,
 * kept by whatever applies batches to it, so that each name is looked up once.
 */
export class EventNames {
  private readonly ids = new Map<string, string>();

  /** The names of one transaction, kept here once it commits. */
  batch(): NameIds {
    return new NameIds(this.ids);
  }
}

export class NameIds {
  private readonly cache: Map<string, string>;
  private readonly pending = new Map<string, string>();

  constructor(cache: Map<string, string>) {
    this.cache = cache;
  }

  /** The transaction committed: what it found is known from now on. */
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

/** What a batch writes once its lines are applied: a transaction of `writeBatch`. */
export type BatchWrites = {
  events: Current[];
  lines: FeedLineRow[];
  revisions: RevisionRow[];
  /** The newest revision handed out; the counter moves to it. */
  lastRevision: number;
  /** A select that ends the statement (the bus's notices, sent at commit). */
  then: SQL;
};

/**
 * A batch's events, applied lines, revisions and counter, written by one statement: on the
 * embedded database each statement has a fixed cost (about a tenth of a millisecond in PGlite,
 * as much again in the query builder) that a batch of one change paid five times.
 */
export async function writeBatch(tx: Database, names: NameIds, batch: BatchWrites): Promise<void> {
  const rows = await eventRows(tx, names, batch.events);
  // Sibling statements of one WITH run on one snapshot; the foreign keys of the lines and revisions
  // are checked at its end, when the events they name are written.
  await tx.execute(sql`
    with written_events as (${upsertEvents(rows)}),
      written_lines as (${upsertFeedLines(batch.lines)}),
      written_revisions as (${insertRevisions(batch.revisions)}),
      counted as (
        update revision_counter set last_revision = ${batch.lastRevision}
        where id = 1 and last_revision < ${batch.lastRevision})
    ${batch.then}`);
}

export async function writeEvents(tx: Database, names: NameIds, changed: Current[]): Promise<void> {
  await tx.execute(upsertEvents(await eventRows(tx, names, changed)));
}

export async function writeRevisions(tx: Database, revisions: RevisionRow[]): Promise<void> {
  await tx.execute(insertRevisions(revisions));
}

export async function writeFeedLines(tx: Database, lines: FeedLineRow[]): Promise<void> {
  await tx.execute(upsertFeedLines(lines));
}

async function eventRows(tx: Database, names: NameIds, changed: Current[]) {
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
  return changed.map(({ state, markets, lineups, sequence, revision }) => ({
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
}

// The rows travel as one JSON parameter and PostgreSQL unpacks them: building a statement with
// thousands of bound values costs the ingest more than the database's work does.
const upsertEvents = (rows: unknown[]) => sql`
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
    updated_at = excluded.updated_at`;

const insertRevisions = (revisions: RevisionRow[]) => sql`
  insert into event_revisions (revision, event_id, kind, recorded_at, state)
  select * from jsonb_to_recordset(${JSON.stringify(revisions)}::jsonb)
    as r(revision bigint, event_id text, kind text, recorded_at timestamptz, state jsonb)`;

const upsertFeedLines = (lines: FeedLineRow[]) => sql`
  insert into feed_lines (event_id, sequence, digest, revision, applied_at)
  select * from jsonb_to_recordset(${JSON.stringify(lines)}::jsonb)
    as r(event_id text, sequence bigint, digest text, revision bigint, applied_at timestamptz)
  on conflict (event_id, sequence) do update set
    digest = excluded.digest, revision = excluded.revision, applied_at = excluded.applied_at`;

/**
 * Forgets applied updates older than `before`, except each event's newest: a resend of those
 * older is then refused as stale, which the retention window makes rare.
 */
export async function pruneFeedLines(db: Database, before: Date): Promise<number> {
  const rows = rowsOf<{ sequence: number }>(
    await db.execute(sql`
      delete from feed_lines f
      using events e
      where e.id = f.event_id and f.applied_at < ${before.toISOString()} and f.sequence < e.feed_sequence
      returning f.sequence`),
  );
  return rows.length;
}
